"""The hash chain over a game's log.

``hash = SHA-256(previous hash + canonical JSON of the event)``, where the event
is ``{seq, deal, type, data, v, recorded_at}``. An edited, deleted or reordered
row breaks the chain at the first bad ``seq``.

    >>> first = event_hash(GENESIS, {"seq": 1, "deal": 0, "type": "game_started", "data": {},
    ...                              "v": 1, "recorded_at": "2026-01-01T00:00:00Z"})
    >>> len(first)
    64
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import orjson

from .events import EVENT_TYPES, Event

GENESIS = "0" * 64
HASHED_FIELDS = ("seq", "deal", "type", "data", "v", "recorded_at")
_KIND_BYTES = {kind: kind.encode() for kind in EVENT_TYPES}
# A record's canonical JSON written around its data's: keys in order, types and timestamps that JSON writes as is.
_QUICK = b'%s{"data":%s,"deal":%d,"recorded_at":"%s","seq":%d,"type":"%s","v":%d}'
_TIMESTAMP = re.compile(r"[0-9T:.Z+-]*")


_ORJSON_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
# orjson writes floats (1.5, 1e+16) and NaN (null) unlike the json module: a text holding any of these marks
# (which some texts also hold) is written again by the json module.
_FLOAT_MARKS = (b".", b"e+", b"e-", b"null")


def canonical_bytes(value: Any) -> bytes:
    """:func:`canonical_json` as UTF-8 bytes (what the chain hashes).

    orjson writes the common case (the events' ints, texts, lists and objects)
    byte for byte as the json module does, ten times faster; anything it
    writes differently or refuses (floats, NaN, integers past 64 bits, keys
    that are not text) is written by the json module.

    >>> canonical_bytes({"b": [1, "é"], "a": None})
    b'{"a":null,"b":[1,"\xc3\xa9"]}'
    """
    body = _orjson_text(value)
    return _json_text(value).encode() if body is None else body


def _orjson_text(value: Any) -> bytes | None:
    try:
        body = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:
        return None
    for mark in _FLOAT_MARKS:
        if mark in body:
            return None
    return body


def _json_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """One way to write a value: sorted keys, no spaces, UTF-8 text.

    >>> canonical_json({"seat": 1, "cards": ["10D"]})
    '{"cards":["10D"],"seat":1}'
    """
    body = _orjson_text(value)
    return _json_text(value) if body is None else body.decode()


def event_hash(previous: str, record: Mapping[str, Any], data_bytes: bytes | None = None) -> str:
    """The hash of ``record`` chained after ``previous``.

    ``data_bytes``, when given, is ``canonical_bytes(record["data"])`` already
    written (see :func:`plain_data`): the record is then written around it.
    """
    if data_bytes is not None:
        kind, stamp, deal, seq, version = (record["type"], record["recorded_at"], record["deal"], record["seq"],
                                           record["v"])
        kind_bytes = _KIND_BYTES.get(kind) if type(kind) is str else None
        stamp_bytes = _written_stamp(stamp) if type(stamp) is str else None
        if (kind_bytes is not None and stamp_bytes is not None and type(deal) is int and type(seq) is int
                and type(version) is int):
            return hashlib.sha256(_QUICK % (previous.encode(), data_bytes, deal, stamp_bytes, seq, kind_bytes,
                                            version)).hexdigest()
    body = _record_bytes({name: record[name] for name in HASHED_FIELDS})
    return hashlib.sha256(previous.encode() + body).hexdigest()


@lru_cache(maxsize=256)
def _written_stamp(stamp: str) -> bytes | None:
    """A timestamp as the quick path writes it; None when JSON would escape any of its characters.
    (An append's records share one timestamp: it is checked once.)"""
    return stamp.encode() if _TIMESTAMP.fullmatch(stamp) else None


def plain_data(value: Any) -> tuple[Any, bytes | None]:
    """``value`` as the plain JSON values a store reads back (lists for tuples, str for str subclasses), and
    their canonical bytes when orjson wrote them as the json module would (None otherwise).

    >>> plain_data({"seat": 1, "cards": ("10D",)})
    ({'cards': ['10D'], 'seat': 1}, b'{"cards":["10D"],"seat":1}')
    >>> plain_data({"x": 0.5})
    ({'x': 0.5}, None)
    """
    try:
        text = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # integers past 64 bits, keys that are not text
        return json.loads(_json_text(value)), None
    plain = orjson.loads(text)
    for mark in _FLOAT_MARKS:
        if mark in text:
            return plain, None
    return plain, text


def _record_bytes(fields: Mapping[str, Any]) -> bytes:
    """``canonical_bytes(fields)`` for a record, whose timestamp's "." would send every record the slow way."""
    if (type(fields["seq"]) is int and type(fields["deal"]) is int and type(fields["v"]) is int
            and isinstance(fields["type"], str) and isinstance(fields["recorded_at"], str)
            and _orjson_text(fields["data"]) is not None):
        try:
            return orjson.dumps(fields, option=_ORJSON_OPTIONS)
        except TypeError:  # an integer past 64 bits
            pass
    return _json_text(fields).encode()


def chain_events(previous_hash: str, version: int, events: Iterable[Event],
                 recorded_at: str) -> list[dict[str, Any]]:
    """The records of ``events`` appended after ``version``: consecutive seqs, one timestamp, chained hashes.

    Each record's data is made of plain JSON values (no tuples, no str subclasses): the record handed back
    now is the one a replay reads from the table. The common record (its data written by orjson as the json
    module would, a known type, plain ints) is hashed the quick way, its canonical text spliced together
    around its data's (:func:`event_hash` with ``data_bytes``), in this loop: a bulk import
    chains tens of thousands of records a second. Any other goes through :func:`event_hash` whole.
    """
    stamp = _written_stamp(recorded_at)
    dumps, loads, sha256, quick, option, kinds = (orjson.dumps, orjson.loads, hashlib.sha256, _QUICK,
                                                   _ORJSON_OPTIONS, _KIND_BYTES)
    records: list[dict[str, Any]] = []
    seq = version
    for event in events:
        seq += 1
        kind, deal, v = event.type, event.deal, event.v
        try:
            text: bytes | None = dumps(event.data, option=option)
        except TypeError:  # integers past 64 bits, keys that are not text
            text = None
        if text is None or b"." in text or b"e+" in text or b"e-" in text or b"null" in text:  # _FLOAT_MARKS
            data, text = plain_data(event.data)
        else:
            data = loads(text)
        record: dict[str, Any] = {"seq": seq, "deal": deal, "type": kind, "data": data, "v": v,
                                  "recorded_at": recorded_at}
        kind_bytes = kinds.get(kind)
        if (text is not None and stamp is not None and kind_bytes is not None and type(deal) is int
                and type(v) is int):
            previous_hash = sha256(quick % (previous_hash.encode(), text, deal, stamp, seq, kind_bytes,
                                            v)).hexdigest()
        else:
            previous_hash = event_hash(previous_hash, record)
        record["hash"] = previous_hash
        records.append(record)
    return records


def verify_chain(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``{ok, first_bad_seq, checked}``: the first record whose seq or hash is not what the chain wants.

    Each record is first hashed the quick way: only ``data`` goes through a
    JSON writer, the other fields are spliced in (event types and timestamps
    are checked once each and kept written). A record the quick way does not
    confirm (an unknown type, a field that is not a plain int, orjson writing
    a float its own way, or a real change) is hashed again exactly
    (:func:`event_hash`) before it is called bad: the verdict is the exact one.
    """
    previous = GENESIS
    position = 0
    dumps, sha256, quick, option, kinds = orjson.dumps, hashlib.sha256, _QUICK, _ORJSON_OPTIONS, _KIND_BYTES
    stamps: dict[Any, bytes | None] = {}  # the records of an append share one timestamp: checked once
    for record in records:
        position += 1
        try:
            stored = record["hash"]
            try:
                stamp = record["recorded_at"]
                stamp_bytes = stamps.get(stamp, b"")
                if stamp_bytes == b"":
                    stamp_bytes = stamps[stamp] = _written_stamp(stamp) if type(stamp) is str else None
                deal, version = record["deal"], record["v"]
                # one expression: every step is a few tens of nanoseconds of a loop run a million times
                intact = (stamp_bytes is not None and type(deal) is int and type(version) is int
                          and sha256(quick % (previous.encode(), dumps(record["data"], option=option), deal,
                                              stamp_bytes, position, kinds[record["type"]], version)
                                     ).hexdigest() == stored
                          and record["seq"] == position)
            except (TypeError, ValueError, KeyError):  # unhashable or unwritable fields: the exact path decides
                intact = False
            if not intact:
                intact = record["seq"] == position and stored == event_hash(previous, record)
        except (KeyError, TypeError, ValueError):  # a hashed field is missing or is not JSON
            intact = False
        if not intact:
            return {"ok": False, "first_bad_seq": position, "checked": position - 1}
        previous = stored
    return {"ok": True, "first_bad_seq": None, "checked": position}


def sign_checkpoint(key: bytes, game_id: str, seq: int, head_hash: str) -> str:
    """An HMAC of a game's head hash: a fully re-chained log cannot reproduce it without the key."""
    message = f"{game_id}:{seq}:{head_hash}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def checkpoint_valid(key: bytes, game_id: str, seq: int, head_hash: str, signature: str) -> bool:
    return hmac.compare_digest(sign_checkpoint(key, game_id, seq, head_hash), signature)
