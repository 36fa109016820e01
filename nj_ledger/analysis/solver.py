"""The exact double-dummy solver: every hand known, every decision searched to the end of the deal.

Two values, both in chips each player holds once the deal is settled (the core's settlement, SPEC §3.3):

- :func:`solve` — **best play by all** (max^n): at every decision the player to act picks the move that leaves
  them the most chips at the end of the deal, knowing the others do the same. When several moves leave the
  player to act the same chips, the **first in the canonical order** is played: cards by rank, then suit
  (clubs, diamonds, hearts, spades; a card of no special kind before the special cards of its rank), a card
  announced before the same card laid silently, passing or stopping last. So a player indifferent between
  two moves keeps laying cards, low ones first; the answer does not depend on the order of the search.
- :func:`secure` — **what a player is sure of** against a coalition of all the others: the most chips the
  player can make certain of whatever the others do (a two-sided minimax, searched with alpha-beta).

Every decision counts: which card opens a run, continuing or stopping (where ``may_stop`` allows), which suit
of a rank (the honours, the bête, ``sequence: suit``), and announcing an honour or a hoc. Cards that differ
in nothing the rules look at (two plain 5s in rank play) are one move: their values are equal.

The search keeps a transposition table keyed by the position's essentials (``model.Table.key``): the hands,
the run, whose move and how, the passes, the boxes taken, and the balances only where a payment could be
held to a balance (``shortfall: end`` and a seat short of what it could pay): elsewhere a position's value is
its balances plus what the position alone decides. Forced moves (one legal move) are played without a
decision. :mod:`nj_ledger.analysis.reference` is the plain search (no table, no pruning) the tests hold this
one to.

Both searches run compiled where they can (:mod:`nj_ledger.analysis._maxn`, built from ``_maxn.c`` with the
package): the same searches move for move, fifty to a hundred times faster. :class:`PythonSearch` is the same
searches in Python, the reference the compiled ones are tested against, and what runs where no compiled module
is found (Pyodide) or where ``NJ_LEDGER_NATIVE=0`` says not to use it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..cards import Card
from ..state import GameState
from .convert import actions_of, position
from .model import ENDED, MIDDLE, NONE, P_BAL, P_MODE, P_TURN, Position, Table


def _compiled() -> ModuleType | None:
    try:
        from . import _maxn
    except ImportError:  # a source tree not built, or Pyodide: the search in Python
        return None
    return _maxn


_maxn = _compiled()

Hands = Sequence[Iterable[Card | str]] | Mapping[int, Iterable[Card | str]] | None
Values = tuple[int, ...]


@dataclass(frozen=True)
class Option:
    """One table action open to the player to act, and the chips each player ends the deal with after it
    under best play by all."""

    action: dict[str, Any]
    values: Values
    moves: tuple[int, ...]  # the solver's moves the action is made of (model.py)


@dataclass(frozen=True)
class Solution:
    """A position solved: the chips each player ends the deal with under best play by all (``values``), every
    table action open to the player to act with its values (``options``, canonical order), the best ones
    (``best``: the options worth the most to the player to act, the first of them the one best play plays),
    and the best line from here to the end of the deal as table actions (``line``)."""

    seat: int
    values: Values
    options: tuple[Option, ...]
    best: tuple[Option, ...]
    line: tuple[dict[str, Any], ...]
    nodes: int


class TooLarge(Exception):
    """The search met its budget of positions (``limit``) before it ended: no value is given."""


class PythonSearch:
    """One search over one deal's positions, its tables kept between calls (a position solved once is not
    searched again). ``limit``: the most decision positions it searches (None: no limit) before it gives up
    with :class:`TooLarge`. All in Python: the reference for the compiled best play by all (:class:`Search`)."""

    def __init__(self, table: Table, root: Position, limit: int | None = None) -> None:
        self.table = table
        self.capped = not table.uncapped(root)
        self.nodes = 0
        self.limit = limit if limit is not None else -1
        self._maxn: dict[tuple[Any, ...], Values] = {}
        self._secure: dict[int, dict[tuple[Any, ...], tuple[int, int, int]]] = {}

    def fits(self, table: Table, p: Position) -> bool:
        """Whether ``p`` (written against ``table``) may use this search's tables."""
        return table is self.table and (self.capped or table.uncapped(p))

    # --- best play by all ------------------------------------------------------------------------
    def values(self, p: Position) -> Values:
        """The chips each seat holds at the end of the deal under best play by all from ``p``."""
        table = self.table
        capped = self.capped
        memo = self._maxn
        while True:
            if p[P_MODE] == ENDED:
                final: Values = p[P_BAL]
                return final
            key = p if capped else p[:P_BAL]
            known = memo.get(key)
            if known is not None:
                return known if capped else tuple(b + g for b, g in zip(p[P_BAL], known, strict=True))
            moves = table.moves(p)
            if len(moves) > 1:
                break
            p = table.play(p, moves[0])  # a forced move: no decision, nothing kept
        bal = p[P_BAL]
        self.nodes += 1
        if self.nodes == self.limit:
            raise TooLarge(self.nodes)
        seat = p[P_TURN]
        play = table.play
        best: Values | None = None
        for move in moves:
            after = play(p, move)
            value = after[P_BAL] if after[P_MODE] == ENDED else PythonSearch.values(self, after)
            if best is None or value[seat] > best[seat]:
                best = value
        assert best is not None
        memo[key] = best if capped else tuple(v - b for v, b in zip(best, bal, strict=True))
        return best

    def best_move(self, p: Position) -> int:
        """The move best play plays at ``p`` (the first of the moves worth the most to the player to act)."""
        moves = self.table.moves(p)
        seat = p[P_TURN]
        best, chosen = None, moves[0]
        for move in moves:
            value = self.values(self.table.play(p, move))
            if best is None or value[seat] > best:
                best, chosen = value[seat], move
        return chosen

    def line(self, p: Position) -> list[int]:
        """Every move of best play by all from ``p`` to the end of the deal (forced ones included)."""
        moves: list[int] = []
        while p[P_MODE] != ENDED:
            move = self.best_move(p)
            moves.append(move)
            p = self.table.play(p, move)
        return moves

    # --- what a seat is sure of --------------------------------------------------------------------
    def secure(self, p: Position, seat: int) -> int:
        """The chips ``seat`` can make sure of at the end of the deal from ``p``, whatever the others do."""
        low = -(1 << 62)
        return self._alphabeta(p, seat, low, -low, self._secure.setdefault(seat, {}))

    def _alphabeta(self, p: Position, seat: int, alpha: int, beta: int,
                   tt: dict[tuple[Any, ...], tuple[int, int, int]]) -> int:
        table = self.table
        capped = self.capped
        while True:
            if p[P_MODE] == ENDED:
                chips: int = p[P_BAL][seat]
                return chips
            key = p if capped else p[:P_BAL]
            entry = tt.get(key)
            if entry is not None:
                break
            moves = table.moves(p)
            if len(moves) > 1:
                break
            p = table.play(p, moves[0])  # a forced move
        base = 0 if capped else p[P_BAL][seat]
        lower, upper = -(1 << 62), 1 << 62
        if entry is not None:
            lower, upper = entry[0] + base, entry[1] + base
            if lower >= beta or lower == upper:
                return lower
            if upper <= alpha:
                return upper
            alpha, beta = max(alpha, lower), min(beta, upper)
            moves = table.moves(p)
            if entry[2] in moves:  # the move that decided last time first: it most often cuts again
                moves.remove(entry[2])
                moves.insert(0, entry[2])
        self.nodes += 1
        if self.nodes == self.limit:
            raise TooLarge(self.nodes)
        start_alpha, start_beta = alpha, beta
        play = table.play
        chosen = moves[0]
        if p[P_TURN] == seat:
            value = -(1 << 62)
            for move in moves:
                found = self._alphabeta(play(p, move), seat, alpha, beta, tt)
                if found > value:
                    value, chosen = found, move
                if value >= beta:
                    break
                alpha = max(alpha, value)
        else:
            value = 1 << 62
            for move in moves:
                found = self._alphabeta(play(p, move), seat, alpha, beta, tt)
                if found < value:
                    value, chosen = found, move
                if value <= alpha:
                    break
                beta = min(beta, value)
        if value <= start_alpha:
            upper = value
        elif value >= start_beta:
            lower = value
        else:
            lower = upper = value
        tt[key] = (lower - base, upper - base, chosen)
        return value


