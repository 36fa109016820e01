"""Serving the app: waitress in one process, or granian's workers, one process per core.

One process serves a club's table well; a busy server (a federation, an online
table) gives it one worker per core: the workers share the database, and each
keeps its own caches (a state is always checked against the game's version in
the database before use, so a worker never serves a stale game).

granian reads and writes HTTP in Rust and hands each request to the worker's
Python threads: a request costs the server a third less CPU than with a server
written in Python, and a worker with one thread (the default with several
workers) never makes its requests wait for one another's turn at the
interpreter lock.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
from collections.abc import Mapping
from typing import Any

from flask import Flask

from . import create_app

ONE_PROCESS_THREADS = 8
WORKER_THREADS = 1
STOP_GRACE = 10  # seconds a stopped server gives its workers to finish their requests
_WORKER_CONFIG_ENV = "NJ_LEDGER_WORKER_CONFIG"  # the app's settings, passed to the worker processes
_SERVER_PID_ENV = "NJ_LEDGER_SERVER_PID"  # the process that started the workers
_PR_SET_PDEATHSIG = 1


def serve(config: Mapping[str, Any], host: str, port: int, threads: int | None, workers: int) -> None:
    """Serve ``create_app(config)`` on ``host:port`` until interrupted (``threads`` in each process)."""
    if workers == 1:
        import waitress

        waitress.serve(create_app(config), host=host, port=port, threads=threads or ONE_PROCESS_THREADS,
                       ident="nj-ledger")
        return
    _run_workers(config, host, port, threads or WORKER_THREADS, workers)


def _run_workers(config: Mapping[str, Any], host: str, port: int, threads: int, workers: int) -> None:
    """granian's WSGI workers, each making its own app (and with it its own database engine)."""
    from granian import Granian
    from granian.constants import Interfaces
    from granian.log import LogLevels

    os.environ[_WORKER_CONFIG_ENV] = json.dumps(dict(config))
    os.environ[_SERVER_PID_ENV] = str(os.getpid())
    Granian(
        f"{__name__}:worker_app", factory=True, interface=Interfaces.WSGI, address=host, port=port,
        workers=workers, blocking_threads=threads,
        respawn_failed_workers=True,  # a worker that dies is replaced, as the others keep serving
        workers_kill_timeout=STOP_GRACE,  # a worker still busy (or stuck) that long after a stop is killed
        log_level=LogLevels.warning,  # requests are not logged: a URL may name a game, a header carries a token
    ).serve()


def worker_app() -> Flask:
    """The app of one worker process, with the settings ``serve`` was given."""
    for stop in (signal.SIGTERM, signal.SIGINT):  # a stop while the app is being made ends the worker there:
        signal.signal(stop, signal.SIG_DFL)  # the server's own handlers, inherited over the fork, would lose it
    _stop_with_server()
    return create_app(json.loads(os.environ.get(_WORKER_CONFIG_ENV) or "{}"))


def _stop_with_server() -> None:
    """Have Linux stop this worker (SIGTERM, which it handles gracefully) when the server process is gone, even
    killed with SIGKILL: orphaned workers would go on serving and hold the port."""
    if not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if str(os.getppid()) != os.environ.get(_SERVER_PID_ENV, str(os.getppid())):  # gone before the call above
        os.kill(os.getpid(), signal.SIGTERM)
