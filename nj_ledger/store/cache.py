"""Small in-process caches: each game's latest state, so an append does not replay the whole log, the head
each game is known to have had signed, so an append does not check its signature again, and each evening's
state, so a read of an evening that has not moved does not fold its log again.

A cache is only a shortcut: a state is used when its version is the game's
version (or older: the missing events are folded on top of a copy), a head when
it is the game's head, and the database decides otherwise. States are never
mutated once cached (the core's ``execute`` and ``apply`` work on copies).

    >>> cache = StateCache(capacity=2)
    >>> cache.get("g1") is None
    True
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from ..evenings import EveningState
from ..state import GameState

T = TypeVar("T")


class Remembered(Generic[T]):
    """A value per game for the most recently used games (least recently used forgotten)."""

    def __init__(self, capacity: int = 512) -> None:
        self.capacity = capacity
        self._values: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> T | None:
        with self._lock:
            value = self._values.get(game_id)
            if value is not None:
                self._values.move_to_end(game_id)
            return value

    def put(self, game_id: str, value: T) -> None:
        with self._lock:
            if self._keeps(self._values.get(game_id), value):
                return
            self._values[game_id] = value
            self._values.move_to_end(game_id)
            while len(self._values) > self.capacity:
                self._values.popitem(last=False)

    def _keeps(self, known: T | None, value: T) -> bool:
        """Whether the value ``known`` stays rather than ``value``."""
        return False

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._values.pop(game_id, None)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()


class StateCache(Remembered[GameState]):
    """The latest known state of the most recently used games: a newer state is never replaced by an older."""

    def _keeps(self, known: GameState | None, value: GameState) -> bool:
        return known is not None and known.version > value.version


class EveningStates(Remembered[tuple[tuple[Any, ...], EveningState]]):
    """The state of the most recently read evenings, each with the entries it was folded from: used only for a
    read of the very same entries (a log moved on, restored, or changed under it, its hashes kept or not, is
    folded again, and the state last folded replaces the one kept). The entries are read at every read anyway:
    what is saved is the fold.

    >>> states = EveningStates(capacity=2)
    >>> states.put("e1", (("a", "b"), EveningState(version=2)))
    >>> states.state_of("e1", ["a", "b"]).version, states.state_of("e1", ["a", "c"]), states.state_of("e1", ["a"])
    (2, None, None)
    """

    def state_of(self, evening_id: str, entries: Sequence[Any]) -> EveningState | None:
        """The evening's state folded from exactly ``entries``, when it is known."""
        known = self.get(evening_id)
        if known is None or known[0] != tuple(entries):
            return None
        return known[1]
