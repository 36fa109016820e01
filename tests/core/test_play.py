"""Play (SPEC §3.2): runs, Kings, stops, passes (explicit and inferred), blocked runs, honours."""

from __future__ import annotations

from typing import Any

import pytest

from nj_ledger.events import Event
from support.sentences import said

from .helpers import Table, cards, fill_hands, of_type, transfers


def calls(events: list[Event]) -> list[tuple[str, Any]]:
    """The table actions and inferred passes among ``events``, shortly."""
    out: list[tuple[str, Any]] = []
    for e in events:
        if e.type == "pass":
            out.append(("pass*" if e.data.get("inferred") else "pass", e.data["seat"]))
        elif e.type == "play":
            out.append(("play", e.data["seat"]))
    return out


def dealt(players: int = 3, rules: Any = "classic", chips: int = 100, hands: Any = None) -> Table:
    table = Table(players, rules, chips)
    table.deal(hands)
    return table


# --- runs --------------------------------------------------------------------------------------------
def test_a_run_goes_up_by_rank_whatever_the_suit() -> None:
    table = dealt()
    events = table.play(0, "5H 6c 7♠")
    assert of_type(events, "play")[0].data == {"seat": 0, "cards": ["5H", "6C", "7S"], "announced": []}
    view = table.view["deal"]
    assert view["run"] == ["5H", "6C", "7S"] and view["expected"] == "8" and view["turn"] == 1
    assert view["hand_sizes"] == [12, 15, 15]
    table.play(1, "8D 9D 10C J♥")
    assert table.view["deal"]["expected"] == "Q" and table.view["deal"]["turn"] == 2
    assert table.view["deal"]["run"] == cards("5H 6C 7S 8D 9D 10C JH")


def test_the_first_card_of_a_run_is_any_card() -> None:
    table = dealt()
    table.play(0, "QD")
    assert table.view["deal"]["expected"] == "K"


@pytest.mark.parametrize("text", ["5H 7H", "5H 5C", "5H 4H", "KH AH 3H"])
def test_a_run_must_not_skip_or_repeat_a_rank(text: str) -> None:
    refusal = dealt().refuse({"type": "play", "seat": 0, "cards": cards(text)})
    assert refusal.code == "out-of-sequence"


def test_the_next_seat_must_continue_with_the_wanted_rank() -> None:
    table = dealt()
    table.play(0, "5H 6H")
    refusal = table.refuse({"type": "play", "seat": 1, "cards": ["8C"]})
    assert refusal.code == "out-of-sequence" and refusal.params["expected"] == "7"


def test_runs_by_suit() -> None:
    table = dealt(rules={"profile": "classic", "sequence": "suit"})
    assert table.refuse({"type": "play", "seat": 0, "cards": ["5H", "6C"]}).code == "out-of-sequence"
    table.play(0, "5H 6H")
    assert table.view["deal"]["expected"] == "7H"
    refusal = table.refuse({"type": "play", "seat": 1, "cards": ["7C"]})
    assert refusal.code == "out-of-sequence" and refusal.params["expected"] == "7H"
    table.play(1, "7H")
    assert table.view["deal"]["expected"] == "8H"


# --- Kings: "Roi et je recommence" --------------------------------------------------------------------
def test_after_a_king_the_same_player_starts_a_new_run() -> None:
    table = dealt()
    table.play(0, "JC QC KC")
    deal = table.view["deal"]
    assert deal["turn"] == 0 and deal["expected"] is None and deal["run"] == cards("JC QC KC")
    assert table.refuse({"type": "pass", "seat": 0}).code == "cannot-pass"
    assert table.refuse({"type": "play", "seat": 1, "cards": ["AD"]}).code == "not-your-turn"
    assert table.refuse({"type": "pass", "seat": 1}).code == "not-your-turn"
    table.play(0, "3D 4D")  # the same turn goes on, in a second play action
    deal = table.view["deal"]
    assert deal["run"] == cards("3D 4D") and deal["expected"] == "5" and deal["turn"] == 1
    assert table.deal_state.laying_turns == (1, 0, 0)  # one turn, two play actions


