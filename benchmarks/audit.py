"""(f) Audit: verifying the hash chain of a stored game against raw ``hashlib`` over the same bytes.

Ours: :func:`nj_ledger.chain.verify_chain` over the records as the store reads
them (each record's canonical JSON written, hashed and compared). Raw: SHA-256
of the very bytes that chain hashes (previous hash + canonical JSON), prepared
in advance, with the hex digest taken as ours is.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from nj_ledger.chain import GENESIS, HASHED_FIELDS, canonical_bytes, verify_chain
from nj_ledger.store import Store

from .results import row


def chain(store: Store, club_id: str, game_id: str) -> dict[str, Any]:
    records = store.games.records(club_id, game_id)
    count = len(records)
    started = time.perf_counter()
    verdict = verify_chain(records)
    ours = count / (time.perf_counter() - started)
    if not verdict["ok"] or verdict["checked"] != count:
        raise RuntimeError(f"the stored chain does not verify: {verdict}")
    previous = GENESIS
    blobs = []
    for record in records:
        blobs.append(previous.encode() + canonical_bytes({name: record[name] for name in HASHED_FIELDS}))
        previous = record["hash"]
    del records
    sha256 = hashlib.sha256
    started = time.perf_counter()
    for blob in blobs:
        sha256(blob).hexdigest()
    raw = count / (time.perf_counter() - started)
    return row(f"audit: hash chain of {count} events", "events/s", ours, raw=raw, min_raw=0.5)
