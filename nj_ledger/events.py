"""Events of a game's log (SPEC §4), and the upcasting every log's entries are read through.

An :class:`Event` is immutable: its ``type``, its ``data`` (plain JSON values),
the ``deal`` it belongs to (0 before the first deal) and its schema version
``v``. The store adds ``seq``, ``recorded_at`` and ``hash``.

*Table actions* are what a scorer submits; *ledger events* are derived from them
by the reducer and appended in the same batch.

One registry of upcasters serves every log, keyed by the entry's type and
version: a game's events, read to the game's :data:`SCHEMA_VERSION`, and an
evening's decisions (:mod:`nj_ledger.evenings.entries`), read to theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

# Table actions (submitted) and ledger events (derived). ``pass`` is both: an explicit
# pass is a table action, an inferred one (``"inferred": true``) is derived.
TABLE_ACTIONS = ("deal", "play", "pass", "reveal", "undo", "adjust", "end")
LEDGER_EVENTS = ("game_started", "pass", "transfer", "deal_ended", "game_ended")
EVENT_TYPES = tuple(dict.fromkeys(TABLE_ACTIONS + LEDGER_EVENTS))
TransferReason = Literal["ante", "take", "payment", "grand_opera", "bete", "hoc", "adjust", "undo"]
EndReason = Literal["agreed", "shortfall", "max_deals", "cannot_ante"]  # why a game ended (``game_ended``)

SCHEMA_VERSION = 1


class Event(NamedTuple):
    """One event: immutable, a named tuple (an engine makes one for every event it decides, and a replay one for
    every record it reads: a tuple is made in half the time of a frozen dataclass)."""

    type: str
    data: Mapping[str, Any]
    deal: int = 0
    v: int = SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "deal": self.deal, "data": self.data, "v": self.v}

    @property
    def is_table_action(self) -> bool:
        """Whether a scorer submitted this event (as opposed to the reducer deriving it)."""
        if self.type == "pass":
            return not self.data.get("inferred", False)
        return self.type in TABLE_ACTIONS


# --- upcasting -------------------------------------------------------------------------------
# An upcaster turns the data of (type, v) into the data of version v + 1. Stored rows are
# never rewritten: old versions are upcast each time they are read. The types of every log
# share the registry (a game's event types and an evening's entry types are distinct).
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def register_upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register the function that upcasts ``event_type`` data from ``from_version`` (a game's event type or an
    evening's entry type)."""

    def register(function: Upcaster) -> Upcaster:
        UPCASTERS[(event_type, from_version)] = function
        return function

    return register


def upcast(event_type: str, data: dict[str, Any], v: int, current: int | None = None) -> tuple[dict[str, Any], int]:
    """Chain upcasters until the data is at the ``current`` schema version of its log (a game's by default)."""
    current = SCHEMA_VERSION if current is None else current
    while v < current:
        step = UPCASTERS.get((event_type, v))
        if step is None:
            raise ValueError(f"no upcaster for {event_type} v{v}")
        data = step(dict(data))
        v += 1
    return data, v


def event_from_dict(record: Mapping[str, Any]) -> Event:
    """Read an event (stored or exported), upcasting old schema versions."""
    v = int(record.get("v", SCHEMA_VERSION))
    data = record["data"]
    if v != SCHEMA_VERSION:
        data, v = upcast(record["type"], data, v)
    return Event(record["type"], data, int(record.get("deal", 0)), v)
