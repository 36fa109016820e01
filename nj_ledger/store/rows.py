"""Event rows and evening entries' rows as the database holds them: JSON written once, the statements every back
end runs, and the one function that turns a row back into a record (an entry: :func:`entry_of`).

The ORM's insert turns every record into a parameter dictionary and encodes
its ``data`` with the json module; the append path and the imports write
thousands of rows a second, so the recorders (:mod:`.recorder`) hand the
driver ready tuples instead, and read rows straight from its cursor.

    >>> json_text({"cards": ["10D"], "seat": 1, "name": "Chloé"})
    '{"cards":["10D"],"seat":1,"name":"Chloé"}'
    >>> json_value('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> record_of((3, 1, "deal", '{"dealer": 2}', 1, "2026-01-01T00:00:00.000000Z", "ab"))["data"]
    {'dealer': 2}
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from sqlalchemy import Text, cast

from ..chain import Chained
from ..evenings.entries import ENTRY_VERSION, LogEntry, read_entry
from .models import DEAL_STARTS_WHERE, EventRecord
from .values import Record

EVENT_COLUMNS = ("game_id", "seq", "deal", "type", "data", "v", "recorded_at", "hash")
# The columns of a record, in the order record_of reads them; its data as the text stored (PostgreSQL's driver
# would read JSON with the json module, and read a JSON text "123" as the text 123).
RECORD_COLUMNS = (
    EventRecord.seq, EventRecord.deal, EventRecord.type, cast(EventRecord.data, Text).label("data"), EventRecord.v,
    EventRecord.recorded_at, EventRecord.hash,
)

# Statements on the driver, "{mark}" standing for its parameter mark (a recorder's ``mark``).
INSERT_EVENTS = (f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) "
                 f"VALUES ({', '.join(['{mark}'] * len(EVENT_COLUMNS))})")
SELECT_RECORDS = ("SELECT seq, deal, type, CAST(data AS TEXT), v, recorded_at, hash FROM events "
                  "WHERE game_id = {mark} AND seq > {mark} AND seq <= {mark} ORDER BY seq")
# A deal's records are the stretch of the log from its "deal" event to the next deal's, found by the index of
# the deals' first events (ix_events_deal_starts: one row a deal, where an index of every event's deal would
# cost each of the log's inserts) and read along the (game_id, seq) key between those two. ("seq + 0 <=": SQLite
# bounds a range by one term on each side, and would otherwise take this one and read on to the end of the log.)
SELECT_DEAL = ("SELECT seq, deal, type, CAST(data AS TEXT), v, recorded_at, hash FROM events "
               "WHERE game_id = {mark} AND deal = {mark} AND seq + 0 <= {mark} "
               "AND seq >= (SELECT min(seq) FROM events WHERE game_id = {mark} AND deal = {mark} AND "
               + DEAL_STARTS_WHERE + ") "
               "AND seq < coalesce((SELECT min(seq) FROM events WHERE game_id = {mark} AND deal = {mark} AND "
               + DEAL_STARTS_WHERE + "), {mark}) ORDER BY seq")
# An evening's log ("by" quoted: a word of SQL), read in order from a seq on.
ENTRY_COLUMNS = ("evening_id", "seq", "type", "data", '"by"', "v", "recorded_at", "hash")
INSERT_ENTRY = (f"INSERT INTO evening_log ({', '.join(ENTRY_COLUMNS)}) "
                f"VALUES ({', '.join(['{mark}'] * len(ENTRY_COLUMNS))})")
SELECT_ENTRIES = ('SELECT seq, type, CAST(data AS TEXT), CAST("by" AS TEXT), v, recorded_at, hash FROM evening_log '
                  "WHERE evening_id = {mark} AND seq > {mark}")  # then the type wanted, the order, the limit
SELECT_OWNER_AND_VERSION = "SELECT club_id, version, CAST(player_names AS TEXT) FROM games WHERE id = {mark}"
SELECT_MEMBERS = "SELECT name_key, id FROM players WHERE club_id = {mark} AND name_key IN ({marks})"


class JSONText(str):
    """JSON text already written, which a JSON column stores as it is (:func:`json_text` writes it unchanged)."""


def json_text(value: Any, sort_keys: bool = False) -> str:
    """Compact JSON text, keys in their order (``sort_keys``: sorted, as in canonical bytes), UTF-8 kept (what the
    JSON columns hold; an event's data is written with sorted keys); :class:`JSONText` as it is.

    >>> json_text({"seat": 1, "cards": ["10D"]}, sort_keys=True)
    '{"cards":["10D"],"seat":1}'
    >>> json_text(JSONText('{"seat":1}'))
    '{"seat":1}'
    """
    if isinstance(value, JSONText):
        return str(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None).decode()
    except TypeError:  # integers past 64 bits, keys that are not text
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)


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
    """The ``events`` rows of ``records``, in :data:`EVENT_COLUMNS` order: each one's data as its canonical text
    (the chain's, when the records come straight from it: :class:`~nj_ledger.chain.Chained`)."""
    if isinstance(records, Chained):
        return [(game_id, r["seq"], r["deal"], r["type"], text, r["v"], r["recorded_at"], r["hash"])
                for r, text in zip(records, records.data_texts, strict=True)]
    return [
        (game_id, r["seq"], r["deal"], r["type"], json_text(r["data"], sort_keys=True), r["v"], r["recorded_at"],
         r["hash"])
        for r in records
    ]


def record_of(row: Sequence[Any]) -> Record:
    """The record of a row of ``seq, deal, type, data, v, recorded_at, hash`` (:data:`RECORD_COLUMNS`, ``data``
    as its JSON text): every read of the log goes through here. Data that is not JSON (written outside the
    ledger) is kept as its text: the chain and the audit name the event, nothing fails on reading it."""
    seq, deal, kind, data, v, recorded_at, digest = row
    if isinstance(data, (str, bytes)):
        try:
            data = json_value(data)
        except ValueError:
            data = data.decode(errors="replace") if isinstance(data, bytes) else data
    return {"seq": seq, "deal": deal, "type": kind, "data": data, "v": v, "recorded_at": recorded_at,
            "hash": digest}


def entry_row(evening_id: str, item: Mapping[str, Any]) -> tuple[Any, ...]:
    """The ``evening_log`` row of a chained entry (:data:`ENTRY_COLUMNS` order), written at
    :data:`~nj_ledger.evenings.ENTRY_VERSION`.

    >>> entry_row("e1", {"seq": 1, "type": "evening_closed", "data": {"reason": ""}, "by": {"role": "operator"},
    ...                  "recorded_at": "2026-11-26T23:00:00.000000Z", "hash": "ab"})[3:6]
    ('{"reason":""}', '{"role":"operator"}', 1)
    """
    return (evening_id, item["seq"], item["type"], json_text(item["data"]), json_text(dict(item["by"])),
            ENTRY_VERSION, item["recorded_at"], item["hash"])


def entry_of(row: Sequence[Any]) -> LogEntry:
    """The entry of a row of ``seq, type, data, by, v, recorded_at, hash`` (``data`` and ``by`` as their JSON text)
    as the core's value, upcast from the version ``v`` it was written at: every read of an evening's log goes
    through here.

    >>> entry_of((2, "evening_closed", '{"reason": ""}', '{}', 1, "2026-11-26T23:00:00.000000Z", "ab")).data
    {'reason': ''}
    """
    seq, kind, data, by, v, recorded_at, digest = row
    return read_entry(seq, kind, dict(_json(data)), dict(_json(by)), recorded_at, digest, v)


def _json(value: Any) -> Any:
    return json_value(value) if isinstance(value, (str, bytes)) else value
