"""The database every part of the store works in (:class:`Database`): its engines, transactions and retries after
a lost race; and the ids and timestamps every part makes."""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy import Connection, Engine, event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from .database import WriterQueue, default_database_url
from .errors import StoreBusy
from .followers import Followers
from .recorder import WRITE, Recorder, recorder_for

T = TypeVar("T")

ATTEMPTS = 25


class LostRace(Exception):
    """Another writer changed the game between our read and our write: try again."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """An ISO-8601 UTC text with microseconds and a ``Z`` (naive values are taken as UTC).

    >>> iso(datetime(2026, 11, 22, 7, 0, 35, 123456, tzinfo=UTC))
    '2026-11-22T07:00:35.123456Z'
    """
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


ID_ALPHABET = string.ascii_letters + string.digits


def new_id() -> str:
    """A short, unguessable id: 12 letters and digits (71 bits).

    Never a "-" or "_": an id typed after a command (``nj-ledger export ID``)
    must not be taken for an option.

    >>> len(new_id()), new_id().isalnum()
    (12, True)
    """
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(12))


class StoreWatcher:
    """Who is told of the store's trouble: every database error and every write run again. This one tells
    nobody; the server sets one that counts them for its metrics (``api.metrics``), so that the store never
    depends on how they are exported."""

    def database_error(self, kind: str) -> None:
        """A statement or a connection failed: ``connect`` (no connection could be made), ``disconnect`` (a
        connection was lost), ``transient`` (a race with another writer, worth a retry) or ``other``."""

    def retried(self, reason: str) -> None:
        """A write transaction is run again: ``lost-race`` (another writer moved the game first) or
        ``transient`` (a transient database error)."""


class Database:
    """One database and how to work in it: its engines, read and write transactions (writers take turns:
    :class:`.database.WriterQueue`), the retry of a write that lost a race, the followers woken when a log grows,
    and who is told of trouble. Every part of the store (:class:`nj_ledger.store.Store`) works through one."""

    def __init__(self, url: str | None = None, *, engine: Engine | None = None) -> None:
        self.url = url or default_database_url()
        self.recorder: Recorder = recorder_for(engine or self.url)  # all the store does differently per database
        self.engine = engine or self.recorder.make_engine(self.url)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self.writers = WriterQueue(self.url)
        self._write_engine = self.engine.execution_options(**{WRITE: True})
        self._write = sessionmaker(self._write_engine, expire_on_commit=False)
        self._followers: Followers | None = None
        self.checkpointer = self.recorder.checkpointer(self.engine)  # SQLite's log, off the writers' path
        self.watcher = StoreWatcher()  # told of database errors and retries (the server's metrics count them)
        event.listen(self.engine, "handle_error", self._database_error)

    @property
    def followers(self) -> Followers:
        """The followers of games in this process, woken when a log grows (:mod:`.followers`)."""
        if self._followers is None:
            self._followers = Followers(self)
        return self._followers

    @property
    def dialect(self) -> str:
        """The database's kind: ``"sqlite"`` or ``"postgresql"``."""
        return self.recorder.name

    @contextmanager
    def reading(self) -> Iterator[Session]:
        with self._read() as session, session.begin():
            yield session

    @contextmanager
    def snapshot(self) -> Iterator[Session]:
        """A read transaction whose every statement sees the same moment of the database (PostgreSQL's
        REPEATABLE READ; SQLite's read transactions in WAL mode already do): what an audit reads together."""
        with self._read() as session, session.begin():
            self.recorder.begin_snapshot(session)
            yield session

    @contextmanager
    def writing(self) -> Iterator[Session]:
        with self.writers.turn(), self._write() as session, session.begin():
            yield session
        self._wrote()

    @contextmanager
    def writing_connection(self) -> Iterator[Connection]:
        """A write transaction on a Core connection: the append path, which has no use for the ORM's session."""
        with self.writers.turn(), self._write_engine.begin() as connection:
            yield connection
        self._wrote()

    @contextmanager
    def writing_if_free(self) -> Iterator[Connection | None]:
        """A write transaction if no writer is waiting or writing now (None otherwise): for a write that may as
        well be skipped, which must never make a reader wait behind an import."""
        with self.writers.turn(wait=False) as free:
            if not free:
                yield None
                return
            with self._write_engine.begin() as connection:
                yield connection
        self._wrote()

    def _wrote(self) -> None:
        """A write transaction committed."""
        if self.checkpointer is not None:
            self.checkpointer.wrote()

    def _database_error(self, context: ExceptionContext) -> None:
        """SQLAlchemy's hook for every error of the engine's statements and connections: told to the watcher."""
        error = context.sqlalchemy_exception
        if context.connection is None:
            kind = "connect"
        elif context.is_disconnect:
            kind = "disconnect"
        elif isinstance(error, DBAPIError) and self.recorder.is_transient(error):
            kind = "transient"
        else:
            kind = "other"
        self.watcher.database_error(kind)

    def retrying(self, attempt: Callable[[], T]) -> T:
        """Run a write transaction again when it lost a race to another writer (never a 500 on a race)."""
        for tries in range(ATTEMPTS):
            try:
                return attempt()
            except LostRace:
                reason = "lost-race"
            except DBAPIError as error:
                if not self.recorder.is_transient(error):
                    raise
                reason = "transient"
            if tries + 1 < ATTEMPTS:
                self.watcher.retried(reason)
                time.sleep(min(0.002 * 2**tries, 0.2) * (0.5 + secrets.randbelow(100) / 100))
        raise StoreBusy("The game is being written by others: try again in a moment.")

    def close(self) -> None:
        if self._followers is not None:
            self._followers.stop()
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self.engine.dispose()
