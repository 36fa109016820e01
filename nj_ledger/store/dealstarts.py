"""The state at the start of every deal of recently replayed games, so a replay folds one deal only.

A deal's replay needs the state just before its ``deal`` event. Without help
that is a fold of the whole log before it: a long game's late deal costs as
much as the game. The first replay of a game folds its log once and keeps a
copy of the state before each deal (copies share the state's immutable
fields, so a deal costs a few hundred bytes); later replays start from there,
and a game that grew is folded on from where the last fold stopped. Like the
state cache, this is only a shortcut: the log decides.

    >>> starts = DealStarts(capacity=2)
    >>> starts.known("g1")
    0
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..events import event_from_dict
from ..reducer import fold
from ..state import GameState
from .values import Record

Reader = Callable[[int, int], Iterable[Record]]  # records with after < seq <= upto


@dataclass
class _Game:
    version: int = 0  # seq of the last record folded
    state: GameState | None = None
    starts: dict[int, GameState] = field(default_factory=dict)  # deal number -> state before its deal event


def _kept(state: GameState) -> GameState:
    """A copy of the state before a deal, as kept: the previous deal's undo point one level deep only.

    Until the next deal an undo reaches back past the settlement, so the state before a deal still holds the
    chain of the previous deal's undo points (one state per play). The deal event drops it and a view only
    shows whether there is one: keeping the whole chain for every deal of a long game would cost far more
    than the deal itself.
    """
    start = state.copy()
    deal = start.deal
    if deal is not None and deal.undo_to is not None:
        point = deal.undo_to.copy()
        if point.deal is not None:
            point.deal.undo_to = None
        deal.undo_to = point
    return start


class DealStarts:
    """Deal-start states of the ``capacity`` games replayed most recently."""

    def __init__(self, capacity: int = 16) -> None:
        self.capacity = capacity
        self._games: OrderedDict[str, _Game] = OrderedDict()
        self._lock = threading.Lock()

    def known(self, game_id: str) -> int:
        """The seq up to which ``game_id`` has been folded (0 if never)."""
        with self._lock:
            game = self._games.get(game_id)
            return 0 if game is None else game.version

    def before(self, game_id: str, deal: int, upto: int, read: Reader, players: list[str] | None = None) -> GameState:
        """A state of its own (the caller may fold it) just before ``deal``'s first event.

        ``read(after, upto)`` gives the game's records; ``upto`` is the game's version; ``players``, the names its
        summary holds (states kept with other names are of a log a member's erasure redacted since: folded again).
        """
        with self._lock:
            game = self._games.get(game_id)
            if game is None or (players is not None and game.state is not None
                                and list(game.state.players) != players):
                game = self._games[game_id] = _Game()
            self._games.move_to_end(game_id)
            while len(self._games) > self.capacity:
                self._games.popitem(last=False)
            if deal not in game.starts and game.version < upto:
                state = game.state
                for record in read(game.version, upto):
                    if record["type"] == "deal" and state is not None:
                        game.starts[record["deal"]] = _kept(state)
                    state = fold(state, event_from_dict(record))
                game.state, game.version = state, upto
            start = game.starts.get(deal)
            if start is None:
                raise KeyError(f"game {game_id} has no deal {deal} up to seq {upto}")
            return start.copy()