def native() -> bool:
    """Whether best play by all runs compiled: the module is built and ``NJ_LEDGER_NATIVE`` is not ``0``."""
    return _maxn is not None and os.environ.get("NJ_LEDGER_NATIVE", "1") != "0"


def compiled_table(table: Table) -> tuple[Any, ...]:
    """What the compiled search reads of ``table`` (``_maxn.c``'s ``table_of``, in its order)."""
    return (table.n, table.by_suit, table.may_stop, table.skip, table.first_passer, table.lowest, table.opened,
            table.wild, ("none", "double", "sweep").index(table.go_reward), table.track_turns, table.track_laid,
            table.cards_payment, ("none", "double", "face").index(table.bete), table.negative, table.wild_double,
            table.point_value, table.hoc, table.boxes, table.face, tuple(table.honour_index), tuple(table.rank),
            tuple(table.suit), tuple(table.points), tuple(table.ends), tuple(table.box_of), tuple(table.hoc_card),
            tuple(table.announceable), tuple(table.special))


class Search(PythonSearch):
    """:class:`PythonSearch` compiled where it can be (:func:`native`): best play by all and what a seat is sure
    of, each with its own tables, both counting their positions in ``nodes`` against the one ``limit``."""

    def __init__(self, table: Table, root: Position, limit: int | None = None) -> None:
        super().__init__(table, root, limit)
        self._native: Any = None
        if native() and _maxn is not None:
            try:
                self._native = _maxn.Search(compiled_table(table), self.capped, self.limit)
            except (ValueError, OverflowError):  # a table past what the compiled search takes (more than 8 seats)
                self._native = None

    def values(self, p: Position) -> Values:
        compiled = self._native
        if compiled is None or p[P_MODE] == ENDED:
            return super().values(p)
        compiled.nodes, compiled.limit = self.nodes, self.limit
        try:
            found: Values | None = compiled.values(p)
        except OverflowError:  # balances past what the compiled search keeps: this position in Python
            return super().values(p)
        finally:
            self.nodes = compiled.nodes
        if found is None:
            raise TooLarge(self.nodes)
        return found

    def secure(self, p: Position, seat: int) -> int:
        compiled = self._native
        if compiled is None or p[P_MODE] == ENDED:
            return super().secure(p, seat)
        compiled.nodes, compiled.limit = self.nodes, self.limit
        try:
            found: int | None = compiled.secure(p, seat)
        except OverflowError:
            return super().secure(p, seat)
        finally:
            self.nodes = compiled.nodes
        if found is None:
            raise TooLarge(self.nodes)
        return found


