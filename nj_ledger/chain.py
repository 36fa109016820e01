"""The hash chain over a game's log, and every log's link.

``hash = SHA-256(previous hash + canonical JSON of the event)``, where the event
is ``{seq, deal, type, data, v, recorded_at}``. An edited, deleted or reordered
row breaks the chain at the first bad ``seq``. Every log is chained by the same
link (:func:`link`) and checked by the same walk (:func:`first_unlinked`): a
game's over its events' fields, an evening's over its decisions'
(:mod:`nj_ledger.evenings.entries`).

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
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson

from .events import EVENT_TYPES, Event

GENESIS = "0" * 64
HASHED_FIELDS = ("seq", "deal", "type", "data", "v", "recorded_at")

_ORJSON_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def canonical_bytes(value: Any) -> bytes:
    """The definition: the json module's text of ``value`` with sorted keys, no spaces, UTF-8 kept (what the
    chain hashes, what receipts sign).

    orjson writes the common case (the events' ints, texts, lists and objects)
    byte for byte as the json module does, ten times faster; anything it
    writes differently or refuses (floats, NaN, integers past 64 bits, keys
    that are not text) is written by the json module.

    >>> canonical_bytes({"b": [1, "é"], "a": None})
    b'{"a":null,"b":[1,"\\xc3\\xa9"]}'
    """
    return _orjson_bytes(value) or _json_text(value).encode()


def _orjson_bytes(value: Any) -> bytes | None:
    """orjson's text of ``value`` when it is the json module's, byte for byte (None otherwise)."""
    try:
        body = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # integers past 64 bits, keys that are not text, lone surrogates
        return None
    # orjson writes floats (1e-7, 0.00001) and NaN (null) unlike the json module: a text holding any of these
    # marks (which some texts also hold) is written again by the json module. (Looked for in its Latin-1
    # reading, where every byte is one character: the marks are ASCII, which no other byte of UTF-8 is. A
    # one-character search is a memchr, a longer one some three times dearer: the longer marks are looked for
    # only in a text holding their rarest character.)
    marked = body.decode("latin-1")
    if ("." in marked or ("+" in marked and "e+" in marked) or ("-" in marked and "e-" in marked)
            or ("l" in marked and "null" in marked)):
        return None
    return body


def canonical_json(value: Any) -> str:
    """:func:`canonical_bytes` as text.

    >>> canonical_json({"seat": 1, "cards": ["10D"]})
    '{"cards":["10D"],"seat":1}'
    """
    try:
        return canonical_bytes(value).decode()
    except UnicodeEncodeError:  # a lone surrogate: a text with no UTF-8 bytes
        return _json_text(value)


def _json_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --- the one fast path: a record written around its data --------------------------------------------------
_KIND_BYTES = {kind: kind.encode() for kind in EVENT_TYPES}
_RECORD = b'{"data":%s,"deal":%d,"recorded_at":"%s","seq":%d,"type":"%s","v":%d}'
_TIMESTAMP = re.compile(r"[0-9T:.Z+-]*")
_STAMPS: dict[str, bytes] = {}  # timestamps JSON writes unescaped, as bytes (an append's records share one)


def record_bytes(record: Mapping[str, Any], data_bytes: bytes | None = None) -> bytes:
    """``canonical_bytes`` of a record's hashed fields: what its hash is taken over.

    Written whole, every record would go the json module's slow way (its
    timestamp holds a "."), so the common record is written around its data's
    canonical bytes (``data_bytes`` when they are already written): its other
    fields are ints, a known event type and a timestamp that JSON writes as
    they are, in the order of their sorted keys. Any other record is written
    whole by :func:`canonical_bytes`.

    >>> record = {"seq": 2, "deal": 1, "type": "deal", "data": {"b": 1.5, "a": "é"}, "v": 1,
    ...           "recorded_at": "2026-01-01T00:00:00.000000Z"}
    >>> record_bytes(record) == canonical_bytes({name: record[name] for name in HASHED_FIELDS})
    True
    """
    seq, deal, v = record["seq"], record["deal"], record["v"]
    try:
        kind, stamp = _KIND_BYTES[record["type"]], _STAMPS[record["recorded_at"]]
    except (KeyError, TypeError):  # a timestamp not met lately, or a type or a timestamp JSON writes otherwise
        kind = _KIND_BYTES.get(record["type"], b"") if isinstance(record["type"], str) else b""
        stamp = _written_stamp(record["recorded_at"])
    # ints that JSON writes as "%d" does (not True or False: "true", "false")
    if (kind and stamp and isinstance(seq, int) and seq is not True and seq is not False
            and isinstance(deal, int) and deal is not True and deal is not False
            and isinstance(v, int) and v is not True and v is not False):
        data = data_bytes or _orjson_bytes(record["data"]) or _json_text(record["data"]).encode()  # canonical
        return _RECORD % (data, deal, stamp, seq, kind, v)
    return canonical_bytes({name: record[name] for name in HASHED_FIELDS})


def _written_stamp(stamp: Any) -> bytes:
    """A timestamp's bytes when it is a text that JSON writes unescaped (kept for the next records), else b""."""
    if not isinstance(stamp, str) or not _TIMESTAMP.fullmatch(stamp):
        return b""
    if len(_STAMPS) >= 256:
        _STAMPS.clear()
    written = _STAMPS[stamp] = stamp.encode()
    return written


def link(previous: str, body: bytes) -> str:
    """The link of every log's chain: SHA-256 over the previous hash's text and a record's canonical bytes.

    >>> link(GENESIS, b"{}") == hashlib.sha256(GENESIS.encode() + b"{}").hexdigest()
    True
    """
    return hashlib.sha256(previous.encode() + body).hexdigest()


