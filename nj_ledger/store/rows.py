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
from collections.abc import Sequence
from typing import Any

import orjson
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
    """The value of a JSON column's text."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN, integers past 64 bits: what only the json module reads
        return json.loads(text)


def event_rows(game_id: str, records: Sequence[Record]) -> list[tuple[Any, ...]]:
    """The ``events`` rows of ``records``, in :data:`EVENT_COLUMNS` order."""
    return [
        (game_id, r["seq"], r["deal"], r["type"], json_text(r["data"]), r["v"], r["recorded_at"], r["hash"])
        for r in records
    ]


def insert_events(session: Session, game_id: str, records: Sequence[Record]) -> None:
    """Insert a game's new records in the session's transaction."""
    if not records:
        return
    connection = session.connection()
    rows = event_rows(game_id, records)
    dialect = connection.dialect
    if dialect.name == "postgresql" and len(rows) >= COPY_FROM:
        driver: Any = connection.connection.driver_connection
        with driver.cursor() as cursor, cursor.copy(_COPY) as copy:
            for row in rows:
                copy.write_row(row)
        return
    connection.exec_driver_sql(_INSERT[dialect.paramstyle], rows)
