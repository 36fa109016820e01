"""The PostgreSQL recorder: psycopg 3, COPY for large batches, server-side cursors for long logs.

Row locks queue PostgreSQL's writers (the store's WriterQueue stands aside);
an audit's reads run in one REPEATABLE READ transaction; the errors another
writer causes are told by their SQLSTATE.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, ClassVar

from sqlalchemy import ColumnElement, Connection, Engine, Insert, Table, bindparam, create_engine, func, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from .models import Club
from .recorder import Changes, Listener, Recorder, Row
from .rows import EVENT_COLUMNS

COPY_FROM = 64  # rows from which COPY beats executemany
_COPY = f"COPY events ({', '.join(EVENT_COLUMNS)}) FROM STDIN"
# unique violation, serialization failure, deadlock
_TRANSIENT = frozenset({"23505", "40001", "40P01"})
# FOR NO KEY UPDATE: rows that refer to a club still go in
_LOCK_CLUBS = (select(Club.id).where(Club.id.in_(bindparam("club_ids", expanding=True))).order_by(Club.id)
               .with_for_update(key_share=True))
CHANNEL = "nj_ledger_games"  # the games whose logs grew: each notification's payload is "<game id> <version>"
_cursors = itertools.count()  # a server-side cursor's name is unique on its connection: two reads may be open


class PostgresRecorder(Recorder):
    name: ClassVar[str] = "postgresql"
    mark: ClassVar[str] = "%s"
    embedded: ClassVar[bool] = False
    queues_writers: ClassVar[bool] = False
    share_rows: ClassVar[str] = " FOR SHARE"

    def create_engine(self, url: str, **options: Any) -> Engine:
        return create_engine(url, pool_pre_ping=True, **options)

    def writers_file(self, url: str) -> str | None:
        return None

    def begin_snapshot(self, session: Session) -> None:
        # set as the transaction's connection is taken, before any statement
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})

    def lock_clubs(self, connection: Connection, club_ids: Sequence[str]) -> None:
        connection.execute(_LOCK_CLUBS, {"club_ids": list(club_ids)})

    def lock_signing_keys(self, connection: Connection) -> None:
        connection.exec_driver_sql("LOCK TABLE signing_keys IN SHARE ROW EXCLUSIVE MODE")

    def is_transient(self, error: DBAPIError) -> bool:
        return getattr(error.orig, "sqlstate", None) in _TRANSIENT

    def insert_rows(self, connection: Connection, rows: list[Row]) -> None:
        if len(rows) < COPY_FROM:
            super().insert_rows(connection, rows)
            return
        driver: Any = connection.connection.driver_connection
        with driver.cursor() as cursor, cursor.copy(_COPY) as copy:
            for row in rows:
                copy.write_row(row)

    def announce(self, connection: Connection, game_id: str, version: int) -> None:
        # In the append's transaction: PostgreSQL delivers it at the commit, after the rows are visible, and
        # never for a transaction rolled back; a notification sent after the commit would be lost with a
        # process that dies in between.
        connection.exec_driver_sql("SELECT pg_notify(%s, %s)", (CHANNEL, f"{game_id} {version}"))

    def listener(self, engine: Engine) -> Listener | None:
        return _PostgresListener(engine)

    def log_cursor(self, driver: Any) -> Any:
        """A server-side cursor: the server holds the log, the driver reads it a chunk at a time."""
        return driver.cursor(name=f"nj_ledger_records_{next(_cursors)}")

    def insert_new(self, table: Table) -> Insert:
        return postgresql.insert(table).on_conflict_do_nothing()

    def upsert(self, table: Table, keys: Sequence[ColumnElement[Any]], changes: Changes) -> Insert:
        statement = postgresql.insert(table)
        return statement.on_conflict_do_update(index_elements=keys, set_=changes(statement.excluded))

    def latest(self, column: ColumnElement[Any], order: ColumnElement[Any]) -> ColumnElement[Any]:
        return func.array_agg(postgresql.aggregate_order_by(column, order.desc()))[1]

    def contains_folded(self, column: ColumnElement[Any], text: str) -> ColumnElement[bool]:
        # ILIKE folds every letter the database's character type knows (UTF-8 databases: accented ones too)
        return column.icontains(text, autoescape=True)


class _PostgresListener(Listener):
    """``LISTEN`` on a connection of its own (autocommit, outside the engine's pool)."""

    def __init__(self, engine: Engine) -> None:
        import psycopg

        arguments: dict[str, Any] = engine.url.translate_connect_args(username="user", database="dbname")
        arguments.update(engine.url.query)
        self.connection = psycopg.connect(**arguments, autocommit=True)
        self.connection.execute(f"LISTEN {CHANNEL}")

    def wait(self, timeout: float) -> set[str]:
        games: set[str] = set()
        for notification in self.connection.notifies(timeout=timeout, stop_after=1):
            games.add(notification.payload.split(" ", 1)[0])
        # more may have come together: take them without waiting
        for notification in self.connection.notifies(timeout=0, stop_after=1000):
            games.add(notification.payload.split(" ", 1)[0])
        return games

    def close(self) -> None:
        self.connection.close()
