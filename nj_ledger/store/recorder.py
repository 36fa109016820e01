"""The store's one interface to its database: everything that is done differently on SQLite and PostgreSQL.

In the manner of the ``eventsourcing`` library's recorders, :class:`Recorder`
says what the store needs of a database: an engine tuned for it, event rows
inserted and read back a chunk at a time, a deal's rows, an evening's entries
inserted and read back, a read that sees one moment, the signing keys locked,
statements that insert or skip or update, the errors another writer can cause.
:class:`~.sqlite.SQLiteRecorder` and :class:`~.postgresql.PostgresRecorder` say
how; every other module of the store asks its recorder (:func:`recorder_for`)
and never the dialect's name.

    >>> recorder_for("sqlite://").name, recorder_for("postgresql+psycopg://db.example/ledger").embedded
    ('sqlite', False)
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from sqlalchemy import ColumnElement, Connection, Engine, Insert, Table
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session

from ..evenings.entries import LogEntry
from .errors import LogDamaged
from .rows import (
    INSERT_ENTRY,
    INSERT_EVENTS,
    SELECT_DEAL,
    SELECT_ENTRIES,
    SELECT_MEMBERS,
    SELECT_OWNER_AND_VERSION,
    SELECT_RECORDS,
    entry_of,
    entry_row,
    event_rows,
    json_text,
    json_value,
    record_of,
)
from .values import Record
from .walcheckpoints import WalCheckpointer

WRITE = "nj_ledger_write"  # execution option marking a write transaction
FETCH_ROWS = 4096  # rows of a log read at a time: a long game's log is never held whole
PACE_ROWS = 32  # rows of a whole log read and worked on between two pauses (about a millisecond of an audit)
PAUSE = 0.0002  # seconds of each pause
LAST_SEQ = 2**62  # past any seq: a read of the log "upto" it reads every row there is
Row = tuple[Any, ...]
T = TypeVar("T")
Changes = Callable[[Any], Mapping[str, Any]]  # the columns an upsert sets, from the row it did not insert
_RECORDERS: dict[str, Recorder] = {}  # by SQLAlchemy's name of the dialect (register)


class Listener(ABC):
    """Hears the games announced by every process's writers (:meth:`Recorder.announce`)."""

    @abstractmethod
    def wait(self, timeout: float) -> set[str]:
        """The games announced within ``timeout`` seconds (empty when none); raises if the connection is lost."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""


class Recorder(ABC):
    """What the store does on one kind of database. Recorders hold no state: one serves every store."""

    name: ClassVar[str]  # SQLAlchemy's name of the dialect
    mark: ClassVar[str]  # the driver's parameter mark
    embedded: ClassVar[bool]  # a database in a file of this machine, which the server may migrate itself
    queues_writers: ClassVar[bool]  # its writers queue in the store (WriterQueue), not in the database
    # how a registration holds the members it found until it commits (a member's erasure renames them): "" where
    # the one writer holds the database already
    share_rows: ClassVar[str] = ""

    # --- connecting --------------------------------------------------------------------------------
    def make_engine(self, url: str, **options: Any) -> Engine:
        """An engine for ``url`` with the settings the store relies on (its JSON written and read by orjson)."""
        options.setdefault("json_serializer", json_text)
        options.setdefault("json_deserializer", json_value)
        return self.create_engine(url, **options)

    @abstractmethod
    def create_engine(self, url: str, **options: Any) -> Engine:
        """The dialect's engine; a write transaction is one begun with the :data:`WRITE` execution option."""

    @abstractmethod
    def writers_file(self, url: str) -> str | None:
        """The file beside the database where the writers of every process queue (None: no such file)."""

    # --- transactions ------------------------------------------------------------------------------
    @abstractmethod
    def begin_snapshot(self, session: Session) -> None:
        """Make the session's new transaction see one moment of the database in every statement (what an audit
        reads together); called before the transaction runs any."""

    @abstractmethod
    def lock_clubs(self, connection: Connection, club_ids: Sequence[str]) -> None:
        """Keep other transactions from counting these clubs' ended games until this one ends (rows that
        refer to the clubs still go in)."""

    @abstractmethod
    def lock_signing_keys(self, connection: Connection) -> None:
        """Keep other processes from deciding which key signs until this transaction ends."""

    @abstractmethod
    def is_transient(self, error: DBAPIError) -> bool:
        """An error another writer can cause (a duplicate key, a lock waited on too long, a serialization
        failure): the transaction is worth running again."""

    def checkpointer(self, engine: Engine) -> WalCheckpointer | None:
        """What checkpoints the database's write-ahead log off the writers' path, for the store of ``engine``
        (None: the database needs nothing of the kind)."""
        return None

    # --- followers -----------------------------------------------------------------------------------
    def announce(self, connection: Connection, game_id: str, version: int) -> None:
        """Tell the followers of every process that ``game_id`` reached ``version``, when this transaction
        commits (and not at all if it does not). A database that cannot tell (SQLite) is polled instead."""
        return None

    def listener(self, engine: Engine) -> Listener | None:
        """A connection of its own that hears :meth:`announce` from every process (None: poll instead)."""
        return None

    # --- events ------------------------------------------------------------------------------------
    def insert_events(self, connection: Connection, game_id: str, records: Sequence[Record]) -> None:
        """Insert a game's new records in the connection's transaction."""
        if records:
            self.insert_rows(connection, event_rows(game_id, records))

    def insert_rows(self, connection: Connection, rows: list[Row]) -> None:
        """Insert ``events`` rows (:data:`~.rows.EVENT_COLUMNS` order) in the connection's transaction."""
        connection.exec_driver_sql(INSERT_EVENTS.format(mark=self.mark), rows)

    def select_records(self, connection: Connection, game_id: str, after: int, upto: int) -> Iterator[Record]:
        """The records of a game with ``after < seq <= upto``, in order, read :data:`FETCH_ROWS` at a time."""
        cursor = self.log_cursor(_driver(connection))
        try:
            cursor.execute(SELECT_RECORDS.format(mark=self.mark), (game_id, after, upto))
            while rows := cursor.fetchmany(FETCH_ROWS):
                yield from map(record_of, rows)
        finally:
            cursor.close()

    def log_cursor(self, driver: Any) -> Any:
        """A driver cursor for reading a long log (a plain one: the driver holds what it reads)."""
        return driver.cursor()

    def select_deal(self, connection: Connection, game_id: str, deal: int, upto: int) -> list[Record]:
        """The records of deal ``deal`` with seq <= ``upto``, in order (the next deal's number is reckoned here, not
        in SQL, where PostgreSQL would add 1 to the largest 32-bit number in 32 bits)."""
        parameters = (game_id, deal, upto, game_id, deal, game_id, deal + 1, LAST_SEQ)
        return [record_of(row) for row in self.fetch(_driver(connection), SELECT_DEAL, parameters)]

    # --- evenings' logs ----------------------------------------------------------------------------
    def insert_entry(self, connection: Connection, evening_id: str, item: Mapping[str, Any]) -> None:
        """Insert an evening's new entry, chained (its hash given), at the entries' current version, in the
        connection's transaction."""
        connection.exec_driver_sql(INSERT_ENTRY.format(mark=self.mark), entry_row(evening_id, item))

    def select_entries(self, connection: Connection, evening_id: str, after: int = 0,
                       limit: int | None = None, kind: str | None = None) -> list[LogEntry]:
        """The entries of an evening's log with seq > ``after`` (at most ``limit`` of them; of type ``kind`` only,
        when given), in order, each read by :func:`~.rows.entry_of`."""
        sql, parameters = SELECT_ENTRIES, [evening_id, after]
        if kind is not None:
            sql, parameters = sql + " AND type = {mark}", [*parameters, kind]
        sql += " ORDER BY seq"
        if limit is not None:
            sql, parameters = sql + " LIMIT {mark}", [*parameters, limit]
        entries = []
        for row in self.fetch(_driver(connection), sql, tuple(parameters)):
            try:
                entries.append(entry_of(row))
            except ValueError:  # a version no upcaster reads: the row was changed outside the ledger
                raise LogDamaged("The log of evening {evening!r} cannot be read at decision {seq}: it was changed "
                                 "outside the ledger.", evening=evening_id, seq=row[0]) from None
        return entries

    def owner_and_version(self, connection: Connection, game_id: str) -> tuple[str, int, list[str]] | None:
        """``(club_id, version, players)`` of a game (its players' names as its summary holds them), or None if
        there is no such game."""
        rows = self.fetch(_driver(connection), SELECT_OWNER_AND_VERSION, (game_id,))
        return (rows[0][0], int(rows[0][1]), list(json_value(rows[0][2]))) if rows else None

    def members(self, connection: Connection, club_id: str, keys: Sequence[str]) -> dict[str, int]:
        """The member id of each name key of ``keys`` that is a member of ``club_id`` (every game created asks:
        one statement, written for the count of keys, where an expanding parameter is rendered again each time)."""
        if not keys:
            return {}
        sql = SELECT_MEMBERS.replace("{marks}", ", ".join(["{mark}"] * len(keys))) + self.share_rows
        return {str(key): int(member) for key, member in self.fetch(_driver(connection), sql, (club_id, *keys))}

    def lookup(self, engine: Engine, sql: str, parameters: Row) -> list[Row]:
        """The rows of one SELECT (``{mark}`` for each parameter) run straight on a pooled driver connection, in
        no transaction of the ledger's (one statement reads one moment by itself): for the lookup every request
        makes (its token), where a SQLAlchemy connection's begin, execute and rollback cost six times the
        statement."""
        connection = engine.raw_connection()
        try:
            return self.fetch(connection, sql, parameters)
        finally:
            connection.close()  # back to the pool, which rolls back what the driver began (PostgreSQL)

    def fetch(self, driver: Any, sql: str, parameters: Row) -> list[Row]:
        """The rows of one statement (``{mark}`` for each parameter) on a driver connection."""
        cursor = driver.cursor()
        try:
            cursor.execute(sql.format(mark=self.mark), parameters)
            return list(cursor.fetchall())
        finally:
            cursor.close()

    # --- statements in the dialect ------------------------------------------------------------------
    @abstractmethod
    def insert_new(self, table: Table) -> Insert:
        """``INSERT`` that skips the rows whose key is already there."""

    @abstractmethod
    def upsert(self, table: Table, keys: Sequence[ColumnElement[Any]], changes: Changes) -> Insert:
        """``INSERT`` that updates the row already there with the same ``keys`` instead, setting
        ``changes(excluded)`` (``excluded``: the columns of the row that was not inserted)."""

    @abstractmethod
    def latest(self, column: ColumnElement[Any], order: ColumnElement[Any]) -> ColumnElement[Any]:
        """In a query grouping rows by player that selects ``max(order)``: ``column`` of the row holding it."""

    @abstractmethod
    def contains_folded(self, column: ColumnElement[Any], text: str) -> ColumnElement[bool]:
        """Whether the text ``column`` holds ``text``, whatever the case of either, accented letters included
        ("SOIRÉE" in "Soirée"); ``%`` and ``_`` are letters like the others."""


