"""What each decision of a deal cost: the deal's table actions replayed against the solver.

For every decision of the deal (a seat laying cards — a play going on after a King or a hoc counts as a new
decision, as the solver sees it — or passing), :func:`review` gives the options worth the most to the seat
that decided, the option it chose, and the chips that choice lost it at the end of the deal under best play
by all from there on. A decision with one legal option is *forced* and costs nothing.

**Marks**, in the spirit of a chess engine's, by the chips lost against the board's stake (``ante_total``:
the chips one player stakes on the board for a deal, 15 in the classic game):

- ``best``: nothing lost;
- ``inaccuracy``: less than a third of the stake lost (1 to 4 chips in the classic game);
- ``mistake``: a third of the stake or more, less than the whole stake (5 to 14 chips);
- ``blunder``: the whole stake or more (15 chips or more).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..bounds import MAX_DOCUMENT_EVENTS
from ..cards import Card, parse_cards
from ..decide import execute
from ..state import PLAYING, GameState
from .budget import Budget
from .convert import position
from .decisions import decisions_of
from .fair import Watch, with_hands
from .model import CALL, ENDED, MIDDLE, NONE, P_BAL, P_MODE, PLAIN, Position, Table, card_index
from .solver import Hands, Option, Search, Solution, Values

MARKS = ("best", "inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class FairOption:
    """An option of a decision valued fairly: its chips at the end of the deal, each seat's mean over the
    samples of what the seat deciding could not see."""

    action: dict[str, Any]
    values: tuple[float, ...]
    moves: tuple[int, ...]


@dataclass(frozen=True)
class Fair:
    """A decision valued on what the seat deciding could know (docs/ANALYSIS.md, "Fair to what a player could
    know"): ``samples`` deals drawn uniformly from the ``deals`` consistent with what it saw (reproducibly from
    ``seed``), each solved exactly; every option's mean ``values``; the ``best`` options on those means; the
    chips the choice lost on them (``lost``) and its ``mark``; ``disagrees``: the mark under full knowledge is
    not this one (a mistake only full knowledge reveals, or one the player could not have avoided seeing)."""

    samples: int
    seed: int
    deals: int | None  # None: too many constraints to count them (the samples were drawn by rejection)
    options: tuple[FairOption, ...]
    best: tuple[FairOption, ...]
    values: tuple[float, ...]  # the chips after the choice (means)
    best_values: tuple[float, ...]  # the chips after the first best option (means)
    lost: float
    mark: str
    disagrees: bool


@dataclass(frozen=True)
class Decision:
    """One decision of a deal: who decided, what was done, what was best, and what it cost."""

    seat: int
    action: dict[str, Any]  # the table action chosen (a play up to the end of the run, or a pass)
    values: Values  # the chips each player ends the deal with after it, under best play by all from there
    best: tuple[Option, ...]  # the options worth the most to the seat
    best_values: Values  # the chips under best play by all from before the decision
    lost: int  # chips the choice cost the seat: best_values[seat] - values[seat]
    mark: str  # best, inaccuracy, mistake or blunder
    forced: bool  # only one legal option
    line: tuple[dict[str, Any], ...]  # the best line from before the decision to the end of the deal
    fair: Fair | None = None  # the decision valued on what the seat could know (``review(..., samples=…)``)


def mark(lost: float, stake: int) -> str:
    """The mark of a decision that lost ``lost`` chips, the board's stake being ``stake``."""
    if lost <= 0:
        return "best"
    if 3 * lost < stake:
        return "inaccuracy"
    if lost < stake:
        return "mistake"
    return "blunder"


def moves_of(table: Table, p: Position, decision: Mapping[str, Any]) -> list[int]:
    """The solver's moves of a decision (a call that moves no chip is the silent card)."""
    if decision["type"] == "pass":
        return [NONE]
    called = set(decision.get("announced", []))
    moves: list[int] = []
    for card in parse_cards(decision["cards"]):
        i = card_index(card)
        if not table.special[i]:
            move = PLAIN + card.rank
        else:
            move = i | CALL if card in called and i | CALL in table.moves(p) else i
        moves.append(move)
        p = table.play(p, move)
    if p[P_MODE] == MIDDLE:
        moves.append(NONE)  # the play stops there
    return moves


