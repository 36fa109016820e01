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
from typing import Any

import orjson

from .events import EVENT_TYPES

GENESIS = "0" * 64
HASHED_FIELDS = ("seq", "deal", "type", "data", "v", "recorded_at")
_EVENT_TYPES = frozenset(EVENT_TYPES)


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


def event_hash(previous: str, record: Mapping[str, Any]) -> str:
    """The hash of ``record`` chained after ``previous``."""
    body = _record_bytes({name: record[name] for name in HASHED_FIELDS})
    return hashlib.sha256(previous.encode() + body).hexdigest()


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
    checked = 0
    kinds: dict[str, bytes] = {}
    stamps: dict[str, bytes] = {}
    dumps, sha256 = orjson.dumps, hashlib.sha256
    for position, record in enumerate(records, start=1):
        try:
            stored = record["hash"]
            if record["seq"] != position:
                intact = False
            else:
                try:
                    kind, stamp, deal, version = record["type"], record["recorded_at"], record["deal"], record["v"]
                    kind_bytes = kinds.get(kind) or _kind_bytes(kinds, kind)
                    stamp_bytes = stamps.get(stamp) or _stamp_bytes(stamps, stamp)
                    quick = (kind_bytes is not None and stamp_bytes is not None and type(deal) is int
                             and type(version) is int and sha256(
                                 _QUICK % (previous.encode(), dumps(record["data"], option=_ORJSON_OPTIONS), deal,
                                           stamp_bytes, position, kind_bytes, version)
                             ).hexdigest() == stored)
                except (TypeError, ValueError):  # unhashable or unwritable fields: the exact path decides
                    quick = False
                intact = quick or stored == event_hash(previous, record)
        except (KeyError, TypeError, ValueError):  # a hashed field is missing or is not JSON
            intact = False
        if not intact:
            return {"ok": False, "first_bad_seq": position, "checked": checked}
        previous = stored
        checked += 1
    return {"ok": True, "first_bad_seq": None, "checked": checked}


_QUICK = b'%s{"data":%s,"deal":%d,"recorded_at":"%s","seq":%d,"type":"%s","v":%d}'
_TIMESTAMP = re.compile(r"[0-9T:.Z+-]*")


def _kind_bytes(kinds: dict[str, bytes], kind: Any) -> bytes | None:
    """An event type as the quick hash writes it; None for a type the chain does not know."""
    if kind not in _EVENT_TYPES:
        return None
    kinds[kind] = written = kind.encode()
    return written


def _stamp_bytes(stamps: dict[str, bytes], stamp: Any) -> bytes | None:
    """A timestamp as the quick hash writes it; None when JSON would escape any of its characters."""
    if not isinstance(stamp, str) or not _TIMESTAMP.fullmatch(stamp):
        return None
    stamps[stamp] = written = stamp.encode()
    return written


def sign_checkpoint(key: bytes, game_id: str, seq: int, head_hash: str) -> str:
    """An HMAC of a game's head hash: a fully re-chained log cannot reproduce it without the key."""
    message = f"{game_id}:{seq}:{head_hash}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def checkpoint_valid(key: bytes, game_id: str, seq: int, head_hash: str, signature: str) -> bool:
    return hmac.compare_digest(sign_checkpoint(key, game_id, seq, head_hash), signature)