def test_a_turn_may_go_through_several_kings_in_one_play() -> None:
    table = dealt()
    table.play(0, "QC KC KD 2S 3S")
    deal = table.view["deal"]
    assert deal["run"] == ["2S", "3S"] and deal["expected"] == "4" and deal["turn"] == 1
    assert deal["hand_sizes"] == [10, 15, 15]
    assert table.deal_state.laying_turns == (1, 0, 0)


def test_a_king_as_last_card_keeps_the_turn_after_stops() -> None:
    table = dealt(players=4)
    table.play(0, "9C 10C")
    table.play(1, "JD QD KD")
    assert table.view["deal"]["turn"] == 1 and table.view["deal"]["expected"] is None
    table.play(1, "AC")
    assert table.view["deal"]["turn"] == 2
    assert table.deal_state.laying_turns == (1, 1, 0, 0)


# --- stops and passes -----------------------------------------------------------------------------------
def test_explicit_passes_then_the_last_player_restarts() -> None:
    table = dealt(players=4)
    table.play(0, "5H 6H")
    table.pass_(1)
    assert table.view["deal"]["passed"] == [1] and table.view["deal"]["turn"] == 2
    table.pass_(2)
    events = table.pass_(3)
    assert calls(events) == [("pass", 3)]
    deal = table.view["deal"]
    assert deal["turn"] == 0 and deal["expected"] is None and deal["run"] == [] and deal["passed"] == []
    table.play(0, "KS")  # any card starts the new run


def test_explicit_passes_then_the_first_passer_restarts() -> None:
    table = dealt(players=4, rules={"profile": "classic", "restarter": "first_passer"})
    table.play(0, "5H 6H")
    for seat in (1, 2, 3):
        table.pass_(seat)
    assert table.view["deal"]["turn"] == 1 and table.view["deal"]["expected"] is None
    assert table.refuse({"type": "play", "seat": 0, "cards": ["2C"]}).code == "not-your-turn"
    table.play(1, "2C")


def test_passes_are_inferred_up_to_the_seat_that_plays() -> None:
    table = dealt(players=5)
    table.play(0, "5H 6H")
    events = table.play(3, "7D")
    assert calls(events) == [("pass*", 1), ("pass*", 2), ("play", 3)]
    inferred = of_type(events, "pass")
    assert all(e.data == {"seat": e.data["seat"], "inferred": True} for e in inferred)
    assert not any(e.is_table_action for e in inferred) and of_type(events, "play")[0].is_table_action
    assert table.view["deal"]["turn"] == 4 and table.view["deal"]["passed"] == []


def test_inferred_passes_go_round_the_table() -> None:
    table = dealt(players=4)
    table.play(0, "5H")
    table.play(2, "6H")  # seat 1 passes
    events = table.play(1, "7H")  # seats 3 and 0 pass, round the table
    assert calls(events) == [("pass*", 3), ("pass*", 0), ("play", 1)]


def test_a_play_from_the_seat_that_stopped_blocks_the_run_and_restarts_it() -> None:
    table = dealt(players=3)
    table.play(0, "5H 6H")
    events = table.play(0, "2S 3S")  # seats 1 and 2 pass; seat 0 starts a new run
    assert calls(events) == [("pass*", 1), ("pass*", 2), ("play", 0)]
    assert table.view["deal"]["run"] == cards("2S 3S") and table.view["deal"]["turn"] == 1
    assert table.deal_state.laying_turns == (2, 0, 0)


def test_a_play_from_the_seat_that_stopped_starts_a_new_run_even_with_the_wanted_rank() -> None:
    """The inferred passes block the run first, so the 7 opens a new run rather than continuing."""
    table = dealt(players=3)
    table.play(0, "5H 6H")
    table.play(0, "7C 8C")
    assert table.view["deal"]["run"] == cards("7C 8C")


