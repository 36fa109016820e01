"""Turning events into stored records and back: seq, timestamp and the hash chain.

    >>> from nj_ledger import new_game
    >>> from datetime import UTC, datetime
    >>> started = new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60)
    >>> [record] = chain_records(GENESIS, 0, [started], datetime(2026, 1, 1, tzinfo=UTC))
    >>> record["seq"], record["recorded_at"], verify_chain([record])["ok"]
    (1, '2026-01-01T00:00:00.000000Z', True)
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from ..chain import GENESIS, Chained, chain_events, verify_chain
from ..events import Event, event_from_dict
from .base import iso
from .values import Record

__all__ = ["GENESIS", "chain_records", "event_of", "verify_chain"]


def chain_records(previous_hash: str, version: int, events: Iterable[Event], moment: datetime) -> Chained:
    """The records of ``events`` appended after ``version``: consecutive seqs, one timestamp, chained hashes
    (:func:`nj_ledger.chain.chain_events`)."""
    return chain_events(previous_hash, version, events, iso(moment))


def event_of(record: Record) -> Event:
    return event_from_dict(record)
