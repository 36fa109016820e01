"""The evening's fold, marks, ranking and ladder, against numbers worked out by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from nj_ledger import evenings as ev
from nj_ledger.chain import GENESIS
from nj_ledger.errors import LedgerError
from nj_ledger.evenings import GameOutcome, entry

SEATING = [[["A", "B", "C", "D"], ["E", "F", "G"]], [["A", "E", "F", "G"], ["B", "C", "D"]]]
# Final chips of each game (start 60), by seat.
CHIPS = {"g11": (80, 60, 60, 40), "g12": (90, 45, 45), "g21": (50, 70, 70, 50), "g22": (60, 60, 60)}


def _evening(ranking: str = "match_points", confirmation: bool = False) -> list[dict]:
    kind, data = ev.decide_creation(name="Jeudi", played_on="2026-11-26", players=list("ABCDEFG"), rounds=2,
                                    rules="classic", starting_chips=60, ranking=ranking, confirmation=confirmation,
                                    seating=SEATING)
    entries = [entry(1, kind, data)]
    for games in (("g11", "g12"), ("g21", "g22")):
        entries.append(entry(len(entries) + 1, *ev.decide_round(ev.fold_evening(entries), games)))
    return entries


def _outcomes() -> dict[str, GameOutcome]:
    state = ev.fold_evening(_evening())
    return {game: GameOutcome(40, "ended", seated.players, CHIPS[game], 60)
            for game, seated in state.games().items()}


def _mended(entries: list[dict]) -> list[dict]:
    """The director voids round 2's table 2 (B, C, D), awards B 60 for that round and takes 10 from D."""
    for kind, data in ((ev.VOIDED, {"game": "g22", "reason": "cards missing"}),
                       (ev.AWARDED, {"player": "B", "round": 2, "score": 60, "reason": "played on"}),
                       (ev.ADJUSTED, {"player": "D", "amount": -10, "reason": "slow play"})):
        entries.append(entry(len(entries) + 1, *ev.decide_mend(ev.fold_evening(entries), kind, data)))
    return entries


def scores(rows: list[dict]) -> dict[str, tuple[int | None, float]]:
    return {row["name"]: (row["rank"], row["score"]) for row in rows}


def test_match_points_by_hand() -> None:
    # Round 1, table 1 (80, 60, 60, 40): A beats 3 → 100; B beats D, ties C → 1.5/3 → 50; C 50; D 0.
    # Round 1, table 2 (90, 45, 45): E 100; F ties G → 0.5/2 → 25; G 25.
    # Round 2, table 1 (A 50, E 70, F 70, G 50): A ties G → 0.5/3 → 16.67; E beats A and G, ties F → 2.5/3 → 83.33.
    # Round 2, table 2 (60, 60, 60): every one ties both others → 1/2 → 50.
    rows = ev.ranking(ev.fold_evening(_evening()), _outcomes())
    # E 183.33, A 116.67, F 25 + 83.33 = 108.33, B = C = 100 (a shared rank), D 50, G 25 + 16.67 = 41.67
    assert [(row["rank"], row["name"], row["score"]) for row in rows] == [
        (1, "E", 183.33), (2, "A", 116.67), (3, "F", 108.33), (4, "B", 100), (4, "C", 100), (6, "D", 50),
        (7, "G", 41.67)]
    assert rows[0]["games"] == 2 and rows[0]["average"] == 91.67


def test_the_directors_mends_by_hand() -> None:
    entries = _mended(_evening())
    state = ev.fold_evening(entries)
    rows = ev.ranking(state, _outcomes())
    # g22 voided: B, C and D lose their 50; B is awarded 60 for round 2; D loses 10.
    assert [(row["rank"], row["name"], row["score"]) for row in rows] == [
        (1, "E", 183.33), (2, "A", 116.67), (3, "B", 110), (4, "F", 108.33), (5, "C", 50), (6, "G", 41.67),
        (7, "D", -10)]
    by_name = {row["name"]: row for row in rows}
    assert by_name["D"]["adjustments"] == -10 and by_name["C"]["games"] == 1 and by_name["B"]["games"] == 2
    assert [mend["type"] for mend in state.mends] == [ev.VOIDED, ev.AWARDED, ev.ADJUSTED]
    marks = {cell["game"]: cell["mark"] for row in ev.grid(state, _outcomes()) for cell in row if cell}
    assert marks == {"g11": "counted", "g12": "counted", "g21": "counted", "g22": "voided"}


