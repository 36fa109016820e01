"""The ``nj-ledger`` command line (``cli.commands``): a face of the ledger beside the web app, built on the store.

It speaks French when the terminal's locale is French (``LANG=fr_FR.UTF-8``): the catalog is bound here, before
click writes a word (:mod:`cli.language`).
"""

from .language import bind

bind()

from .commands import main  # noqa: E402 - after the catalog is bound

__all__ = ["main"]