def test_a_play_from_the_first_passer_completes_the_round_with_restarter_first_passer() -> None:
    table = dealt(players=4, rules={"profile": "classic", "restarter": "first_passer"})
    table.play(0, "5H 6H")
    table.pass_(1)
    events = table.play(1, "QD KD AS")  # seats 2 and 3 pass; the first passer restarts
    assert calls(events) == [("pass*", 2), ("pass*", 3), ("play", 1)]
    assert table.view["deal"]["run"] == ["AS"] and table.view["deal"]["turn"] == 2


def test_with_restarter_last_player_the_first_passer_may_not_restart() -> None:
    table = dealt(players=4)
    table.play(0, "5H 6H")
    table.pass_(1)
    refusal = table.refuse({"type": "play", "seat": 1, "cards": ["QD"]})
    assert refusal.code == "not-your-turn" and refusal.params["turn"] == 0


def test_with_restarter_first_passer_the_stopper_may_not_restart() -> None:
    table = dealt(players=3, rules={"profile": "classic", "restarter": "first_passer"})
    table.play(0, "5H 6H")
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["2S"]})
    assert refusal.code == "not-your-turn" and refusal.params["turn"] == 1


def test_no_passes_are_inferred_when_a_new_run_starts() -> None:
    table = dealt(players=3)
    refusal = table.refuse({"type": "play", "seat": 2, "cards": ["2S"]})
    assert refusal.code == "not-your-turn" and refusal.params["turn"] == 0


def test_passes_are_refused_out_of_turn_and_when_nothing_is_wanted() -> None:
    table = dealt(players=3)
    assert table.refuse({"type": "pass", "seat": 0}).code == "cannot-pass"
    table.play(0, "5H")
    refusal = table.refuse({"type": "pass", "seat": 2})
    assert refusal.code == "not-your-turn" and refusal.params["turn"] == 1
    assert table.refuse({"type": "pass", "seat": 0}).code == "not-your-turn"


# --- blocked: skip ---------------------------------------------------------------------------------------
def test_blocked_skip_moves_the_wanted_rank_up_for_the_last_player() -> None:
    table = dealt(players=3, rules="skip")
    table.play(0, "5H 6H")
    table.pass_(1)
    table.pass_(2)
    deal = table.view["deal"]
    assert deal["expected"] == "8" and deal["turn"] == 0 and deal["run"] == cards("5H 6H")
    table.play(0, "8C")
    assert table.view["deal"]["expected"] == "9" and table.view["deal"]["run"] == cards("5H 6H 8C")


def test_blocked_skip_goes_on_skipping_while_everybody_passes() -> None:
    table = dealt(players=3, rules="skip")
    table.play(0, "5H 6H")
    for seat in (1, 2, 0, 1, 2):
        table.pass_(seat)
    assert table.view["deal"]["expected"] == "9" and table.view["deal"]["turn"] == 0


def test_blocked_skip_restarts_when_the_king_is_missing() -> None:
    table = dealt(players=3, rules="skip")
    table.play(0, "JH QH")
    table.pass_(1)
    table.pass_(2)
    deal = table.view["deal"]
    assert deal["expected"] is None and deal["turn"] == 0 and deal["run"] == []


def test_blocked_skip_through_inferred_passes() -> None:
    table = dealt(players=3, rules="skip")
    table.play(0, "5H 6H")
    events = table.play(0, "8C")  # seats 1 and 2 pass, the 7 is skipped, seat 0 lays the 8
    assert calls(events) == [("pass*", 1), ("pass*", 2), ("play", 0)]
    assert table.view["deal"]["run"] == cards("5H 6H 8C")


def test_blocked_skip_judges_the_play_against_the_skipped_rank() -> None:
    table = dealt(players=3, rules="skip")
    table.play(0, "5H 6H")
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["7C"]})
    assert refusal.code == "out-of-sequence" and refusal.params["expected"] == "8"
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["2C"]})
    assert refusal.code == "out-of-sequence"


