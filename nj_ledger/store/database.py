"""Connecting to the database: the URL from the environment, engines tuned per back end by its recorder
(:mod:`.sqlite`, :mod:`.postgresql`), and the queue where an embedded database's writers wait.

    >>> engine = make_engine("sqlite://")
    >>> engine.dialect.name
    'sqlite'
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if sys.platform != "win32":  # POSIX: a lock file; elsewhere, writers of other processes wait in SQLite's busy handler
    import fcntl

from sqlalchemy import Engine

from .recorder import recorder_for

DATABASE_URL_ENV = "NJ_LEDGER_DATABASE_URL"
INSTANCE_ENV = "NJ_LEDGER_INSTANCE"


def shipped(name: str) -> Path:
    """A folder the ledger ships in its package (``migrations``, ``examples``: in the source tree, links to the
    top-level folders of those names), found wherever the ledger is installed or run from.

    >>> (shipped("migrations") / "env.py").is_file()
    True
    """
    return Path(__file__).resolve().parents[1] / name


def instance_path() -> Path:
    """The instance folder: the embedded database and the signing key by default.

    ``NJ_LEDGER_INSTANCE`` (made absolute once, so a server started from another
    folder finds the same one), else the user's data folder
    (``$XDG_DATA_HOME/nj-ledger``, ``~/.local/share/nj-ledger``): never the
    working directory, which would give a server started elsewhere another
    database and another key.

    >>> instance_path().is_absolute()
    True
    """
    configured = os.environ.get(INSTANCE_ENV)
    if configured:
        return absolute_setting(INSTANCE_ENV, configured)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser().resolve() / "nj-ledger"


def absolute_setting(name: str, value: str) -> Path:
    """A folder or file named by a setting, which must not depend on the working directory."""
    path = Path(value).expanduser()
    if not path.is_absolute():
        from .errors import SettingError

        raise SettingError("{setting} must be an absolute path, not {path!r}: a relative one would change with the "
                           "folder a command runs in.", setting=name, path=value)
    return path.resolve()


def default_database_url() -> str:
    """``NJ_LEDGER_DATABASE_URL``, or a SQLite file in the instance folder.

    >>> default_database_url().startswith(("sqlite:///", "postgresql"))
    True
    """
    url = os.environ.get(DATABASE_URL_ENV)
    if url:
        return url
    return f"sqlite:///{instance_path() / 'nj-ledger.sqlite'}"


def make_engine(url: str, **options: Any) -> Engine:
    """An engine for ``url`` with the settings this store relies on (:meth:`.Recorder.make_engine`)."""
    return recorder_for(url).make_engine(url, **options)


class WriterQueue:
    """Where an SQLite database's writers wait for their turn: promptly, not in SQLite's busy handler.

    SQLite lets one writer in at a time and makes the others poll, sleeping 1 to 100 ms between tries: four
    scorers writing at once would wait tens of milliseconds for a lock that is free again after one. So
    writers queue first: those of this process on a lock, those of other processes (server workers, an
    import) on an advisory lock of a file beside the database, which wakes a waiter as soon as it is
    released and goes away with a killed process. SQLite's own locking still decides; this only makes the
    waiting prompt. PostgreSQL writers need none of this (its row locks queue them).
    """

    def __init__(self, url: str) -> None:
        recorder = recorder_for(url)
        self.active = recorder.queues_writers
        self.path = recorder.writers_file(url) if sys.platform != "win32" else None
        self._threads = threading.Lock()
        self._file: int | None = None
        self._pid = 0

    @contextmanager
    def turn(self, wait: bool = True) -> Iterator[bool]:
        """The writers' turn, waited for; with ``wait=False`` taken only if free at once (yields whether it was)."""
        if not self.active:
            yield True
            return
        if not self._threads.acquire(blocking=wait):
            yield False
            return
        try:
            descriptor = self._descriptor()
            if descriptor is None:
                yield True
                return
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(descriptor, fcntl.LOCK_UN)
        finally:
            self._threads.release()

    def _descriptor(self) -> int | None:
        """The lock file, opened by each process for itself (a descriptor inherited over a fork would share
        its lock with the parent's)."""
        if self.path is None:
            return None
        if self._file is None or self._pid != os.getpid():
            self._file = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            self._pid = os.getpid()
        return self._file