# --- the public API -------------------------------------------------------------------------------------
def _turn_options(table: Table, p: Position) -> list[tuple[list[int], Position]]:
    """Every table action open at ``p`` as the moves it is made of and the position after it: one seat's
    cards until it stops, goes out, or ends the run (the turn then goes on with a new action), or a pass."""
    out: list[tuple[list[int], Position]] = []

    def walk(q: Position, moves: list[int]) -> None:
        for move in table.moves(q):
            after = table.play(q, move)
            made = [*moves, move]
            if move == NONE or after[P_MODE] != MIDDLE:
                out.append((made, after))
            else:
                walk(after, made)

    walk(p, [])
    return out


def solve(state: GameState, hands: Hands = None, *, search: Search | None = None, limit: int | None = None
          ) -> Solution:
    """Solve the deal being played in ``state`` from where it stands, every hand known (dealt with the deal, or
    given in ``hands``: the cards each seat still holds, by seat). ``search`` reuses the tables of an earlier
    call on the same deal (see :func:`searcher`); ``limit`` bounds the positions searched (:class:`TooLarge`)."""
    table, root, held = position(state, hands, None if search is None else search.table)
    search = search if search is not None and search.fits(table, root) else Search(table, root, limit)
    seat = root[P_TURN]
    options = []
    for moves, after in _turn_options(table, root):
        action = actions_of(table, root, held, moves)
        values = search.values(after)
        options.append(Option(action[0] if action else {"type": "pass", "seat": seat}, values, tuple(moves)))
    top = max(option.values[seat] for option in options)
    best = tuple(option for option in options if option.values[seat] == top)
    line = actions_of(table, root, held, search.line(root))
    return Solution(seat, best[0].values, tuple(options), best, tuple(line), search.nodes)


def secure(state: GameState, seat: int, hands: Hands = None, *, search: Search | None = None,
           limit: int | None = None) -> int:
    """The chips ``seat`` is sure to hold at the end of the deal being played in ``state`` against a coalition of
    all the other players, every hand known (as in :func:`solve`)."""
    table, root, _ = position(state, hands, None if search is None else search.table)
    search = search if search is not None and search.fits(table, root) else Search(table, root, limit)
    return search.secure(root, seat)


def searcher(state: GameState, hands: Hands = None, limit: int | None = None) -> Search:
    """A search for the deal of ``state``, to share between calls on later positions of the same deal (their
    transposition tables carry over: the positions of a line are searched once)."""
    table, root, _ = position(state, hands)
    return Search(table, root, limit)


__all__ = ["Option", "PythonSearch", "Search", "Solution", "TooLarge", "searcher", "secure", "solve"]