def test_net_chips_by_hand() -> None:
    rows = ev.ranking(ev.fold_evening(_evening("net_chips")), _outcomes())
    # A +20 −10, B 0 0, C 0 0, D −20 0, E +30 +10, F −15 +10, G −15 −10
    assert {row["name"]: row["score"] for row in rows} == {"A": 10, "B": 0, "C": 0, "D": -20, "E": 40, "F": -5,
                                                           "G": -25}


def test_a_withdrawn_player_is_listed_last_unranked() -> None:
    entries = _evening()
    entries.append(entry(len(entries) + 1, *ev.decide_mend(ev.fold_evening(entries), ev.WITHDRAWN,
                                                           {"player": "E", "reason": "left in anger"})))
    rows = ev.ranking(ev.fold_evening(entries), _outcomes())
    assert rows[-1]["name"] == "E" and rows[-1]["rank"] is None and rows[-1]["withdrawn"]
    assert rows[0]["name"] == "A" and rows[0]["rank"] == 1


def test_only_confirmed_results_count_when_the_evening_asks_for_confirmation() -> None:
    entries = _evening(confirmation=True)
    outcomes = _outcomes()
    state = ev.fold_evening(entries)
    assert all(row["score"] == 0 for row in ev.ranking(state, outcomes))
    entries.append(entry(len(entries) + 1, *ev.decide_confirmation(state, "g11", "b", outcomes["g11"])))
    state = ev.fold_evening(entries)
    assert scores(ev.ranking(state, outcomes))["A"] == (1, 100)
    with pytest.raises(LedgerError) as refused:
        ev.decide_confirmation(state, "g11", "C", outcomes["g11"])
    assert refused.value.code == "already-confirmed"
    with pytest.raises(LedgerError) as refused:
        ev.decide_confirmation(state, "g12", "A", outcomes["g12"])
    assert refused.value.code == "not-at-table"
    # the game moved on after its confirmation (an undo past its end): it waits for a new one
    changed = {**outcomes, "g11": GameOutcome(41, "ended", ("A", "B", "C", "D"), CHIPS["g11"], 60)}
    assert ev.cell_mark(state, "g11", changed["g11"]) == ev.UNCONFIRMED
    assert ev.cell_mark(state, "g11", GameOutcome(41, "playing", ("A", "B", "C", "D"), CHIPS["g11"], 60)) == \
        ev.MISSING


def test_through_round_counts_the_first_rounds_only() -> None:
    rows = ev.ranking(ev.fold_evening(_evening()), _outcomes(), through_round=1)
    assert scores(rows)["E"] == (1, 100) and scores(rows)["D"] == (7, 0)


def test_game_scores_scale_to_the_table() -> None:
    three = GameOutcome(1, "ended", ("a", "b", "c"), (70, 50, 60), 60)
    six = GameOutcome(1, "ended", tuple("abcdef"), (10, 20, 30, 40, 50, 60), 60)
    assert ev.game_scores(three, "match_points") == {"a": 100, "b": 0, "c": 50}
    assert ev.game_scores(six, "match_points")["f"] == 100 and ev.game_scores(six, "match_points")["c"] == 40
    assert sum(ev.game_scores(six, "match_points").values()) == Fraction(300)


def test_the_chain_finds_a_changed_entry() -> None:
    chained, previous = [], GENESIS
    for item in _evening():
        item = {**item, "recorded_at": "2026-11-26T20:00:00Z"}
        item["hash"] = ev.entry_hash(previous, item)
        previous = item["hash"]
        chained.append(item)
    assert ev.first_bad_entry(chained) is None
    chained[1]["data"]["tables"][0]["players"] = ["A", "B", "D", "C"]
    assert ev.first_bad_entry(chained) == 2


