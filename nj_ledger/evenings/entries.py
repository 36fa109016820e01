"""The entries of an evening's log: the director's decisions as values, read through the upcasters every log shares
(:func:`nj_ledger.events.upcast`) and chained by the link every log shares (:func:`nj_ledger.chain.link`).

A :class:`LogEntry` is a frozen value, made once where the store reads a row (:func:`read_entry`); it reads as the
mapping the log shows (``seq``, ``type``, ``data``, ``by``, ``recorded_at`` and, once stored, ``hash``), so its
JSON is the row's.

    >>> item = read_entry(1, ADJUSTED, {"player": "Ana", "amount": 5, "reason": "late"}, {"role": "scorer"},
    ...                   "2026-11-26T20:00:00.000000Z", "0" * 64)
    >>> item.data["amount"], item["by"], item.v
    (5, {'role': 'scorer'}, 1)
    >>> first_bad_entry([item])
    1
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..chain import Redactions, canonical_bytes, first_unlinked, link
from ..events import upcast

CREATED = "evening_created"
PRESENCE = "presence_changed"
ROUND = "round_started"
CONFIRMED = "result_confirmed"
ADJUSTED = "score_adjusted"
VOIDED = "game_voided"
WITHDRAWN = "player_withdrawn"
AWARDED = "score_awarded"
FROZEN = "leaderboard_frozen"
REVEALED = "leaderboard_revealed"
CLOSED = "evening_closed"
MENDS = (ADJUSTED, VOIDED, WITHDRAWN, AWARDED)
ENTRY_TYPES = (CREATED, PRESENCE, ROUND, CONFIRMED, *MENDS, FROZEN, REVEALED, CLOSED)

ENTRY_VERSION = 1  # the schema version of an evening's entries: every entry stored so far is of this version
HASHED = ("seq", "type", "data", "by", "recorded_at")
_SHOWN = (*HASHED, "hash")


@dataclass(frozen=True, slots=True)
class LogEntry(Mapping[str, Any]):
    """One entry of an evening's log: its ``seq``, its ``type`` (one of :data:`ENTRY_TYPES`), its ``data`` (plain
    JSON values, at :data:`ENTRY_VERSION`), who made it (``by``), when (``recorded_at``), its ``hash`` once chained
    and its schema version ``v``. ``written`` keeps the data as it was stored when it was upcast from an older
    version: the chain is over what was written, never over an upcast."""

    seq: int
    type: str
    data: Mapping[str, Any]
    by: Mapping[str, Any] = field(default_factory=dict)
    recorded_at: str = ""
    hash: str | None = None
    v: int = ENTRY_VERSION
    written: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def __getitem__(self, name: str) -> Any:
        if name in _SHOWN and (name != "hash" or self.hash is not None):
            return getattr(self, name)
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(_SHOWN if self.hash is not None else HASHED)

    def __len__(self) -> int:
        return len(_SHOWN) if self.hash is not None else len(HASHED)

    def shown(self) -> dict[str, Any]:
        """The entry as the log shows it: ``dict(entry)``, made directly."""
        shown = {"seq": self.seq, "type": self.type, "data": self.data, "by": self.by, "recorded_at": self.recorded_at}
        if self.hash is not None:
            shown["hash"] = self.hash
        return shown

    def hashed(self) -> dict[str, Any]:
        """The fields its hash is taken over, as they were written."""
        data = self.data if self.written is None else self.written
        return {"seq": self.seq, "type": self.type, "data": data, "by": self.by, "recorded_at": self.recorded_at}


def entry(seq: int, type_: str, data: Mapping[str, Any], by: Mapping[str, Any] | None = None,
          recorded_at: str = "") -> dict[str, Any]:
    """An entry of an evening's log as the store writes its row (its hash added once chained)."""
    return {"seq": seq, "type": type_, "data": dict(data), "by": dict(by or {}), "recorded_at": recorded_at}


def read_entry(seq: int, type_: str, data: Mapping[str, Any], by: Mapping[str, Any], recorded_at: str,
               hash_: str | None = None, v: int = ENTRY_VERSION) -> LogEntry:
    """An entry as a value, its data upcast to :data:`ENTRY_VERSION` when it was written at an older version."""
    if v == ENTRY_VERSION:
        return LogEntry(seq, type_, data, by, recorded_at, hash_)
    current, version = upcast(type_, dict(data), v, ENTRY_VERSION)
    return LogEntry(seq, type_, current, by, recorded_at, hash_, version, written=data)


def as_entry(item: Mapping[str, Any]) -> LogEntry:
    """``item`` as a value: itself when it is one, else read from the mapping the store writes (:func:`entry`)."""
    if isinstance(item, LogEntry):
        return item
    return read_entry(item["seq"], item["type"], item["data"], item.get("by") or {}, item.get("recorded_at", ""),
                      item.get("hash"))


def entry_hash(previous: str, item: Mapping[str, Any]) -> str:
    """The hash chaining an entry of an evening's log to the one before it, by the link every log shares:
    SHA-256 over the previous hash and the entry's canonical JSON (its :data:`HASHED` fields)."""
    fields = item.hashed() if isinstance(item, LogEntry) else {name: item[name] for name in HASHED}
    return link(previous, canonical_bytes(fields))


def first_bad_entry(entries: Sequence[Mapping[str, Any]], redacted: Redactions | None = None) -> int | None:
    """The seq of the first entry whose hash or place in the chain is not right, or None when the log is sound (the
    entries a member's erasure ``redacted`` held to what it recorded: :func:`nj_ledger.chain.redaction_holds`)."""
    bad = first_unlinked(entries, entry_hash, redacted)
    return None if bad is None else int(bad["seq"])
