"""The SQLite recorder: a file (or memory) database, one writer at a time.

SQLite runs in WAL mode with a busy timeout and foreign keys on; a write
transaction starts with ``BEGIN IMMEDIATE`` so two writers queue for the lock
instead of failing when the second tries to upgrade a read. Its read
transactions in WAL mode already see one moment; its writers queue in the store
(:class:`~.database.WriterQueue`), promptly, rather than in its busy handler.

    >>> engine = SQLiteRecorder().make_engine("sqlite://")
    >>> engine.dialect.name
    'sqlite'
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from sqlalchemy import ColumnElement, Connection, Engine, Insert, Table, create_engine, event, func
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool

from .recorder import WRITE, Changes, Recorder
from .redactions import content_digest
from .walcheckpoints import BACKSTOP_PAGES, WalCheckpointer

BUSY_TIMEOUT_MS = 30_000
CASEFOLD = "nj_casefold"  # a function each connection is given
SHA256 = "nj_sha256"  # another: what the logs' triggers check a redaction's content by (migration 0018)


def _casefold(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


def _sha256(value: Any) -> str | None:
    return content_digest(value) if isinstance(value, str) else None


def database_file(url: str) -> Path | None:
    """The database's file (None for a database in memory)."""
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser().resolve()


class SQLiteRecorder(Recorder):
    name: ClassVar[str] = "sqlite"
    mark: ClassVar[str] = "?"
    embedded: ClassVar[bool] = True
    queues_writers: ClassVar[bool] = True

    def create_engine(self, url: str, **options: Any) -> Engine:
        path = database_file(url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        database = make_url(url).database
        if not database or database == ":memory:":
            options.setdefault("poolclass", StaticPool)
        engine = create_engine(url, connect_args={"check_same_thread": False}, **options)

        @event.listens_for(engine, "connect")
        def _configure(dbapi_connection: Any, _record: Any) -> None:
            # Transactions are begun explicitly below (pysqlite's own BEGIN cannot say IMMEDIATE).
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()
            # SQLite's lower() folds ASCII letters only: Python's casefold, for contains_folded
            dbapi_connection.create_function(CASEFOLD, 1, _casefold, deterministic=True)
            dbapi_connection.create_function(SHA256, 1, _sha256, deterministic=True)

        @event.listens_for(engine, "begin")
        def _begin(connection: Any) -> None:
            immediate = connection.get_execution_options().get(WRITE, False)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine

    def checkpointer(self, engine: Engine) -> WalCheckpointer | None:
        """For a file: a thread of its own checkpoints the log; the writers' connections only do past
        :data:`~.walcheckpoints.BACKSTOP_PAGES` pages (:mod:`.walcheckpoints`)."""
        path = database_file(engine.url.render_as_string(hide_password=False))
        if path is None:
            return None

        @event.listens_for(engine, "connect")
        def _backstop(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")

        return WalCheckpointer(path)

    def writers_file(self, url: str) -> str | None:
        path = database_file(url)
        return None if path is None else f"{path}.writers"

    def begin_snapshot(self, session: Session) -> None:
        """Nothing to do: a read transaction in WAL mode sees the moment of its first statement throughout."""

    def lock_clubs(self, connection: Connection, club_ids: Sequence[str]) -> None:
        """Nothing to do: the write transaction holds SQLite's one write lock."""

    def lock_signing_keys(self, connection: Connection) -> None:
        """Nothing to do: the write transaction holds SQLite's one write lock."""

    def is_transient(self, error: DBAPIError) -> bool:
        text = str(error.orig).lower()
        if isinstance(error, IntegrityError):
            return "unique" in text or "primary key" in text
        return isinstance(error, OperationalError) and ("locked" in text or "busy" in text)

    def insert_new(self, table: Table) -> Insert:
        return sqlite.insert(table).on_conflict_do_nothing()

    def upsert(self, table: Table, keys: Sequence[ColumnElement[Any]], changes: Changes) -> Insert:
        statement = sqlite.insert(table)
        return statement.on_conflict_do_update(index_elements=keys, set_=changes(statement.excluded))

    def latest(self, column: ColumnElement[Any], order: ColumnElement[Any]) -> ColumnElement[Any]:
        # SQLite gives a bare column the value of the row holding the query's one max() (a documented rule)
        return column

    def contains_folded(self, column: ColumnElement[Any], text: str) -> ColumnElement[bool]:
        folded: ColumnElement[str] = getattr(func, CASEFOLD)(column)
        return folded.contains(text.casefold(), autoescape=True)