def test_the_ladder_keeps_the_best_evenings_of_qualified_players() -> None:
    nights = [ev.EveningResult("e1", "1", "2026-01-01", (("Ana", 60.0, 1), ("Ben", 40.0, 2), ("Cléo", 80.0, 1))),
              ev.EveningResult("e2", "2", "2026-01-08", (("Ana", 10.0, 2), ("Ben", 90.0, 1))),
              ev.EveningResult("e3", "3", "2026-01-15", (("Ana", 70.0, 1), ("Ben", 20.0, 2)))]
    rows = ev.ladder(nights, qualifying=2, best=2)
    # Ana 60 + 70 (10 dropped), Ben 90 + 40 (20 dropped): both 130, a shared rank; Cléo has one evening of two.
    assert [(r["rank"], r["name"], r["total"], r["evenings"], r["kept"]) for r in rows] == [
        (1, "Ana", 130.0, 3, 2), (1, "Ben", 130.0, 3, 2), (None, "Cléo", 80.0, 1, 1)]
    assert [night["kept"] for night in rows[0]["history"]] == [True, False, True]
    assert [r["total"] for r in ev.ladder(nights)] == [150.0, 140.0, 80.0]


def test_players_with_no_result_yet_are_listed_after_the_ranked_unranked() -> None:
    # Before any game counts nobody is "first with 0": every present player is unranked, listed by name.
    state = ev.fold_evening(_evening())
    rows = ev.ranking(state, {})
    assert [(row["rank"], row["name"], row["score"], row["games"]) for row in rows] == [
        (None, name, 0, 0) for name in "ABCDEFG"]
    # Round 1's table 2 (E 100, F 25, G 25) has ended, table 1 has not: E, F and G are ranked, the others follow.
    outcomes = {game: outcome for game, outcome in _outcomes().items() if game == "g12"}
    rows = ev.ranking(state, outcomes, through_round=1)
    assert [(row["rank"], row["name"], row["score"]) for row in rows] == [
        (1, "E", 100), (2, "F", 25), (2, "G", 25), (None, "A", 0), (None, "B", 0), (None, "C", 0), (None, "D", 0)]
    assert rows[3]["average"] is None and not rows[3]["withdrawn"]


def test_a_score_of_zero_played_ranks_above_no_result_and_an_adjustment_is_a_result() -> None:
    entries = _evening("net_chips")
    entries.append(entry(len(entries) + 1, *ev.decide_mend(ev.fold_evening(entries), ev.ADJUSTED,
                                                           {"player": "C", "amount": -3, "reason": "late"})))
    entries.append(entry(len(entries) + 1, *ev.decide_mend(ev.fold_evening(entries), ev.WITHDRAWN,
                                                           {"player": "G", "reason": "went home"})))
    state = ev.fold_evening(entries)
    # Only round 1's table 1 has ended: A +20, B 0, C 0 −3, D −20; E and F have no result yet; G withdrew.
    outcomes = {game: outcome for game, outcome in _outcomes().items() if game == "g11"}
    rows = ev.ranking(state, outcomes)
    assert [(row["rank"], row["name"], row["score"]) for row in rows] == [
        (1, "A", 20), (2, "B", 0), (3, "C", -3), (4, "D", -20), (None, "E", 0), (None, "F", 0), (None, "G", 0)]
    assert [row["withdrawn"] for row in rows[-3:]] == [False, False, True]


def _decided(entries: list[dict], *mends: tuple[str, dict]) -> ev.EveningState:
    """The evening once the director's mends are decided, in order."""
    for kind, data in mends:
        entries.append(entry(len(entries) + 1, *ev.decide_mend(ev.fold_evening(entries), kind, data)))
    return ev.fold_evening(entries)


def _round_one_table_one() -> dict[str, GameOutcome]:
    """Only round 1's table 1 (A 100, B 50, C 50, D 0) has ended."""
    return {game: outcome for game, outcome in _outcomes().items() if game == "g11"}


