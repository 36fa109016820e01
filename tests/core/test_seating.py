"""Seats drawn and rotated over a club evening (nj_ledger.seating): the table split, the plan's shape, the known
optimal cases, the lower bound, re-planning after an arrival or a departure, and properties over random counts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_ledger.seating import Plan, lower_bound, pair_counts, plan, table_sizes, worst_pair
from support.scale import examples, scaled


def names(count: int, prefix: str = "P") -> list[str]:
    return [f"{prefix}{number:02d}" for number in range(1, count + 1)]


def check(result: Plan, present: list[str], sizes, played=()) -> None:
    """The plan's shape: played rounds as given, then every present player once a round at tables of ``sizes``."""
    assert result.rounds[: len(played)] == tuple(tuple(tuple(table) for table in tables) for tables in played)
    for tables in result.rounds[len(played):]:
        assert tuple(len(table) for table in tables) == tuple(sizes)  # table i seats sizes[i]
        assert all(3 <= len(table) <= 8 for table in tables)
        assert sorted(name for table in tables for name in table) == sorted(present)
    met = pair_counts(result.rounds)
    assert result.worst_pair == max(met.values(), default=0)
    assert result.at_worst == sum(1 for count in met.values() if count == result.worst_pair)
    assert result.worst_pair >= result.bound


# --- the split ---------------------------------------------------------------------------------------------------


def test_table_sizes_split_the_count_close_to_four_largest_first():
    assert table_sizes(3) == (3,)
    assert table_sizes(7) == (4, 3)
    assert table_sizes(10) == (4, 3, 3)
    assert table_sizes(12) == (4, 4, 4)
    assert table_sizes(13) == (5, 4, 4)
    assert table_sizes(20) == (4, 4, 4, 4, 4)
    assert table_sizes(9, preferred=3) == (3, 3, 3)
    assert table_sizes(30, preferred=6) == (6, 6, 6, 6, 6)
    assert table_sizes(17, largest=5, preferred=5) == (5, 4, 4, 4)


@given(st.integers(3, 300), st.integers(3, 8))
def test_every_split_seats_everyone_at_tables_of_three_to_eight(players, preferred):
    sizes = table_sizes(players, preferred=preferred)
    assert sum(sizes) == players and all(3 <= size <= 8 for size in sizes)
    assert list(sizes) == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1
    if players % preferred == 0:
        assert set(sizes) == {preferred}


def test_table_sizes_refuses_fewer_players_than_a_table():
    with pytest.raises(ValueError):
        table_sizes(2)
    with pytest.raises(ValueError):
        table_sizes(7, smallest=5, largest=5)