def test_a_play_from_the_first_passer_skips_the_rank_and_goes_on_inferring() -> None:
    """The round of passes completes, the 7 is skipped and the last player (seat 0) is to act;
    the play is judged in that situation: seat 0's pass is inferred too and the 8 follows."""
    table = dealt(players=3, rules="skip")
    table.play(0, "5H 6H")
    table.pass_(1)
    events = table.play(1, "8D")
    assert calls(events) == [("pass*", 2), ("pass*", 0), ("play", 1)]
    assert table.view["deal"]["run"] == cards("5H 6H 8D") and table.view["deal"]["turn"] == 2


def test_a_skipped_rank_held_by_the_last_player_must_be_played() -> None:
    hands = fill_hands(3, 15, {0: "5H 6H 8C", 1: "8D", 2: "9D"}, talon="7C 7D 7H 7S")
    table = dealt(players=3, rules="skip", hands=hands)
    table.play(0, "5H 6H")
    table.pass_(1)
    refusal = table.refuse({"type": "play", "seat": 1, "cards": ["8D"]})
    assert refusal.code == "must-continue" and refusal.params["seat"] == 0


def test_after_a_skip_the_other_seats_may_continue() -> None:
    table = dealt(players=3, rules="skip")
    table.play(0, "5H 6H")
    table.pass_(1)
    table.pass_(2)
    events = table.play(1, "8D")  # seat 0 passes the 8
    assert calls(events) == [("pass*", 0), ("play", 1)]


# --- opening lowest --------------------------------------------------------------------------------------
def test_the_deal_opens_with_first_hands_lowest_rank() -> None:
    hands = fill_hands(3, 15, {0: "2C 2D 5S 9H", 1: "AC AD AH AS"})
    table = dealt(rules={"profile": "hearts", "may_stop": True}, hands=hands)
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["5S"]})
    assert refusal.code == "not-lowest" and refusal.params["card"] == "5S"
    table.play(0, "2D")


def test_only_the_very_first_card_must_be_the_lowest() -> None:
    hands = fill_hands(3, 15, {0: "2C 3C KD 9H", 1: "AC AD AH AS 10S", 2: "10H 10C"})
    table = dealt(rules={"profile": "hearts", "may_stop": True}, hands=hands)
    table.play(0, "2C 3C")
    table.pass_(1)
    table.pass_(2)  # the first passer, seat 1, restarts with any card
    table.play(1, "10S")
    assert table.view["deal"]["expected"] == "J" and table.view["deal"]["run"] == ["10S"]


def test_opening_lowest_is_not_checked_when_hands_are_not_known() -> None:
    table = dealt(rules="hearts")
    table.play(0, "9H")  # what first hand holds is not known
    assert table.view["deal"]["run"] == ["9H"]


# --- may_stop: false -------------------------------------------------------------------------------------
def test_a_player_who_holds_the_next_card_must_not_stop() -> None:
    hands = fill_hands(3, 15, {0: "5H 6H 7C", 1: "8C", 2: "8D"}, talon="8H 8S")
    table = dealt(rules="skip", hands=hands)
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["5H", "6H"]})
    assert refusal.code == "must-continue" and refusal.params["seat"] == 0
    table.play(0, "5H 6H 7C")


def test_a_player_who_holds_the_wanted_card_must_not_pass() -> None:
    hands = fill_hands(3, 15, {0: "5H 6H", 1: "7C", 2: "7D 8D"}, talon="7H 7S")
    table = dealt(rules="skip", hands=hands)
    table.play(0, "5H 6H")
    assert table.refuse({"type": "pass", "seat": 1}).code == "must-continue"


def test_an_inferred_pass_of_a_player_holding_the_wanted_card_is_refused() -> None:
    hands = fill_hands(3, 15, {0: "5H 6H", 1: "7C", 2: "7D 8D"}, talon="7H 7S")
    table = dealt(rules="skip", hands=hands)
    table.play(0, "5H 6H")
    refusal = table.refuse({"type": "play", "seat": 2, "cards": ["7D"]})
    assert refusal.code == "must-continue" and refusal.params["seat"] == 1


