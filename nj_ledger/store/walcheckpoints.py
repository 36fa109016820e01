"""Checkpointing an SQLite file's write-ahead log in a thread of its own, off the writers' path.

In WAL mode a commit appends pages to the log; a checkpoint copies them back
into the database file and syncs it. SQLite runs that checkpoint in the
connection whose commit took the log past 1,000 pages: one append or import in
twenty or so then waits for a few megabytes to be copied and for the disk to
sync. :class:`WalCheckpointer` takes that work off the writers, as SQLite's
documentation suggests an application may: after a write it wakes a thread
which, a moment later (the commits of that moment together), runs a PASSIVE
checkpoint on a connection of its own, which waits for no reader and no writer
and is waited for by none. The writers' own checkpoints stay as a backstop, at
a log of :data:`BACKSTOP_PAGES` pages: should the thread fall behind, the log
still never grows without bound. The thread ends after :data:`IDLE_SECONDS`
without a write and starts again with the next one.

    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "ledger.sqlite"
    >>> connection = sqlite3.connect(path, isolation_level=None)
    >>> _ = connection.execute("PRAGMA journal_mode=WAL")
    >>> _ = connection.execute("CREATE TABLE t (x)")
    >>> checkpointer = WalCheckpointer(path, delay=0)
    >>> checkpointer.wrote(); checkpointer.idle(timeout=5)
    True
    >>> checkpointer.checkpoints >= 1
    True
    >>> checkpointer.stop(); connection.close(); folder.cleanup()
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

BACKSTOP_PAGES = 10_000  # the writers' own checkpoint (SQLite's default: 1,000 pages)
DELAY_SECONDS = 0.2  # after a write, before the checkpoint: the commits of that moment are copied together
IDLE_SECONDS = 10.0  # without a write, the thread ends (and its connection closes)


class WalCheckpointer:
    """A thread that checkpoints ``path``'s write-ahead log a moment after writes (:meth:`wrote`)."""

    def __init__(self, path: Path, delay: float = DELAY_SECONDS, idle_seconds: float = IDLE_SECONDS) -> None:
        self.path = path.absolute()
        self.delay = delay
        self.idle_seconds = idle_seconds
        self.checkpoints = 0  # PASSIVE checkpoints run (for the tests)
        self._reset()

    def _reset(self) -> None:
        """Fresh locks and no thread: at creation, and in a forked child (which has none of the parent's
        threads, and may have inherited a lock one of them held)."""
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._done = threading.Event()  # set while no checkpoint is due (for the tests)
        self._done.set()
        self._thread: threading.Thread | None = None

    def wrote(self) -> None:
        """A write transaction committed: a checkpoint is due in a moment."""
        if self._pid != os.getpid():
            self._reset()
        with self._lock:
            if self._stopped.is_set():
                return
            self._done.clear()
            self._wake.set()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="nj-ledger-wal-checkpoints", daemon=True)
                self._thread.start()

    def idle(self, timeout: float) -> bool:
        """Wait until no checkpoint is due (every write so far checkpointed); whether it came in ``timeout``."""
        return self._done.wait(timeout)

    def stop(self) -> None:
        """End the thread (the store is closing); later writes start none."""
        with self._lock:
            self._stopped.set()
            self._wake.set()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        connection: sqlite3.Connection | None = None
        try:
            while True:
                if not self._wake.wait(self.idle_seconds):
                    with self._lock:  # decided with the lock held: a write from here on starts a new thread
                        if not self._wake.is_set():
                            self._thread = None
                            return
                if self._stopped.wait(self.delay):
                    return
                self._wake.clear()
                try:
                    if connection is None:  # never creates the file (a database removed meanwhile stays gone)
                        connection = sqlite3.connect(f"{self.path.as_uri()}?mode=rw", uri=True, isolation_level=None,
                                                     check_same_thread=False)
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
                except sqlite3.Error:
                    pass  # the writers' own checkpoints still run (the backstop)
                with self._lock:
                    if not self._wake.is_set():
                        self._done.set()
        finally:
            if connection is not None:
                connection.close()
            with self._lock:
                if self._thread is threading.current_thread():  # stopped, or failed: the next write starts one
                    self._thread = None
                if self._thread is None:
                    self._done.set()
