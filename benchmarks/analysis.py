"""(h) The double-dummy solver (``nj_ledger.analysis``): a whole deal, and one decision point, solved exactly.

Three workloads, each over seeded random deals of every profile (classic, cards, skip, hearts and, with 3
players, avantcoureur-1760), dealt with every hand:

- a whole 3-player deal of 15 cards each, solved from its first card (best play by all, every value);
- an 8-player deal of 6 cards each, likewise;
- one decision point: the position of a 3-player deal of 15 cards after half its cards were laid by random
  legal play, solved with every option of the player to act (``solve``).

Each solve has a budget of searched positions (``budget``): a deal that does not end within it counts at
the time it took to reach it, and the line says how many did not end (their time is then a lower bound, so
the p99 is too). Figures: p50 and p99 seconds a solve, and positions searched a second, with whether best play
by all ran compiled (``NJ_LEDGER_NATIVE=0`` measures the search in Python).
"""

from __future__ import annotations

import random
import time
from typing import Any

from nj_ledger import DECK, GameState, execute, new_game, replay
from nj_ledger.analysis import TooLarge, solve
from nj_ledger.analysis.convert import actions_of, position
from nj_ledger.analysis.model import ENDED, P_MODE
from nj_ledger.analysis.solver import Search, _turn_options, native

from .results import percentile, row

PROFILES_3 = ("classic", "cards", "skip", "hearts", "avantcoureur-1760")
PROFILES_8 = ("classic", "cards", "skip", "hearts")


def dealt(profile: str, players: int, size: int, seed: int) -> GameState:
    """A deal of ``profile`` with every hand, seeded; the players hold plenty of chips."""
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    rules: dict[str, Any] = {"profile": profile, "players": [players],
                             "deal_table": {str(players): [size, 52 - players * size]}, "max_deals": None}
    started = new_game([f"P{seat}" for seat in range(players)], rules, 1000)
    hands = [[str(card) for card in deck[seat * size:(seat + 1) * size]] for seat in range(players)]
    state, _ = execute(replay([started]), [{"type": "deal", "hands": hands}])
    return state


def halfway(state: GameState, seed: int) -> GameState:
    """``state`` after random legal actions until half the cards of the hands are laid."""
    rng = random.Random(seed)
    assert state.deal is not None
    total = sum(state.deal.hand_sizes)
    while True:
        assert state.deal is not None
        if sum(state.deal.hand_sizes) <= total // 2:
            return state
        table, p, held = position(state)
        options = [option for option in _turn_options(table, p) if option[1][P_MODE] != ENDED]
        if not options:
            return state
        moves, _ = rng.choice(options)
        state, _ = execute(state, actions_of(table, p, held, moves))


def _measure(states: list[GameState], budget: int, whole: bool) -> tuple[list[float], int, int]:
    """Seconds each solve took, positions searched in all, solves that met the budget."""
    seconds: list[float] = []
    nodes = over = 0
    for state in states:
        started = time.perf_counter()
        if whole:
            table, root, _ = position(state)
            search = Search(table, root, budget)
            try:
                search.values(root)
            except TooLarge:
                over += 1
            nodes += search.nodes
        else:
            try:
                nodes += solve(state, limit=budget).nodes
            except TooLarge:
                over += 1
                nodes += budget
        seconds.append(time.perf_counter() - started)
    return seconds, nodes, over


def _rows(name: str, target: float, seconds: list[float], nodes: int, over: int, budget: int) -> list[dict[str, Any]]:
    note = (f"{len(seconds)} deals; {over} did not end within {budget:,} positions "
            "(counted at the time they took to reach it: a lower bound)") if over else \
        f"{len(seconds)} deals, every one solved exactly"
    lines = [
        row(f"{name}, p50", "s", percentile(seconds, 50), at_most=target),
        row(f"{name}, p99", "s", percentile(seconds, 99), at_most=target, note=note),
        row(f"{name}, positions", "positions/s", nodes / sum(seconds) if sum(seconds) else None,
            note="best play by all compiled (nj_ledger.analysis._maxn)" if native() else
            "best play by all in Python (NJ_LEDGER_NATIVE=0, or the compiled module not built)"),
    ]
    # a solve that did not end is not a time met, whatever the time it took to give up
    if over:
        lines[1]["met"] = False
    if 2 * over >= len(seconds):
        lines[0]["met"] = False
    return lines


def workload(deals: int = 20, budget: int = 400_000) -> list[dict[str, Any]]:
    """The three workloads, ``deals`` solves each, each within ``budget`` searched positions (``nj-ledger bench``
    sizes ``analysis_deals`` and ``analysis_budget``: 5 and 40,000 with ``--quick``)."""
    three = [dealt(PROFILES_3[k % len(PROFILES_3)], 3, 15, 7000 + k) for k in range(deals)]
    eight = [dealt(PROFILES_8[k % len(PROFILES_8)], 8, 6, 8000 + k) for k in range(deals)]
    points = [halfway(dealt(PROFILES_3[k % len(PROFILES_3)], 3, 15, 9000 + k), k) for k in range(deals)]
    lines: list[dict[str, Any]] = []
    lines += _rows("analysis: 3-player deal (15 cards)", 10.0, *_measure(three, budget, True), budget)
    lines += _rows("analysis: 8-player deal (6 cards)", 1.0, *_measure(eight, budget, True), budget)
    lines += _rows("analysis: one decision point", 1.0, *_measure(points, budget, False), budget)
    return lines


if __name__ == "__main__":  # python -m benchmarks.analysis [--quick]
    import sys

    for line in workload(*(5, 40_000) if "--quick" in sys.argv else ()):
        print(line)
