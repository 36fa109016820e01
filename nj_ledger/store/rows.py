"""Writing event rows fast: rows straight to the driver, JSON written once, COPY on PostgreSQL.

The ORM's insert turns every record into a parameter dictionary and encodes
its ``data`` with the json module; the append path and the streaming import
write thousands of rows a second, so they hand the driver ready tuples instead
(``executemany``; ``COPY … FROM STDIN`` for a large batch on PostgreSQL), in
the caller's transaction.

    >>> json_text({"cards": ["10D"], "seat": 1, "name": "Chloé"})
    '{"cards":["10D"],"seat":1,"name":"Chloé"}'
    >>> json_value('{"a": [1, 2]}')
    {'a': [1, 2]}
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import orjson
from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session

from .values import Record

EVENT_COLUMNS = ("game_id", "seq", "deal", "type", "data", "v", "recorded_at", "hash")
COPY_FROM = 64  # rows from which COPY beats executemany on PostgreSQL

_COLUMNS = ", ".join(EVENT_COLUMNS)
_QMARK = ", ".join("?" * len(EVENT_COLUMNS))
_FORMAT = ", ".join(["%s"] * len(EVENT_COLUMNS))
_INSERT = {
    "qmark": f"INSERT INTO events ({_COLUMNS}) VALUES ({_QMARK})",
    "pyformat": f"INSERT INTO events ({_COLUMNS}) VALUES ({_FORMAT})",
    "format": f"INSERT INTO events ({_COLUMNS}) VALUES ({_FORMAT})",
}
_COPY = f"COPY events ({_COLUMNS}) FROM STDIN"


def json_text(value: Any) -> str:
    """Compact JSON text, keys in their order, UTF-8 kept (what the JSON columns hold)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # integers past 64 bits, keys that are not text
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_value(text: str | bytes) -> Any:
    """The value of a JSON column's text (ValueError for text that is not JSON). ``NaN`` and ``Infinity`` are
    refused: the ledger never writes them, and orjson would write one back as ``null``, the text a hash was
    computed over for a true ``null``."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # integers past 64 bits written as they are: what only the json module reads
        return json.loads(text, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a value the ledger writes")


def event_rows(game_id: str, records: Sequence[Record]) -> list[tuple[Any, ...]]:
    """The ``events`` rows of ``records``, in :data:`EVENT_COLUMNS` order."""
    return [
        (game_id, r["seq"], r["deal"], r["type"], json_text(r["data"]), r["v"], r["recorded_at"], r["hash"])
        for r in records
    ]


def insert_events(connection: Connection, game_id: str, records: Sequence[Record]) -> None:
    """Insert a game's new records in the connection's transaction."""
    if not records:
        return
    rows = event_rows(game_id, records)
    dialect = connection.dialect
    if dialect.name == "postgresql" and len(rows) >= COPY_FROM:
        driver: Any = connection.connection.driver_connection
        with driver.cursor() as cursor, cursor.copy(_COPY) as copy:
            for row in rows:
                copy.write_row(row)
        return
    connection.exec_driver_sql(_INSERT[dialect.paramstyle], rows)


# Reading rows straight from the driver, for the replay of a deal (two small queries, many times a second).
_GAME_VERSION_SQL = "SELECT club_id, version FROM games WHERE id = {mark}"
# "seq + 0": SQLite would otherwise walk the whole log by the (game_id, seq) key to filter or sort it, instead
# of reading the deal from the (game_id, deal) index.
_DEAL_SQL = ("SELECT seq, deal, type, data, v, recorded_at, hash FROM events "
             "WHERE game_id = {mark} AND deal = {mark} AND seq + 0 <= {mark} ORDER BY seq + 0")


def _run(driver: Any, paramstyle: str, sql: str, parameters: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    cursor = driver.cursor()
    try:
        cursor.execute(sql.format(mark="?" if paramstyle == "qmark" else "%s"), parameters)
        return list(cursor.fetchall())
    finally:
        cursor.close()


def _fetch(session: Session, sql: str, parameters: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    connection = session.connection()
    return _run(connection.connection.driver_connection, connection.dialect.paramstyle, sql, parameters)


def lookup(engine: Engine, sql: str, parameters: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The rows of one SELECT run straight on a pooled driver connection, in no transaction of the ledger's (one
    statement reads one moment by itself): for the lookup every request makes (its token), where a
    SQLAlchemy connection's begin, execute and rollback cost six times the statement."""
    connection = engine.raw_connection()
    try:
        return _run(connection, engine.dialect.paramstyle, sql, parameters)
    finally:
        connection.close()  # back to the pool, which rolls back what the driver began (PostgreSQL)


def game_owner_and_version(session: Session, game_id: str) -> tuple[str, int] | None:
    """``(club_id, version)`` of a game, or None if there is no such game."""
    rows = _fetch(session, _GAME_VERSION_SQL, (game_id,))
    return (rows[0][0], int(rows[0][1])) if rows else None


def driver_record(row: Sequence[Any]) -> Record:
    """A record from a driver's row of ``seq, deal, type, data, v, recorded_at, hash`` (``data`` as JSON text,
    or already a value where the driver reads JSON itself). Data that is not JSON (written outside the ledger)
    is kept as its text: the chain and the audit name the event, nothing fails on reading it."""
    seq, deal, kind, data, v, recorded_at, digest = row
    if isinstance(data, (str, bytes)):
        try:
            data = json_value(data)
        except ValueError:
            data = data.decode(errors="replace") if isinstance(data, bytes) else data
    return {"seq": seq, "deal": deal, "type": kind, "data": data, "v": v, "recorded_at": recorded_at,
            "hash": digest}


def deal_records(session: Session, game_id: str, deal: int, upto: int) -> list[Record]:
    """The records of deal ``deal`` with seq <= ``upto``, in order."""
    return [driver_record(row) for row in _fetch(session, _DEAL_SQL, (game_id, deal, upto))]


_RECORDS_SQL = ("SELECT seq, deal, type, data, v, recorded_at, hash FROM events "
                "WHERE game_id = {mark} AND seq > {mark} AND seq <= {mark} ORDER BY seq")
FETCH_ROWS = 4096


def game_records(session: Session | Connection, game_id: str, after: int, upto: int) -> Iterator[Record]:
    """The records of a game with ``after < seq <= upto``, in order, read a few thousand rows at a time
    (a server-side cursor on PostgreSQL): a long game's log is never held whole."""
    connection = session.connection() if isinstance(session, Session) else session
    postgres = connection.dialect.name == "postgresql"
    driver: Any = connection.connection.driver_connection
    cursor = driver.cursor(name="nj_ledger_records") if postgres else driver.cursor()
    try:
        cursor.execute(_RECORDS_SQL.format(mark="%s" if postgres else "?"), (game_id, after, upto))
        while rows := cursor.fetchmany(FETCH_ROWS):
            yield from map(driver_record, rows)
    finally:
        cursor.close()
