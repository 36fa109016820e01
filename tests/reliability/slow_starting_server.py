"""`nj-ledger` whose forked processes pause right after the fork, before anything else runs in them.

Run by ``test_serving.py`` as ``python -m reliability.slow_starting_server serve ...``:
granian's workers then stay a while where they still have the server's signal
handlers, before their app is made, which is where a stop could be lost.
``NJ_LEDGER_TEST_FORK_PAUSE`` is the pause in seconds.
"""

from __future__ import annotations

import os
import time

from cli.commands import main

FORK_PAUSE_ENV = "NJ_LEDGER_TEST_FORK_PAUSE"

if __name__ == "__main__":
    os.register_at_fork(after_in_child=lambda: time.sleep(float(os.environ[FORK_PAUSE_ENV])))
    main()
