"""Seats drawn and rotated over a club evening (nj_ledger.seating)."""

from __future__ import annotations

from itertools import combinations

import pytest

from nj_ledger.seating import Plan, plan, table_sizes, worst_pair


def names(count: int) -> list[str]:
    return [f"P{number:02d}" for number in range(1, count + 1)]


def pair_counts(rounds) -> dict[frozenset[str], int]:
    met: dict[frozenset[str], int] = {}
    for tables in rounds:
        for table in tables:
            for a, b in combinations(table, 2):
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    return met


def test_table_sizes_split_the_count_close_to_four_largest_first():
    assert table_sizes(3) == (3,)
    assert table_sizes(7) == (4, 3)
    assert table_sizes(12) == (4, 4, 4)
    assert table_sizes(13) == (5, 4, 4)
    assert table_sizes(20) == (4, 4, 4, 4, 4)
    assert table_sizes(9, preferred=3) == (3, 3, 3)
    for players in range(3, 80):
        sizes = table_sizes(players)
        assert sum(sizes) == players and all(3 <= size <= 8 for size in sizes)
        assert list(sizes) == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1


def test_table_sizes_refuses_fewer_players_than_a_table():
    with pytest.raises(ValueError):
        table_sizes(2)
    with pytest.raises(ValueError):
        table_sizes(7, smallest=5, largest=5)


def check(result: Plan, players: list[str], rounds: int, sizes) -> None:
    assert len(result.rounds) == rounds
    for tables in result.rounds:
        assert sorted(len(table) for table in tables) == sorted(sizes)
        assert sorted(name for table in tables for name in table) == sorted(players)
    assert result.worst_pair == max(pair_counts(result.rounds).values())
    assert result.worst_pair >= result.bound


def test_a_plan_seats_everyone_once_a_round_and_reports_its_worst_pair():
    players = names(20)
    result = plan(players, 5)
    check(result, players, 5, (4, 4, 4, 4, 4))
    assert result.worst_pair == worst_pair(result.rounds)


def test_the_same_seed_gives_the_same_plan_and_another_seed_may_not():
    players = names(13)
    assert plan(players, 4, seed=7) == plan(players, 4, seed=7)
    assert len({plan(players, 4, seed=seed).rounds for seed in range(5)}) > 1


def test_nine_players_at_tables_of_three_meet_each_other_exactly_once_in_four_rounds():
    players = names(9)
    result = plan(players, 4, sizes=(3, 3, 3))
    check(result, players, 4, (3, 3, 3))
    counts = pair_counts(result.rounds)
    assert len(counts) == 36 and set(counts.values()) == {1}
    assert (result.worst_pair, result.bound) == (1, 1)


def test_a_late_arrival_replans_only_the_rounds_not_yet_played():
    players = names(11)
    first = plan(players, 4)
    played = first.rounds[:2]
    arrived = [*players, "Late"]
    again = plan(arrived, 4, played=played, seed=3)
    assert again.rounds[:2] == played
    check_round = again.rounds[2:]
    for tables in check_round:
        assert sorted(name for table in tables for name in table) == sorted(arrived)
    assert again.worst_pair == max(pair_counts(again.rounds).values()) >= again.bound


def test_wrong_arguments_are_refused():
    with pytest.raises(ValueError):
        plan(["A", "B"], 1)
    with pytest.raises(ValueError):
        plan(["A", "A", "B", "C"], 1)
    with pytest.raises(ValueError):
        plan(names(8), 2, sizes=(4, 3))
    with pytest.raises(ValueError):
        plan(names(10), 1, sizes=(8, 2))
    with pytest.raises(ValueError):
        plan(names(6), 1, played=[[names(3), names(6)[3:]], [names(6)[:3], names(6)[3:]]])
