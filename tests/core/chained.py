"""Stored records for tests: events numbered, time-stamped and hash-chained as the store writes them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from nj_ledger.chain import GENESIS, event_hash
from nj_ledger.events import Event

START = datetime(2026, 1, 18, 14, 0, tzinfo=UTC)


def chained_records(events: Sequence[Event], start: datetime = START) -> list[dict[str, Any]]:
    """``{seq, deal, type, data, v, recorded_at, hash}`` for each event, one second apart."""
    records: list[dict[str, Any]] = []
    previous = GENESIS
    for seq, event in enumerate(events, start=1):
        stamp = (start + timedelta(seconds=seq)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        record: dict[str, Any] = {"seq": seq, **event.to_dict(), "recorded_at": stamp}
        record["hash"] = previous = event_hash(previous, record)
        records.append(record)
    return records
