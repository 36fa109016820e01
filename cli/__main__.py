"""``python -m cli …``: the ``nj-ledger`` command, as the installed script runs it."""

from .commands import main

main(prog_name="nj-ledger")
