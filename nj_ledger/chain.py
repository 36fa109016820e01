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

GENESIS = "0" * 64
HASHED_FIELDS = ("seq", "deal", "type", "data", "v", "recorded_at")


def canonical_json(value: Any) -> str:
    """One way to write a value: sorted keys, no spaces, UTF-8 text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def event_hash(previous: str, record: Mapping[str, Any]) -> str:
    """The hash of ``record`` chained after ``previous``."""
    body = canonical_json({name: record[name] for name in HASHED_FIELDS})
    return hashlib.sha256((previous + body).encode()).hexdigest()


def verify_chain(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``{ok, first_bad_seq, checked}``: the first record whose seq or hash is not what the chain wants."""
    previous = GENESIS
    checked = 0
    for position, record in enumerate(records, start=1):
        if record.get("seq") != position or record.get("hash") != event_hash(previous, record):
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