Redactions = Mapping[int, Mapping[str, Any]]
"""The records of a log whose personal content an erasure redacted, by seq: each one's ``previous`` hash and its
``hash`` as the chain holds them, and ``redacted``, the link of the record as the erasure left it
(:mod:`nj_ledger.store.erasures`)."""


def redaction_holds(redaction: Mapping[str, Any], previous: str, stored: str, now: str) -> bool:
    """Whether a redacted record still stands in its chain: it follows ``previous`` and keeps its ``stored`` hash,
    as the erasure recorded them, and its content is what the erasure left (``now``: its link after
    ``previous``). Its hash is no longer recomputed from its content: the erasure, itself chained and signed,
    vouches for the link.

    >>> holds = {"previous": "a", "hash": "b", "redacted": "c"}
    >>> redaction_holds(holds, "a", "b", "c"), redaction_holds(holds, "a", "b", "d")
    (True, False)
    """
    return (hmac.compare_digest(redaction["previous"], previous) and hmac.compare_digest(redaction["hash"], stored)
            and hmac.compare_digest(redaction["redacted"], now))


def first_unlinked(records: Iterable[Mapping[str, Any]], hash_of: Callable[[str, Mapping[str, Any]], str],
                   redacted: Redactions | None = None) -> Mapping[str, Any] | None:
    """The first record whose ``seq`` is not its place in the log or whose ``hash`` is not ``hash_of(previous
    hash, record)`` (compared in constant time), None when the chain holds. A record an erasure redacted
    (``redacted``) is held to what the erasure recorded (:func:`redaction_holds`).

    >>> records = [{"seq": 1, "hash": link(GENESIS, b"1")}, {"seq": 2, "hash": "0" * 64}]
    >>> first_unlinked(records, lambda previous, record: link(previous, str(record["seq"]).encode()))["seq"]
    2
    """
    previous = GENESIS
    for number, record in enumerate(records, 1):
        redaction = redacted.get(number) if redacted else None
        if record["seq"] != number:
            return record
        if redaction is None:
            if not hmac.compare_digest(record["hash"], hash_of(previous, record)):
                return record
        elif not redaction_holds(redaction, previous, record["hash"], hash_of(previous, record)):
            return record
        previous = record["hash"]
    return None


def event_hash(previous: str, record: Mapping[str, Any], data_bytes: bytes | None = None) -> str:
    """The hash of ``record`` chained after ``previous`` (``data_bytes``: its data's canonical bytes, if
    already written)."""
    return link(previous, record_bytes(record, data_bytes))


def plain_data(value: Any) -> tuple[Any, bytes]:
    """``value`` as the plain JSON values a store reads back (lists for tuples, str for str subclasses), and
    their canonical bytes.

    >>> plain_data({"seat": 1, "cards": ("10D",)})
    ({'cards': ['10D'], 'seat': 1}, b'{"cards":["10D"],"seat":1}')
    """
    written = _orjson_bytes(value)
    if written is None:  # read back by the json module too: orjson reads integers past 64 bits as floats
        written = _json_text(value).encode()
        return json.loads(written), written
    return orjson.loads(written), written


class Chained(list[dict[str, Any]]):
    """The records :func:`chain_events` made, with the canonical text of each one's data (``data_texts``, in
    the same order): the text its hash was taken over, which is what a store writes for it."""

    data_texts: list[str]


def chain_events(previous_hash: str, version: int, events: Iterable[Event], recorded_at: str) -> Chained:
    """The records of ``events`` appended after ``version``: consecutive seqs, one timestamp, chained hashes.

    A record's data is its event's: the core's events hold plain JSON values (objects with text keys, lists,
    texts, whole numbers, booleans), what a replay reads back from the table, and an event's data is never
    changed. Data the fast path does not write (a float, a null, an integer past 64 bits) is made plain by
    :func:`plain_data`. The data's canonical bytes, written once, are the ones its hash is taken over
    (:func:`record_bytes`), and their text is kept beside the records (:attr:`Chained.data_texts`).
    """
    records = Chained()
    records.data_texts = texts = []
    seq = version
    sha256, written = hashlib.sha256, record_bytes  # what event_hash does, in a loop run for every event
    for event in events:
        seq += 1
        data = event.data
        data_bytes = _orjson_bytes(data)
        if data_bytes is None:
            data, data_bytes = plain_data(data)
        record: dict[str, Any] = {"seq": seq, "deal": event.deal, "type": event.type, "data": data, "v": event.v,
                                  "recorded_at": recorded_at}
        record["hash"] = previous_hash = sha256(previous_hash.encode() + written(record, data_bytes)).hexdigest()
        records.append(record)
        texts.append(data_bytes.decode())
    return records


def verify_chain(records: Iterable[Mapping[str, Any]], redacted: Redactions | None = None) -> dict[str, Any]:
    """``{ok, first_bad_seq, checked}``: the first record whose seq or hash is not what the chain wants
    (each record hashed as :func:`event_hash` hashes it: the verdict is the exact one). A record an erasure
    redacted (``redacted``) is held to what the erasure recorded (:func:`redaction_holds`)."""
    previous = GENESIS
    position = 0
    sha256, written = hashlib.sha256, record_bytes  # what event_hash does, in a loop run a million times
    for record in records:
        position += 1
        try:
            stored = record["hash"]
            now = sha256(previous.encode() + written(record)).hexdigest()
            redaction = redacted.get(position) if redacted else None
            intact = record["seq"] == position and (
                now == stored if redaction is None else redaction_holds(redaction, previous, stored, now))
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
