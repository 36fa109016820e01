"""Thousands of simulated games: every profile, every player count, full and partial information.

Each game is checked whole: chips add up after every event, the events re-executed from
the table actions are the same, folding the log gives the state built batch by batch,
and the audit of the hash-chained records is clean. The slow suite plays 10,024 games
on every core it may use; a few dozen run by default.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from nj_ledger.audit import audit
from nj_ledger.simulator import simulate
from support.scale import scaled, sized

from .chained import chained_records
from .helpers import PROFILE_NAMES
from .properties import check_simulated

PLAYER_COUNTS = range(2, 9)
INFOS = ("full", "partial")
GAMES_PER_CELL = 179  # 4 profiles x 7 player counts x 2 kinds of information x 179 = 10,024 games


def _rules(profile: str, seed: int) -> str | dict[str, Any]:
    """Mostly the profile as it is; some games with a deal limit, some on a score sheet."""
    if seed % 5 == 3:
        return {"profile": profile, "max_deals": 1 + seed % 4}
    if seed % 7 == 5:
        return {"profile": profile, "shortfall": "negative"}
    return profile


def play_and_check(cell: tuple[str, str, int, Iterable[int]]) -> Counter[str]:
    """Play and check the games of one cell; count games, events and how they ended."""
    profile, info, players, seeds = cell
    tally: Counter[str] = Counter()
    for seed in seeds:
        by_count = 0.5 if info == "partial" and seed % 2 else 0.0  # half the partial games settle some by count
        where = (f"simulate(seed={seed}, profile={_rules(profile, seed)!r}, players={players}, info={info!r}, "
                 f"by_count={by_count})")
        try:
            game = simulate(seed, _rules(profile, seed), players, info=info, deals=8, by_count=by_count)
            tally["events"] += check_simulated(game)
            report = audit(chained_records(game.events))
        except AssertionError as failure:
            raise AssertionError(f"{where}: {failure}") from failure
        assert report["ok"], (where, report["findings"][:5])
        assert report["conservation"]["checked"] == len(game.events), where
        assert game.state is not None and game.state.result is not None
        tally["games"] += 1
        tally[f"ended: {game.state.result['reason']}"] += 1
        tally["deals"] += game.state.deals_played
        tally["undos"] += len(report["corrections"])
        tally["deals settled by count"] += len(report["settled_by_count"])
        tally["grand operas"] += sum(
            1 for e in game.events if e.type == "deal_ended" and e.data["grand_opera"]
        )
    return tally


def cells(per_cell: int) -> list[tuple[str, str, int, range]]:
    out = []
    for index, (profile, info, players) in enumerate(
        (p, i, n) for p in PROFILE_NAMES for i in INFOS for n in PLAYER_COUNTS
    ):
        out.append((profile, info, players, range(index * 1000, index * 1000 + per_cell)))
    return out


@scaled
def test_simulated_games_of_every_kind() -> None:
    """One game per kind in make test; 10,024 in make test-slow, which must reach every way a game ends."""
    per_cell = sized(1, GAMES_PER_CELL)
    workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if per_cell == 1:
        results = [play_and_check(cell) for cell in cells(per_cell)]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(play_and_check, cells(per_cell)))
    tally: Counter[str] = sum(results, Counter())
    assert tally["games"] == len(PROFILE_NAMES) * len(INFOS) * len(PLAYER_COUNTS) * per_cell
    if per_cell == GAMES_PER_CELL:  # enough games for every ending and the unusual moves to have happened
        assert tally["games"] == 10_024
        assert {reason for reason in tally if reason.startswith("ended: ")} == {
            "ended: agreed",
            "ended: cannot_ante",
            "ended: shortfall",
            "ended: max_deals",
        }
        assert tally["undos"] > 0 and tally["grand operas"] > 0 and tally["deals settled by count"] > 0
    print(
        f"\n{tally['games']} games, {tally['deals']} deals, {tally['events']} events on {workers} cores: "
        + ", ".join(f"{key} {value}" for key, value in sorted(tally.items()) if key.startswith("ended"))
    )
