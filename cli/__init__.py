"""The ``nj-ledger`` command line (``cli.commands``): a face of the ledger beside the web app, built on the store."""

from .commands import main

__all__ = ["main"]
