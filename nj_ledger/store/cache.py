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
from typing import Generic, TypeVar

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


class EveningStates(Remembered[tuple[str, EveningState]]):
    """The state of the most recently read evenings, each with the hash of the head it was folded to: the state
    of an evening at a version, used only while the evening is at that version and that head (a log restored or
    rewritten under it is folded again, and the state last folded replaces the one kept).

    >>> states = EveningStates(capacity=2)
    >>> states.put("e1", ("ab", EveningState(version=3)))
    >>> states.state_at("e1", 3, "ab").version, states.state_at("e1", 3, "cd"), states.state_at("e1", 4, "ab")
    (3, None, None)
    """

    def state_at(self, evening_id: str, version: int, head: str) -> EveningState | None:
        """The evening's state at ``version`` whose last entry's hash is ``head``, when it is known."""
        known = self.get(evening_id)
        if known is None or known[1].version != version or known[0] != head:
            return None
        return known[1]
