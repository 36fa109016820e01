"""Run the ``nj-ledger`` command line and kill it with SIGKILL at its N-th call to the database.

``python -m reliability.crashing N -- import big.json --club ID`` counts every
statement sent and every commit (before and after each statement, so a kill
can fall between writing the events and committing them); at the N-th it kills
its own process, as ``kill -9`` would, with the transaction open. ``N = 0``
kills nothing and prints how many calls the command made.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine


def arm(kill_at: int) -> list[int]:
    """Count the database calls of every engine made from now on; kill the process at call ``kill_at``."""
    calls = [0]

    def tick(*_: Any, **__: Any) -> None:
        calls[0] += 1
        if calls[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    event.listen(Engine, "before_cursor_execute", tick)
    event.listen(Engine, "after_cursor_execute", tick)
    event.listen(Engine, "commit", tick)
    return calls


def main(argv: list[str]) -> int:
    kill_at, separator, *command = argv
    assert separator == "--", "usage: python -m reliability.crashing N -- nj-ledger arguments…"
    calls = arm(int(kill_at))
    from cli.commands import main as cli

    try:
        cli(command, standalone_mode=False)
    finally:
        print(f"database calls: {calls[0]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
