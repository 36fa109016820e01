"""A small in-process cache of each game's latest state, so an append does not replay the whole log.

The cache is only a shortcut: an entry is used when its version is the game's
version (or older: the missing events are folded on top of a copy), and the
log decides otherwise. States are never mutated once cached (the core's
``execute`` and ``apply`` work on copies).

    >>> cache = StateCache(capacity=2)
    >>> cache.get("g1") is None
    True
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..state import GameState


class StateCache:
    """The latest known state of the most recently used games (least recently used evicted)."""

    def __init__(self, capacity: int = 512) -> None:
        self.capacity = capacity
        self._states: OrderedDict[str, GameState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> GameState | None:
        with self._lock:
            state = self._states.get(game_id)
            if state is not None:
                self._states.move_to_end(game_id)
            return state

    def put(self, game_id: str, state: GameState) -> None:
        """Remember ``state`` unless a newer one is already known."""
        with self._lock:
            known = self._states.get(game_id)
            if known is not None and known.version > state.version:
                return
            self._states[game_id] = state
            self._states.move_to_end(game_id)
            while len(self._states) > self.capacity:
                self._states.popitem(last=False)

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._states.pop(game_id, None)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()