def review(state: GameState, actions: Iterable[Mapping[str, Any]], hands: Hands = None,
           search: Search | None = None, limit: int | None = None, *, samples: int = 0, seed: int = 0
           ) -> list[Decision]:
    """Each decision of ``actions`` (the deal's table actions from ``state`` on: plays and passes, as
    ``decide.execute`` takes them), its best options and what it cost; ``hands`` as in
    :func:`~nj_ledger.analysis.solve` (what each seat holds at ``state``); ``limit`` bounds the positions the
    whole review searches (:class:`~nj_ledger.analysis.TooLarge` past it). With ``samples``, each decision is
    also valued fairly (:class:`Fair`) on that many deals consistent with what its seat could see, drawn from
    ``seed``; ``state`` should then be the deal's start (the passes and stops before it are not known here)."""
    from .solver import solve

    watch = Watch(state) if samples > 0 else None
    fair_search: Search | None = None
    table, p, held = position(state, hands, None if search is None else search.table)
    search = search if search is not None and search.fits(table, p) else Search(table, p, limit)
    left: list[set[Card]] = [set(cards) for cards in held]
    known = state.deal is not None and state.deal.hands is not None
    stake = state.rules.ante_total
    out: list[Decision] = []
    for action in actions:
        for decision in decisions_of(state, action):
            if p[P_MODE] == ENDED or state.status != PLAYING:
                return out
            seat = decision["seat"]
            solution = solve(state, None if known else _by_seat(left), search=search)
            moves = moves_of(table, p, decision)
            after = p
            for move in moves:
                after = table.play(after, move)
            values: Values = after[P_BAL] if after[P_MODE] == ENDED else search.values(after)
            lost = solution.values[seat] - values[seat]
            fair: Fair | None = None
            if watch is not None:
                fair_search = fair_search if fair_search is not None else Search(table, p, limit)
                fair = fair_value(state, seat, frozenset(left[seat]), watch, tuple(moves), samples,
                                  f"{seed}/{len(out)}", seed, fair_search, mark(lost, stake))
            out.append(Decision(seat, decision, values, solution.best, solution.values, lost, mark(lost, stake),
                                len(solution.options) == 1, solution.line, fair))
            before = state
            # the cards as laid (the solver's equal cards are one to it)
            state, _ = execute(state, [decision], MAX_DOCUMENT_EVENTS)
            if watch is not None:
                watch.record(before, decision, state)
            for card in parse_cards(decision.get("cards", [])):
                left[seat].discard(card)
            p = after
    return out


def fair_value(state: GameState, seat: int, own: frozenset[Card], watch: Watch, chosen: tuple[int, ...],
               samples: int, stream: str, seed: int, search: Search, exact: str, budget: Budget | None = None
               ) -> Fair:
    """The decision of ``seat`` at ``state`` (its moves ``chosen``) valued on ``samples`` deals drawn uniformly
    (from the random stream ``stream``) among those consistent with what it saw (``watch``, its hand ``own``).
    With ``budget``, the sampling's steps and every position searched are spent from it (TooLarge past it)."""
    unseen = watch.unseen(state, seat, own)
    deals, draws = unseen.drawn(samples, stream, budget)
    sums: dict[tuple[int, ...], list[int]] = {}
    acts: dict[tuple[int, ...], dict[str, Any]] = {}
    for holders in draws:
        solution = _solved(with_hands(state, holders), search, budget)
        for option in solution.options:
            total = sums.setdefault(option.moves, [0] * state.n)
            for i, v in enumerate(option.values):
                total[i] += v
            acts.setdefault(option.moves, option.action)
    options = tuple(FairOption(acts[m], tuple(v / samples for v in total), m) for m, total in sums.items())
    top = max(option.values[seat] for option in options)
    best = tuple(option for option in options if option.values[seat] == top)
    after = next(option for option in options if option.moves == chosen)
    lost = top - after.values[seat]
    fair_mark = mark(lost, state.rules.ante_total)
    return Fair(samples, seed, deals, options, best, after.values, best[0].values, lost, fair_mark,
                fair_mark != exact)


def _solved(state: GameState, search: Search, budget: Budget | None) -> Solution:
    """``state`` solved with ``search``'s tables where they serve it, else with a search of its own; within
    ``budget`` either way."""
    from .solver import solve

    if budget is None:
        return solve(state, search=search)
    table, root, _ = position(state, None, search.table)
    used = search if search.fits(table, root) else Search(table, root)
    before = budget.lend(used)
    solution = solve(state, search=used)
    budget.settle(used, before)
    return solution


def _by_seat(left: Sequence[set[Card]]) -> list[list[Card]]:
    return [sorted(cards, key=card_index) for cards in left]


__all__ = ["MARKS", "Decision", "Fair", "FairOption", "decisions_of", "fair_value", "mark", "moves_of", "review"]
