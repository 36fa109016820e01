"""The game state as the API shows it (SPEC §5): :func:`nj_ledger.view.state_view`; a stored game as the API
lists it (:func:`summary_view`, also what ``nj-ledger games list --json`` prints); a club's token as listed
(:func:`token_view`, never its secret: also what ``nj-ledger tokens list --json`` prints).

The view is defined once, in the core, so that the scorer page (which runs the core under Pyodide with no
connection) shows exactly what the server answers; the API's modules import it from here. Nothing here needs a
request.
"""

from __future__ import annotations

from typing import Any

from nj_ledger.store import GameInfo, TokenRecord, iso
from nj_ledger.view import expected_label, state_view

__all__ = ["expected_label", "state_view", "summary_view", "token_view"]


def summary_view(game: GameInfo) -> dict[str, Any]:
    return {
        "id": game.id, "club": game.club_id, "created_at": iso(game.created_at), "updated_at": iso(game.updated_at),
        "date": game.played_on.isoformat(), "title": game.meta.get("title"), "version": game.version,
        "status": game.status, "profile": game.profile, "players": game.players,
        "starting_chips": game.starting_chips, "deals_played": game.deals_played,
    }


def token_view(token: TokenRecord) -> dict[str, Any]:
    return {"id": token.id, "role": token.role, "label": token.label, "created_at": iso(token.created_at),
            "last_used_at": None if token.last_used_at is None else iso(token.last_used_at),
            "revoked_at": None if token.revoked_at is None else iso(token.revoked_at)}
