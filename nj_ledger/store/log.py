"""Turning events into stored records and back: seq, timestamp and the hash chain.

    >>> from nj_ledger import new_game
    >>> from datetime import UTC, datetime
    >>> started = new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60)
    >>> [record] = chain_records(GENESIS, 0, [started], datetime(2026, 1, 1, tzinfo=UTC))
    >>> record["seq"], record["recorded_at"], verify_chain([record])["ok"]
    (1, '2026-01-01T00:00:00.000000Z', True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, select

from ..chain import GENESIS, chain_events, verify_chain
from ..events import Event, event_from_dict
from .base import iso
from .models import EventRecord
from .values import Record

__all__ = ["GENESIS", "RECORD_COLUMNS", "chain_records", "event_of", "record_of", "records_query", "verify_chain"]

RECORD_COLUMNS = (
    EventRecord.seq, EventRecord.deal, EventRecord.type, EventRecord.data, EventRecord.v,
    EventRecord.recorded_at, EventRecord.hash,
)


def chain_records(previous_hash: str, version: int, events: Iterable[Event], moment: datetime) -> list[Record]:
    """The records of ``events`` appended after ``version``: consecutive seqs, one timestamp, chained hashes
    (:func:`nj_ledger.chain.chain_events`)."""
    return chain_events(previous_hash, version, events, iso(moment))


def record_of(row: Sequence[Any]) -> Record:
    """A stored record from a row of :data:`RECORD_COLUMNS`."""
    seq, deal, kind, data, v, recorded_at, digest = row
    return {"seq": seq, "deal": deal, "type": kind, "data": data, "v": v, "recorded_at": recorded_at,
            "hash": digest}


def event_of(record: Record) -> Event:
    return event_from_dict(record)


def records_query(game_id: str, after: int = 0, upto: int | None = None) -> Select[Any]:
    """Records of a game with ``after < seq <= upto``, in order."""
    query = select(*RECORD_COLUMNS).where(EventRecord.game_id == game_id, EventRecord.seq > after)
    if upto is not None:
        query = query.where(EventRecord.seq <= upto)
    return query.order_by(EventRecord.seq)
