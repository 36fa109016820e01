"""The game state as the API shows it (SPEC §5): :func:`nj_ledger.view.state_view`.

The view is defined once, in the core, so that the scorer page (which runs the core under Pyodide with no
connection) shows exactly what the server answers; the API's modules import it from here.
"""

from __future__ import annotations

from nj_ledger.view import expected_label, state_view

__all__ = ["expected_label", "state_view"]