# --- known optimal cases -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size", "rounds"), [
    (9, 3, 4),  # AG(2, 3): the resolvable design of Kirkman's kind on 9 points
    (16, 4, 5),  # AG(2, 4)
    (25, 5, 6),  # AG(2, 5)
    (49, 7, 8),  # AG(2, 7)
    (64, 8, 9),  # AG(2, 8)
    (27, 3, 13),  # AG(3, 3)
])
def test_affine_planes_and_spaces_have_every_pair_meet_exactly_once(players, size, rounds):
    everyone = names(players)
    for seed in (0, 1):
        result = plan(everyone, rounds, sizes=(size,) * (players // size), seed=seed)
        check(result, everyone, (size,) * (players // size))
        met = pair_counts(result.rounds)
        assert len(met) == players * (players - 1) // 2 and set(met.values()) == {1}
        assert (result.worst_pair, result.bound) == (1, 1)


@pytest.mark.parametrize(("players", "size", "rounds"), [
    (12, 3, 3), (12, 3, 4), (20, 4, 5), (15, 3, 7), (32, 4, 8), (64, 4, 8), (64, 4, 21), (16, 4, 4), (9, 3, 2),
])
def test_no_pair_meets_twice_when_it_can_be_avoided(players, size, rounds):
    everyone = names(players)
    result = plan(everyone, rounds, sizes=(size,) * (players // size))
    check(result, everyone, (size,) * (players // size))
    assert (result.worst_pair, result.bound) == (1, 1)


@pytest.mark.parametrize(("players", "sizes"), [(9, (5, 4)), (10, (5, 5)), (12, (6, 6)), (16, (8, 8))])
def test_two_tables_reach_the_bound_over_six_rounds(players, sizes):
    result = plan(names(players), 6, sizes=sizes)
    assert (result.worst_pair, result.bound) == (4, 4)  # the bound of binary codes of length 6


@pytest.mark.parametrize(("rounds", "worst"), [(1, 1), (2, 2), (3, 2), (4, 2), (5, 3), (6, 3), (7, 3), (8, 4),
                                               (14, 6)])
def test_eight_players_at_two_tables_of_four_reach_the_bound(rounds, worst):
    # the planes of AG(3, 2): over its 7 rounds every pair meets exactly 3 times
    result = plan(names(8), rounds, sizes=(4, 4))
    assert (result.worst_pair, result.bound) == (worst, worst)
    if rounds == 7:
        assert set(pair_counts(result.rounds).values()) == {3}


def test_twelve_players_at_tables_of_four_cannot_play_two_rounds_without_a_pair_meeting_twice():
    # Pigeonhole: a table of the second round draws its 4 players from the 3 tables of the first.
    assert lower_bound(names(12), 2, (4, 4, 4)) == 2
    result = plan(names(12), 3, sizes=(4, 4, 4))
    assert (result.worst_pair, result.bound) == (2, 2)
    assert (plan(names(12), 3, sizes=(3, 3, 3, 3)).worst_pair) == 1  # at four tables of 3, no pair twice


def test_the_bound_counts_the_meetings_of_each_player_and_the_pairs_of_every_round():
    assert lower_bound(names(20), 5, (4,) * 5) == 1  # 5 × 3 = 15 meetings among 19 others
    assert lower_bound(names(20), 7, (4,) * 5) == 2  # 7 × 3 = 21 > 19
    assert lower_bound(names(13), 5, (5, 4, 4)) == 2  # 5 × 3 = 15 > 12: the smallest table counts
    assert lower_bound(names(16), 3, (8, 8)) == 3  # three splits in two halves: two players share all three
    assert lower_bound(names(9), 8, (3, 3, 3)) == 2
    assert lower_bound(names(9), 9, (3, 3, 3)) == 3  # 9 × 2 = 18 over 8 others
    assert lower_bound(names(36), 3, (6,) * 6) == 1
    assert lower_bound(names(9), 6, (5, 4)) == 4  # at most 8 binary words of length 6 pairwise 3 apart
    assert lower_bound(names(8), 6, (4, 4)) == 3
    assert lower_bound(names(9), 4, (3, 3, 3)) == 1  # the ternary Hamming code has exactly 9 words
    assert lower_bound(names(36), 4, (6,) * 6) == 2  # no two orthogonal Latin squares of order 6
    played = [[names(3), names(6)[3:]], [names(3), names(6)[3:]]]
    assert lower_bound(names(6), 3, (3, 3), played) == 3  # met twice already, and the third round's tables of 3
    # take 2 from one of the two played tables


# --- the evening goes on -----------------------------------------------------------------------------------------


def test_a_late_arrival_replans_only_the_rounds_not_yet_played():
    players = names(11)
    first = plan(players, 5, seed=1)
    played = first.rounds[:2]
    arrived = [*players, "Late"]
    again = plan(arrived, 5, played=played, seed=1)
    check(again, arrived, table_sizes(12), played)


def test_a_departure_replans_the_rest_counting_the_pairs_already_met():
    players = names(16)
    first = plan(players, 5, sizes=(4, 4, 4, 4))
    played = first.rounds[:2]
    left = [name for name in players if name != "P07"]
    again = plan(left, 5, played=played)
    check(again, left, table_sizes(15), played)
    assert again.worst_pair == 1 == again.bound  # 15 players at tables of 4, 4, 4, 3: still no pair twice


def test_the_first_seats_go_round():
    players = names(12)
    result = plan(players, 6)
    firsts: dict[str, int] = {}
    for tables in result.rounds:
        for table in tables:
            firsts[table[0]] = firsts.get(table[0], 0) + 1
    assert sum(firsts.values()) == 18
    assert sorted(firsts.values()) == [1] * 6 + [2] * 6  # 18 first seats among 12: 1 or 2 each


@pytest.mark.parametrize(("players", "rounds"), [(20, 8), (13, 6), (24, 7), (64, 8), (17, 5)])
def test_no_one_has_the_first_seat_two_times_more_than_another(players, rounds):
    everyone = names(players)
    result = plan(everyone, rounds)
    firsts = dict.fromkeys(everyone, 0)
    for tables in result.rounds:
        for table in tables:
            firsts[table[0]] += 1
    assert max(firsts.values()) - min(firsts.values()) <= 1


def test_the_same_seed_gives_the_same_plan_and_another_seed_may_not():
    players = names(13)
    assert plan(players, 4, seed=7) == plan(players, 4, seed=7)
    assert len({plan(players, 4, seed=seed).rounds for seed in range(5)}) > 1


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
        plan(names(18), 1, sizes=(9, 9))
    with pytest.raises(ValueError):
        plan(names(6), 1, played=[[names(3), names(6)[3:]], [names(3), names(6)[3:]]])
    with pytest.raises(ValueError):
        plan(names(6), 2, played=[[names(3), names(3)]])


def test_a_refusal_is_a_value_error_with_a_stable_code_and_a_template():
    from nj_ledger.errors import InvalidInput
    from nj_ledger.seating import SeatingError

    with pytest.raises(SeatingError) as refused:
        plan(names(10), 2, sizes=(4, 4))
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, InvalidInput)
    assert refused.value.code == "seating-sizes-do-not-seat"
    said = refused.value.template.format(**refused.value.params)
    assert said == "Tables of 4 + 4 do not seat the 10 players present."
    with pytest.raises(SeatingError) as refused:
        table_sizes(2)
    assert (refused.value.code, refused.value.params) == ("seating-too-few-players", {"players": 2, "smallest": 3})
    with pytest.raises(SeatingError) as refused:
        plan(names(6), 2, played=[[names(3), ["P04", "P05", "P01"]]])
    assert (refused.value.code, refused.value.params) == ("seating-seated-twice", {"round": 1, "name": "P01"})


def test_an_evening_with_every_round_played_is_reported_as_it_stands():
    played = [[names(3), names(6)[3:]], [names(6)[1:4], [*names(1), *names(6)[4:]]]]
    result = plan(["Someone", "Else"], 2, played=played)
    assert result.rounds == tuple(tuple(tuple(table) for table in tables) for tables in played)
    assert result.worst_pair == worst_pair(played) == 2 == result.bound


# --- properties ----------------------------------------------------------------------------------------------------


@st.composite
def evenings(draw):
    players = draw(st.integers(3, 32))
    rounds = draw(st.integers(1, 6))
    preferred = draw(st.integers(3, 8))
    seed = draw(st.integers(0, 2**32))
    return players, rounds, table_sizes(players, preferred=preferred), seed


@scaled
@examples(15, 150)
@given(evenings())
def test_every_player_is_seated_once_every_round_at_tables_of_the_given_sizes(evening):
    players, rounds, sizes, seed = evening
    everyone = names(players)
    result = plan(everyone, rounds, sizes=sizes, seed=seed)
    check(result, everyone, sizes)
    assert plan(everyone, rounds, sizes=sizes, seed=seed) == result


@scaled
@examples(15, 150)
@given(evenings(), st.data())
def test_arrivals_and_departures_leave_the_played_rounds_untouched(evening, data):
    players, rounds, sizes, seed = evening
    everyone = names(players)
    first = plan(everyone, rounds, sizes=sizes, seed=seed)
    done = data.draw(st.integers(0, rounds))
    leaving = data.draw(st.sets(st.sampled_from(everyone), max_size=players - 3))
    arriving = names(data.draw(st.integers(0, 5)), prefix="New")
    present = [name for name in everyone if name not in leaving] + arriving
    played = first.rounds[:done]
    again = plan(present, rounds, played=played, seed=seed)
    check(again, present, table_sizes(len(present)) if done < rounds else (), played)
    assert again == plan(present, rounds, played=played, seed=seed)
    assert again.bound >= worst_pair(played)