def paced(rows: Iterable[T]) -> Iterator[T]:
    """``rows``, with a short pause every :data:`PACE_ROWS` of them: for the reads that go through a whole log
    (an audit, an export), which a viewer or a share link may ask for.

    Python runs one thread of a process at a time, and a thread that works without waiting keeps the
    interpreter until the others have waited a switch interval (5 ms) for it. A server's other threads -- its
    health check, a scorer's append -- wait that long at each of their steps: beside one audit of a long game
    that made a health check take 300 ms. Each pause hands the interpreter over; they cost an audit of the
    longest game about half a second (0.3 ms a pause), a sixth of its time.
    """
    for count, row in enumerate(rows, start=1):
        if count % PACE_ROWS == 0:
            time.sleep(PAUSE)
        yield row


def _driver(connection: Connection) -> Any:
    return connection.connection.driver_connection


def recorder_for(bind: str | Engine | Connection | Session) -> Recorder:
    """The recorder of a database URL, or of the database an engine, a connection or a session is bound to."""
    if isinstance(bind, str):
        name = make_url(bind).get_backend_name()
    elif isinstance(bind, Session):
        name = bind.get_bind().dialect.name
    else:
        name = bind.dialect.name
    if name not in _RECORDERS:
        if isinstance(bind, str):
            make_url(bind).get_dialect()  # SQLAlchemy's own refusal of a kind of database it does not know
        raise ArgumentError(f"The ledger keeps its log in SQLite or PostgreSQL, not in {name}.")
    return _RECORDERS[name]


def register(recorder: Recorder) -> None:
    """Make ``recorder`` the one :func:`recorder_for` answers with for its kind of database. The store's package
    registers SQLite's and PostgreSQL's as it is imported (:mod:`.recorders`): their modules build on this one,
    which imports neither."""
    _RECORDERS[recorder.name] = recorder
