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

from ..cards import Card, parse_cards
from ..decide import execute
from ..state import PLAYING, GameState
from .model import CALL, ENDED, MIDDLE, NONE, P_BAL, P_MODE, PLAIN, Position, Table, card_index, position
from .solver import Hands, Option, Search, Values

MARKS = ("best", "inaccuracy", "mistake", "blunder")


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


def mark(lost: int, stake: int) -> str:
    """The mark of a decision that lost ``lost`` chips, the board's stake being ``stake``."""
    if lost <= 0:
        return "best"
    if 3 * lost < stake:
        return "inaccuracy"
    if lost < stake:
        return "mistake"
    return "blunder"


def _decisions(state: GameState, action: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The decisions one table action records: the passes it infers, then its cards, a decision a run."""
    _, events = execute(state, [action])
    out: list[dict[str, Any]] = []
    for event in events:
        if event.type == "pass":
            out.append({"type": "pass", "seat": event.data["seat"]})
        elif event.type == "play":
            called = set(event.data.get("announced", []))
            current: list[str] = []
            for text in event.data["cards"]:
                current.append(text)
                if state.rules.ends_run(parse_cards([text])[0]) or text == event.data["cards"][-1]:
                    out.append({"type": "play", "seat": event.data["seat"], "cards": current,
                                "announced": [c for c in current if c in called]})
                    current = []
    return out


def _moves(table: Table, p: Position, decision: Mapping[str, Any]) -> list[int]:
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
           search: Search | None = None, limit: int | None = None) -> list[Decision]:
    """Each decision of ``actions`` (the deal's table actions from ``state`` on: plays and passes, as
    ``decide.execute`` takes them), its best options and what it cost; ``hands`` as in
    :func:`~nj_ledger.analysis.solve` (what each seat holds at ``state``); ``limit`` bounds the positions the
    whole review searches (:class:`~nj_ledger.analysis.TooLarge` past it)."""
    from .solver import solve

    table, p, held = position(state, hands, None if search is None else search.table)
    search = search if search is not None and search.fits(table, p) else Search(table, p, limit)
    left: list[set[Card]] = [set(cards) for cards in held]
    known = state.deal is not None and state.deal.hands is not None
    stake = state.rules.ante_total
    out: list[Decision] = []
    for action in actions:
        for decision in _decisions(state, action):
            if p[P_MODE] == ENDED or state.status != PLAYING:
                return out
            seat = decision["seat"]
            solution = solve(state, None if known else _by_seat(left), search=search)
            moves = _moves(table, p, decision)
            after = p
            for move in moves:
                after = table.play(after, move)
            values: Values = after[P_BAL] if after[P_MODE] == ENDED else search.values(after)
            lost = solution.values[seat] - values[seat]
            out.append(Decision(seat, decision, values, solution.best, solution.values, lost, mark(lost, stake),
                                len(solution.options) == 1, solution.line))
            state, _ = execute(state, [decision])  # the cards as laid (the solver's equal cards are one to it)
            for card in parse_cards(decision.get("cards", [])):
                left[seat].discard(card)
            p = after
    return out


def _by_seat(left: Sequence[set[Card]]) -> list[list[Card]]:
    return [sorted(cards, key=card_index) for cards in left]


__all__ = ["MARKS", "Decision", "mark", "review"]