def _ranked_names(rows: list[dict]) -> list[str]:
    return [name for name, _, _ in ev.EveningResult.of_ranking("e", "e", "2026-11-26", rows).rows]


def test_adjustments_that_cancel_out_are_a_result_ranked_with_zero() -> None:
    state = _decided(_evening(), (ev.ADJUSTED, {"player": "E", "amount": 5, "reason": "fine play"}),
                     (ev.ADJUSTED, {"player": "E", "amount": -5, "reason": "entered twice"}))
    rows = ev.ranking(state, _round_one_table_one())
    # E played no game counted, but the director adjusted E: E shares D's rank, with 0; F and G have no result.
    assert [(row["rank"], row["name"], row["score"], row["games"], row["adjustments"]) for row in rows] == [
        (1, "A", 100, 1, 0), (2, "B", 50, 1, 0), (2, "C", 50, 1, 0), (4, "D", 0, 1, 0), (4, "E", 0, 0, 0),
        (None, "F", 0, 0, 0), (None, "G", 0, 0, 0)]
    assert rows[4]["average"] is None
    # the ladder reads the same rule: E has an evening there, F and G have none
    assert _ranked_names(rows) == ["A", "B", "C", "D", "E"]


def test_an_award_alone_is_a_result() -> None:
    state = _decided(_evening(), (ev.AWARDED, {"player": "F", "round": 1, "score": 60, "reason": "sat out"}))
    rows = ev.ranking(state, _round_one_table_one())
    assert [(row["rank"], row["name"], row["score"], row["games"]) for row in rows] == [
        (1, "A", 100, 1), (2, "F", 60, 1), (3, "B", 50, 1), (3, "C", 50, 1), (5, "D", 0, 1), (None, "E", 0, 0),
        (None, "G", 0, 0)]
    assert rows[1]["average"] == 60
    assert [cell["mark"] for cell in rows[1]["rounds"]] == ["missing", "awarded", "missing"]
    # an award of 0 is a result all the same: G is then ranked, with 0
    state = _decided(_evening(), (ev.AWARDED, {"player": "G", "round": 1, "score": 0, "reason": "sat out"}))
    assert scores(ev.ranking(state, {}))["G"] == (1, 0)
    assert [row["rank"] for row in ev.ranking(state, {})].count(None) == 6


def test_a_voided_game_alone_is_no_result() -> None:
    # every game of round 1 ended, but the director voided table 2's (E, F, G): they have no result in round 1
    state = _decided(_evening(), (ev.VOIDED, {"game": "g12", "reason": "cards missing"}))
    rows = ev.ranking(state, _outcomes(), through_round=1)
    assert [(row["rank"], row["name"], row["score"]) for row in rows] == [
        (1, "A", 100), (2, "B", 50), (2, "C", 50), (4, "D", 0), (None, "E", 0), (None, "F", 0), (None, "G", 0)]
    assert {row["name"]: [cell["mark"] for cell in row["rounds"]] for row in rows[4:]} == {
        "E": ["voided"], "F": ["voided"], "G": ["voided"]}
    assert not any(row["withdrawn"] for row in rows)
    assert _ranked_names(rows) == ["A", "B", "C", "D"]


def test_a_withdrawn_player_with_a_game_counted_is_unranked_last() -> None:
    # A won round 1's table 1 (100), then withdrew: A is listed last, unranked, the game still shown
    state = _decided(_evening(), (ev.WITHDRAWN, {"player": "A", "reason": "went home"}))
    rows = ev.ranking(state, _round_one_table_one())
    assert [(row["rank"], row["name"], row["score"], row["games"], row["withdrawn"]) for row in rows] == [
        (1, "B", 50, 1, False), (1, "C", 50, 1, False), (3, "D", 0, 1, False), (None, "E", 0, 0, False),
        (None, "F", 0, 0, False), (None, "G", 0, 0, False), (None, "A", 100, 1, True)]
    assert _ranked_names(rows) == ["B", "C", "D"]