def test_may_stop_true_lets_a_player_stop_and_pass_with_the_card() -> None:
    hands = fill_hands(3, 15, {0: "5H 6H 7C", 1: "8C", 2: "8D"}, talon="8H 8S")
    table = dealt(rules="classic", hands=hands)
    table.play(0, "5H 6H")  # seat 0 stops, holding the 7 the run wants
    assert [event.data for event in table.pass_(1) + table.pass_(2)] == [{"seat": 1}, {"seat": 2}]
    deal = table.deal_state
    # both others passed: the run is blocked, and seat 0, who laid last, opens the next one
    assert (deal.run, deal.expected, deal.passers, deal.turn) == ((), None, (), 0)


def test_must_continue_is_not_checked_without_hands() -> None:
    table = dealt(rules="skip")
    table.play(0, "5H 6H")
    assert [event.data for event in table.pass_(1)] == [{"seat": 1}]
    deal = table.deal_state
    assert (deal.run, deal.expected, deal.passers, deal.turn) == (("5H", "6H"), 7, (1,), 2)


# --- honours ---------------------------------------------------------------------------------------------
def test_an_announced_honour_takes_its_box() -> None:
    table = dealt()
    events = table.play(0, "9H 10D JC", announced="10D JC")
    assert of_type(events, "play")[0].data["announced"] == ["10D", "JC"]
    assert transfers(events) == [("box:10D", "seat:0", 3, "take"), ("box:JC", "seat:0", 6, "take")]
    assert table.board == {"10D": 0, "JC": 0, "QS": 9, "KH": 12, "7D": 15}
    assert table.balances == [85 + 3 + 6, 85, 85]


def test_announced_honours_are_recorded_in_card_order() -> None:
    table = dealt()
    events = table.play(0, "9H 10D JC", announced="JC 10D JC")
    assert of_type(events, "play")[0].data["announced"] == ["10D", "JC"]


def test_an_honour_played_without_its_announcement_leaves_the_box() -> None:
    table = dealt()
    events = table.play(0, "6C 7D 8C")
    assert transfers(events) == []
    assert of_type(events, "play")[0].data["announced"] == []
    assert table.board["7D"] == 15 and table.balances == [85, 85, 85]


def test_only_the_boards_honours_may_be_announced() -> None:
    table = dealt(rules="hearts")
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["QS"], "announced": ["QS"]})
    assert refusal.code == "not-an-honour" and refusal.params["card"] == "QS"
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["9H"], "announced": ["9H"]})
    assert refusal.code == "not-an-honour"
    events = table.play(0, "QH", announced="QH")
    assert transfers(events) == [("box:QH", "seat:0", 9, "take")]


def test_an_announced_honour_must_be_played() -> None:
    table = dealt()
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["9H"], "announced": ["10D"]})
    assert refusal.code == "announced-not-played" and refusal.params["card"] == "10D"


def test_an_honour_box_grows_while_nobody_takes_it() -> None:
    table = Table(2, "hearts", 100)
    table.deal()
    table.play(0, "AS 2S 3S 4S 5S 6S 7D 8S 9S 10S JS QS KD AC 2C 3C 4C 5C 6C 7C 8C 9C")  # 7D forgotten
    assert table.state.status == "ready" and table.board["7D"] == 10
    table.deal()
    assert table.board["7D"] == 20


# --- refusals -----------------------------------------------------------------------------------------------
def test_a_card_cannot_be_played_twice() -> None:
    table = dealt()
    table.play(0, "5H 6H")
    refusal = table.refuse(
        {"type": "play", "seat": 1, "cards": ["7C", "8C", "9C", "10C", "JC", "QC", "KC", "5H"]}
    )
    assert refusal.code == "card-already-played" and refusal.params["card"] == "5H"
    refusal = table.refuse({"type": "play", "seat": 1, "cards": ["7C", "7C"]})
    assert refusal.code == "card-already-played"


