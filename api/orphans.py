"""A process the server started ends when the server is gone, even killed with SIGKILL: granian's workers
(:mod:`api.serving`) and the plain-HTTP server beside HTTPS on a room's network (:mod:`api.lan_serving`).
Orphaned, they would go on serving and hold their ports, and the next ``serve`` could not start.

Linux's parent-death signal (``PR_SET_PDEATHSIG``) does it, and the signal is SIGKILL, never a graceful SIGTERM:
Linux sends it again each time a thread of the dying parent exits and the child passes to another, so a child
gets several; granian's handler blocks, holding the interpreter lock, on a stop signal arriving while an earlier
one is still queued, and such a process hung forever, stopped accepting but holding its connections. A parent
that is gone crashed: its children end as it did (a write is stored whole or not at all, and a client retries it
with its ``Idempotency-Key``). A stop of the server itself still reaches them gracefully, by the ways it has
(granian stops its workers; ``plain_http_beside`` sends SIGTERM and waits).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int) -> None:
    """Have Linux kill this process (SIGKILL) when ``parent``, the process that started it, is gone; at once if it
    is gone already (it died before this call). Elsewhere than Linux, nothing."""
    if not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
