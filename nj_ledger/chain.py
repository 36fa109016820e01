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
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

GENESIS = "0" * 64
HASHED_FIELDS = ("seq", "deal", "type", "data", "v", "recorded_at")


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
    """``{ok, first_bad_seq, checked}``: the first record whose seq or hash is not what the chain wants."""
    previous = GENESIS
    checked = 0
    for position, record in enumerate(records, start=1):
        try:
            intact = record.get("seq") == position and record.get("hash") == event_hash(previous, record)
        except (KeyError, TypeError, ValueError):  # a hashed field is missing or is not JSON
            intact = False
        if not intact:
            return {"ok": False, "first_bad_seq": position, "checked": checked}
        previous = record["hash"]
        checked += 1
    return {"ok": True, "first_bad_seq": None, "checked": checked}


def sign_checkpoint(key: bytes, game_id: str, seq: int, head_hash: str) -> str:
    """An HMAC of a game's head hash: a fully re-chained log cannot reproduce it without the key."""
    message = f"{game_id}:{seq}:{head_hash}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def checkpoint_valid(key: bytes, game_id: str, seq: int, head_hash: str, signature: str) -> bool:
    return hmac.compare_digest(sign_checkpoint(key, game_id, seq, head_hash), signature)