def test_a_card_must_be_in_the_players_hand() -> None:
    hands = fill_hands(3, 15, {0: "5H 6H", 1: "7C"})
    table = dealt(hands=hands)
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["7C"]})
    assert refusal.code == "card-not-in-hand" and refusal.params["card"] == "7C"
    talon_card = min(table.deal_state.talon or ())
    refusal = table.refuse({"type": "play", "seat": 0, "cards": [talon_card]})
    assert refusal.code == "card-not-in-hand" and "talon" in said(refusal)


def test_a_known_talon_card_cannot_be_played_in_partial_information() -> None:
    table = Table(3)
    table.deal(talon=cards("AS 2S 3S 4S 5S 6S 7S"))
    assert table.refuse({"type": "play", "seat": 0, "cards": ["3S"]}).code == "card-not-in-hand"
    table.play(0, "3H")


def test_a_player_cannot_lay_more_cards_than_they_hold() -> None:
    table = dealt(players=3)  # 15 cards each
    sixteen = cards("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AD 2D 3D")
    refusal = table.refuse({"type": "play", "seat": 0, "cards": sixteen})
    assert refusal.code == "too-many-cards"
    table.play(0, "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC")
    assert table.view["deal"]["hand_sizes"] == [2, 15, 15]
    assert table.refuse({"type": "play", "seat": 0, "cards": cards("AD 2D 3D")}).code == "too-many-cards"


def test_a_seat_must_exist_and_fields_must_be_well_formed() -> None:
    table = dealt()
    assert table.refuse({"type": "play", "seat": 3, "cards": ["5H"]}).code == "unknown-seat"
    assert table.refuse({"type": "play", "seat": -1, "cards": ["5H"]}).code == "unknown-seat"
    bad: list[Any] = [
        {"type": "play", "seat": "0", "cards": ["5H"]},
        {"type": "play", "seat": True, "cards": ["5H"]},
        {"type": "play", "seat": 0, "cards": []},
        {"type": "play", "seat": 0, "cards": "5H"},
        {"type": "play", "seat": 0},
        {"type": "play", "cards": ["5H"]},
        {"type": "play", "seat": 0, "cards": ["5H"], "colour": "red"},
        {"type": "play", "seat": 0, "cards": ["5H"], "announced": "5H"},
        {"type": "pass"},
        {"type": "shuffle"},
        {"seat": 0},
        "play",
    ]
    for action in bad:
        refusal = table.refuse(action)
        assert refusal.code == "invalid-action", action
    assert table.refuse({"type": "play", "seat": 0, "cards": ["5X"]}).code == "invalid-card"


def test_nothing_is_played_before_a_deal() -> None:
    table = Table(3)
    assert table.refuse({"type": "play", "seat": 0, "cards": ["5H"]}).code == "no-deal-in-progress"
    assert table.refuse({"type": "pass", "seat": 0}).code == "no-deal-in-progress"
    assert table.refuse({"type": "reveal", "seat": 0, "cards": ["5H"]}).code == "no-deal-in-progress"


def test_a_batch_is_all_or_nothing() -> None:
    table = dealt()
    refusal = table.refuse(
        {"type": "play", "seat": 0, "cards": ["5H"]},
        {"type": "play", "seat": 1, "cards": ["6H"]},
        {"type": "play", "seat": 2, "cards": ["9H"]},
    )
    assert refusal.code == "out-of-sequence" and refusal.params["index"] == 2
    assert table.view["deal"]["run"] == [] and len(table.log) == 17
    events = table.do(
        {"type": "play", "seat": 0, "cards": ["5H"]},
        {"type": "pass", "seat": 1},
        {"type": "play", "seat": 2, "cards": ["6H"]},
    )
    assert calls(events) == [("play", 0), ("pass", 1), ("play", 2)]
