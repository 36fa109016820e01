"""Going out and settling a deal (SPEC §3.3), and every way a game ends.

Most deals here are dealt from a three-seat table with four cards a hand
(``deal_table: {"3": [4, 40]}``), so every chip can be followed by hand.
After the antes of a 100-chip game each seat holds 85 and the boxes hold
10D 3, JC 6, QS 9, KH 12, 7D 15.
"""

from __future__ import annotations

from typing import Any

from support.sentences import said

from .helpers import Table, cards, of_type, transfers

SMALL = {"players": [3], "deal_table": {"3": [4, 40]}}
# Seat 0 goes out in its second turn; seat 1 keeps 9H QS 8S (27 points), seat 2 keeps KH 7D 2S (19 points).
HANDS = ["AC 2C 5C 6C", "3D 9H QS 8S", "4D KH 7D 2S"]


def small(profile: str = "classic", chips: int = 100, **overrides: Any) -> Table:
    return Table(3, {"profile": profile, **SMALL, **overrides}, chips)


def two_turns(table: Table, hands: list[str] = HANDS) -> list:
    """Seat 0: A 2 "sans 3"; seat 1: 3; seat 2: 4; seat 0: 5 6 and out."""
    table.deal(hands)
    table.play(0, "AC 2C")
    table.play(1, "3D")
    table.play(2, "4D")
    return table.play(0, "5C 6C")


def one_turn(table: Table) -> list:
    """Seat 0 lays A 2 3 4 in its first turn: a Grand Opéra."""
    table.deal(["AC 2C 3C 4C", "3D 9H QS 8S", "4D KH 7D 2S"])
    return table.play(0, "AC 2C 3C 4C")


# --- payments ---------------------------------------------------------------------------------------
def test_losers_pay_their_points_then_bete_double_pays_each_box_amount() -> None:
    """Payments: seat 1 pays 9+10+8 = 27, seat 2 pays 10+7+2 = 19, so seat 0 has 85+46 = 131.

    Bêtes (double): seat 1 holds QS, pays the 9 of its box (49 left, box 18); seat 2 holds KH and 7D,
    pays 12 and 15 (85-19-27 = 39 left; boxes 24 and 30).
    """
    table = small()
    events = two_turns(table)
    assert transfers(events) == [
        ("seat:1", "seat:0", 27, "payment"),
        ("seat:2", "seat:0", 19, "payment"),
        ("seat:1", "box:QS", 9, "bete"),
        ("seat:2", "box:KH", 12, "bete"),
        ("seat:2", "box:7D", 15, "bete"),
    ]
    assert table.balances == [131, 49, 39]
    assert table.board == {"10D": 3, "JC": 6, "QS": 18, "KH": 24, "7D": 30}
    ended = of_type(events, "deal_ended")[0]
    assert events[-1] is ended
    assert ended.data == {
        "number": 1,
        "winner": 0,
        "grand_opera": False,
        "payments": [
            {"seat": 1, "cards_left": 3, "points": 27, "amount": 27, "paid": 27},
            {"seat": 2, "cards_left": 3, "points": 19, "amount": 19, "paid": 19},
        ],
        "betes": [
            {"seat": 1, "card": "QS", "amount": 9, "paid": 9},
            {"seat": 2, "card": "KH", "amount": 12, "paid": 12},
            {"seat": 2, "card": "7D", "amount": 15, "paid": 15},
        ],
        "shortfalls": [],
        "hands_left": {"1": ["8S", "9H", "QS"], "2": ["2S", "7D", "KH"]},
    }
    assert table.state.status == "ready" and table.state.deals_played == 1
    view = table.view
    assert view["deal"]["winner"] == 0 and view["deal"]["turn"] is None and view["deal"]["can_undo"] is True
    assert view["undo"] == {"type": "play", "seat": 0, "withdraws_settlement": True}  # until the next deal
    assert view["next_dealer"] == 0 and view["result"] is None


def test_payment_by_cards_counts_one_chip_a_card() -> None:
    table = small("cards")
    events = two_turns(table)
    assert transfers(events)[:2] == [("seat:1", "seat:0", 3, "payment"), ("seat:2", "seat:0", 3, "payment")]
    assert of_type(events, "deal_ended")[0].data["payments"][0] == {
        "seat": 1,
        "cards_left": 3,
        "points": 27,
        "amount": 3,
        "paid": 3,
    }


def test_the_point_value_multiplies_card_payments() -> None:
    table = small(point_value=2, bete="none")
    events = two_turns(table)
    assert transfers(events) == [("seat:1", "seat:0", 54, "payment"), ("seat:2", "seat:0", 38, "payment")]
    assert table.balances == [85 + 92, 85 - 54, 85 - 38]


def test_the_losers_pay_in_play_order_from_the_winners_left() -> None:
    table = small(bete="none")
    table.deal(["3D 9H QS 8S", "AC 2C 5C 6C", "4D KH 7D 2S"], dealer=0)  # seat 1 is first hand
    table.play(1, "AC 2C")
    table.play(0, "3D")  # seat 2 passes
    table.play(2, "4D")  # seat 1 passes
    events = table.play(1, "5C 6C")  # seat 0 passes; seat 1 goes out
    assert [t[0] for t in transfers(events)] == ["seat:2", "seat:0"]
    assert [p["seat"] for p in of_type(events, "deal_ended")[0].data["payments"]] == [2, 0]


def test_bete_face_pays_the_honours_stake() -> None:
    table = small(bete="face", stake_unit=2)
    events = two_turns(table)
    # antes doubled: boxes 6 12 18 24 30, seats 70; stakes × 2: QS 6, KH 8, 7D 10
    assert transfers(events)[2:] == [
        ("seat:1", "box:QS", 6, "bete"),
        ("seat:2", "box:KH", 8, "bete"),
        ("seat:2", "box:7D", 10, "bete"),
    ]
    assert table.board == {"10D": 6, "JC": 12, "QS": 24, "KH": 32, "7D": 40}


def test_bete_none_pays_nothing_into_the_boxes() -> None:
    table = small(bete="none")
    events = two_turns(table)
    assert [t[3] for t in transfers(events)] == ["payment", "payment"]
    assert of_type(events, "deal_ended")[0].data["betes"] == []
    assert table.board == {"10D": 3, "JC": 6, "QS": 9, "KH": 12, "7D": 15}


# --- Grand Opéra --------------------------------------------------------------------------------------
def test_grand_opera_sweep_takes_every_box_and_bete_double_pays_the_box_as_it_stood() -> None:
    """Seat 0 lays its whole hand in its first turn.

    Payments: seat 1 pays 3+9+10+8 = 30, seat 2 pays 4+10+7+2 = 23 → seat 0: 85 + 53 = 138.
    Sweep: seat 0 takes 3+6+9+12+15 = 45 → 183, boxes all 0.
    Bêtes double, with the boxes as they stood when seat 0 went out (before the sweep):
    seat 1 QS 9 → 85-30-9 = 46; seat 2 KH 12, 7D 15 → 85-23-27 = 35. Boxes: QS 9, KH 12, 7D 15.
    """
    table = small()
    events = one_turn(table)
    assert transfers(events) == [
        ("seat:1", "seat:0", 30, "payment"),
        ("seat:2", "seat:0", 23, "payment"),
        ("box:10D", "seat:0", 3, "grand_opera"),
        ("box:JC", "seat:0", 6, "grand_opera"),
        ("box:QS", "seat:0", 9, "grand_opera"),
        ("box:KH", "seat:0", 12, "grand_opera"),
        ("box:7D", "seat:0", 15, "grand_opera"),
        ("seat:1", "box:QS", 9, "bete"),
        ("seat:2", "box:KH", 12, "bete"),
        ("seat:2", "box:7D", 15, "bete"),
    ]
    assert table.balances == [183, 46, 35]
    assert table.board == {"10D": 0, "JC": 0, "QS": 9, "KH": 12, "7D": 15}
    assert of_type(events, "deal_ended")[0].data["grand_opera"] is True
    assert table.view["deal"]["grand_opera"] is True


def test_grand_opera_double_doubles_the_payments_and_sweeps_nothing() -> None:
    table = small(grand_opera={"reward": "double"}, bete="none")
    events = one_turn(table)
    assert transfers(events) == [("seat:1", "seat:0", 60, "payment"), ("seat:2", "seat:0", 46, "payment")]
    payments = of_type(events, "deal_ended")[0].data["payments"]
    assert [(p["points"], p["amount"]) for p in payments] == [(30, 60), (23, 46)]


def test_grand_opera_none_is_recorded_but_pays_nothing_more() -> None:
    table = small(grand_opera={"reward": "none"}, bete="none")
    events = one_turn(table)
    assert transfers(events) == [("seat:1", "seat:0", 30, "payment"), ("seat:2", "seat:0", 23, "payment")]
    assert of_type(events, "deal_ended")[0].data["grand_opera"] is True


def test_a_turn_that_spans_two_plays_after_a_king_is_still_one_turn() -> None:
    table = small(bete="none")
    table.deal(["QC KC 5D 6D", "3D 9H QS 8S", "4D KH 7D 2S"])
    table.play(0, "QC KC")
    events = table.play(0, "5D 6D")
    assert of_type(events, "deal_ended")[0].data["grand_opera"] is True


def test_going_out_in_a_second_turn_is_no_grand_opera_first_turn() -> None:
    table = small()
    events = two_turns(table)
    assert of_type(events, "deal_ended")[0].data["grand_opera"] is False


def _alone(table: Table) -> list:
    """Seat 0 lays A 2, both others pass, seat 0 restarts with 5 6 and goes out: nobody else laid a card."""
    table.deal(HANDS)
    table.play(0, "AC 2C")
    return table.play(0, "5C 6C")


def test_grand_opera_no_other_plays() -> None:
    table = small(grand_opera={"condition": "no_other_plays"}, bete="none")
    events = _alone(table)
    assert of_type(events, "deal_ended")[0].data["grand_opera"] is True
    assert ("box:7D", "seat:0", 15, "grand_opera") in transfers(events)
    table = small(grand_opera={"condition": "first_turn"}, bete="none")
    assert of_type(_alone(table), "deal_ended")[0].data["grand_opera"] is False


def test_no_other_plays_fails_once_another_seat_laid_a_card() -> None:
    table = small(grand_opera={"condition": "no_other_plays"})
    assert of_type(two_turns(table), "deal_ended")[0].data["grand_opera"] is False


def test_a_seat_that_passed_and_then_lays_its_hand_in_one_turn_makes_a_grand_opera() -> None:
    """The core counts the turns in which a seat laid cards (SPEC §3.2: "a turn is one player laying
    one or more cards"), so a pass before does not spoil a Grand Opéra ``first_turn``."""
    table = small(bete="none")
    table.deal(["9C 2D KH 7D", "3C 4C 5C 6C", "4D QS 8S 2S"])
    table.play(0, "9C")
    table.pass_(1)
    table.pass_(2)  # blocked: seat 0 restarts
    table.play(0, "2D")
    events = table.play(1, "3C 4C 5C 6C")
    assert of_type(events, "deal_ended")[0].data["grand_opera"] is True
    assert ("box:10D", "seat:1", 3, "grand_opera") in transfers(events)


# --- shortfalls ---------------------------------------------------------------------------------------
def test_a_shortfall_pays_what_it_can_and_ends_the_game() -> None:
    """20 chips each: after the antes every seat has 5.

    Seat 1 owes 27 and pays its 5; its bête on QS (9) finds nothing left. Seat 2 owes 19 and pays 5;
    its bêtes on KH (12) and 7D (15) find nothing. Seat 0: 5 + 10 = 15; the boxes keep their 45.
    The game ends after the deal: seat 0 first, seats 1 and 2 share the second rank.
    """
    table = small(chips=20)
    events = two_turns(table)
    assert transfers(events) == [("seat:1", "seat:0", 5, "payment"), ("seat:2", "seat:0", 5, "payment")]
    ended = of_type(events, "deal_ended")[0].data
    assert ended["shortfalls"] == [
        {"seat": 1, "reason": "payment", "owed": 27, "paid": 5},
        {"seat": 2, "reason": "payment", "owed": 19, "paid": 5},
        {"seat": 1, "reason": "bete", "owed": 9, "paid": 0},
        {"seat": 2, "reason": "bete", "owed": 12, "paid": 0},
        {"seat": 2, "reason": "bete", "owed": 15, "paid": 0},
    ]
    assert [p["paid"] for p in ended["payments"]] == [5, 5]
    assert [b["paid"] for b in ended["betes"]] == [0, 0, 0]
    assert table.balances == [15, 0, 0]
    game_ended = events[-1]
    assert game_ended.type == "game_ended" and events[-2].type == "deal_ended"
    assert game_ended.data == {
        "reason": "shortfall",
        "standings": [
            {"seat": 0, "name": "Ana", "chips": 15, "rank": 1},
            {"seat": 1, "name": "Ben", "chips": 0, "rank": 2},
            {"seat": 2, "name": "Chloé", "chips": 0, "rank": 2},
        ],
        "board_left": {"10D": 3, "JC": 6, "QS": 9, "KH": 12, "7D": 15},
    }
    assert table.state.status == "ended"
    assert table.view["result"] == game_ended.data
    assert table.view["next_dealer"] is None


def test_a_bete_shortfall_after_a_full_payment() -> None:
    """30 chips: 15 after the antes. Seat 1 pays 3 (cards) and has 12 for the 9 of QS: 3 left.
    Seat 2 pays 3, has 12: KH's 12 in full, then nothing for 7D's 15."""
    table = small("cards", chips=30)
    events = two_turns(table)
    ended = of_type(events, "deal_ended")[0].data
    assert ended["shortfalls"] == [{"seat": 2, "reason": "bete", "owed": 15, "paid": 0}]
    assert table.balances == [21, 3, 0]
    assert events[-1].data["reason"] == "shortfall"


def test_with_negative_balances_the_whole_amount_is_paid_and_play_goes_on() -> None:
    table = small(chips=20, shortfall="negative")
    events = two_turns(table)
    assert transfers(events)[:2] == [("seat:1", "seat:0", 27, "payment"), ("seat:2", "seat:0", 19, "payment")]
    assert of_type(events, "deal_ended")[0].data["shortfalls"] == []
    assert table.balances == [5 + 46, 5 - 27 - 9, 5 - 19 - 27]
    assert table.state.status == "ready"
    table.deal()
    assert table.balances == [51 - 15, -31 - 15, -41 - 15]


# --- the end of a game ---------------------------------------------------------------------------------
def test_the_game_ends_when_a_player_cannot_afford_the_next_ante() -> None:
    """20 chips, one chip a card, no bête: seats 1 and 2 pay 3 and keep 2; seat 0 has 11. Nobody has 15."""
    table = small("cards", chips=20, bete="none")
    events = two_turns(table)
    assert table.balances == [11, 2, 2]
    assert events[-1].type == "game_ended" and events[-1].data["reason"] == "cannot_ante"
    assert table.refuse({"type": "deal"}).code == "game-ended"


def test_cannot_ante_looks_only_at_the_dealer_with_ante_dealer() -> None:
    table = small("cards", chips=20, bete="none", ante="dealer")
    two_turns(table)
    # only seat 2 anted (5 left) and paid 3: 2 chips; the next dealer is seat 0 with 20 + 6 = 26
    assert table.balances == [26, 17, 2]
    assert table.state.status == "ready"
    table.deal()
    assert table.balances == [11, 17, 2]


def test_the_game_ends_after_max_deals() -> None:
    """Deal 1 (bête none): seat 0 wins 27 + 19 → 131, 58, 66. Deal 2 (dealer seat 0, first hand seat 1):
    antes → 116, 43, 51 and boxes 6 12 18 24 30. Seat 1 lays its hand at once (Grand Opéra, sweep):
    seat 2 pays 4+10+7+2 = 23 and seat 0 pays 3+9+10+8 = 30 → seat 1: 43 + 53 + 90 = 186."""
    table = small(max_deals=2, bete="none")
    two_turns(table)
    assert table.balances == [131, 58, 66] and table.state.status == "ready"
    table.deal(["3D 9H QS 8S", "AC 2C 3C 4C", "4D KH 7D 2S"])
    events = table.play(1, "AC 2C 3C 4C")
    assert events[-1].type == "game_ended"
    assert events[-1].data["reason"] == "max_deals"
    assert table.balances == [86, 186, 28]
    assert [(row["seat"], row["chips"], row["rank"]) for row in events[-1].data["standings"]] == [
        (1, 186, 1),
        (0, 86, 2),
        (2, 28, 3),
    ]
    assert events[-1].data["board_left"] == {"10D": 0, "JC": 0, "QS": 0, "KH": 0, "7D": 0}


def test_max_deals_comes_before_cannot_ante() -> None:
    """When the last deal is played nobody has to ante again, so the reason is max_deals."""
    table = small("cards", chips=20, bete="none", max_deals=1)
    events = two_turns(table)
    assert table.balances == [11, 2, 2]
    assert events[-1].data["reason"] == "max_deals"


def test_the_table_may_agree_to_end_between_deals() -> None:
    table = small(bete="none")
    two_turns(table)
    events = table.do({"type": "end", "reason": "last train"})
    assert [e.type for e in events] == ["end", "game_ended"]
    assert events[0].data == {"reason": "last train"}
    assert events[1].data["reason"] == "agreed"
    assert [row["seat"] for row in events[1].data["standings"]] == [0, 2, 1]
    assert table.state.status == "ended"
    for action in (
        {"type": "deal"},
        {"type": "end"},
        {"type": "undo"},
        {"type": "adjust", "from": 0, "to": 1, "amount": 1},
        {"type": "play", "seat": 0, "cards": ["AS"]},
        {"type": "pass", "seat": 0},
        {"type": "reveal", "seat": 0, "cards": ["AS"]},
    ):
        assert table.refuse(action).code == "game-ended", action


def test_an_end_before_any_deal_keeps_everybody_level() -> None:
    table = Table(3, "classic", 60)
    events = table.do({"type": "end"})
    assert events[0].data == {"reason": ""}
    assert [row["rank"] for row in events[1].data["standings"]] == [1, 1, 1]
    assert events[1].data["board_left"] == {"10D": 0, "JC": 0, "QS": 0, "KH": 0, "7D": 0}


def test_the_table_cannot_end_during_a_deal() -> None:
    table = small()
    table.deal(HANDS)
    assert table.refuse({"type": "end"}).code == "deal-in-progress"
    assert table.refuse({"type": "end", "why": "x"}).code == "invalid-action"
    assert table.refuse({"type": "end", "reason": 5}).code == "invalid-action"


def test_standings_share_ranks_and_put_most_chips_first() -> None:
    table = Table(4, "classic", 50)
    table.do(
        {"type": "adjust", "from": 0, "to": 2, "amount": 10},
        {"type": "adjust", "from": 1, "to": 3, "amount": 10},
    )
    events = table.do({"type": "end"})
    standings = events[-1].data["standings"]
    assert [(row["seat"], row["chips"], row["rank"]) for row in standings] == [
        (2, 60, 1),
        (3, 60, 1),
        (0, 40, 3),
        (1, 40, 3),
    ]
    assert [row["name"] for row in standings] == ["Chloé", "Denis", "Ana", "Ben"]


# --- partial information: reveals ----------------------------------------------------------------------
def _out_unseen(table: Table) -> None:
    """Partial information: seat 0 lays A 2, seats 1 and 2 lay 3 and 4, seat 0 lays 5 6 and goes out."""
    table.deal()
    table.play(0, "AC 2C")
    table.play(1, "3D")
    table.play(2, "4D")
    table.play(0, "5C 6C")


def test_settlement_waits_for_the_losers_hands() -> None:
    table = small()
    _out_unseen(table)
    assert table.state.status == "revealing"
    view = table.view
    assert view["status"] == "revealing"
    assert view["deal"]["winner"] == 0 and view["deal"]["awaiting_reveal"] == [1, 2]
    assert view["deal"]["turn"] is None and view["deal"]["expected"] is None
    assert table.balances == [85, 85, 85]
    assert table.refuse({"type": "play", "seat": 1, "cards": ["9H"]}).code == "awaiting-reveal"
    assert table.refuse({"type": "pass", "seat": 1}).code == "awaiting-reveal"
    assert table.refuse({"type": "deal"}).code == "deal-in-progress"
    assert table.refuse({"type": "end"}).code == "deal-in-progress"
    assert table.refuse({"type": "adjust", "from": 0, "to": 1, "amount": 1}).code == "deal-in-progress"


def test_reveals_are_checked() -> None:
    table = small()
    _out_unseen(table)
    checks = [
        ({"seat": 1, "cards": ["9H", "QS"]}, "reveal-mismatch"),  # 2 cards, 3 left
        ({"seat": 1, "cards": ["9H", "QS", "8S", "2S"]}, "reveal-mismatch"),
        ({"seat": 1, "cards": ["9H", "9H", "8S"]}, "reveal-mismatch"),
        ({"seat": 1, "cards": ["9H", "QS", "5C"]}, "card-already-played"),
        ({"seat": 0, "cards": []}, "no-reveal-needed"),  # the winner has nothing to show
        ({"seat": 5, "cards": []}, "unknown-seat"),
        ({"seat": 1, "cards": ["9H", "QS", "ZZ"]}, "invalid-card"),
        ({"seat": 1, "cards": "9H QS 8S"}, "invalid-action"),
        ({"seat": 1}, "invalid-action"),
    ]
    for fields, code in checks:
        assert table.refuse({"type": "reveal", **fields}).code == code, fields  # type: ignore[dict-item]
    table.reveal(1, "9H QS 8S")
    assert table.view["deal"]["awaiting_reveal"] == [2]
    assert table.refuse({"type": "reveal", "seat": 1, "cards": ["9H", "QS", "8S"]}).code == "no-reveal-needed"
    refusal = table.refuse({"type": "reveal", "seat": 2, "cards": ["KH", "7D", "QS"]})
    assert refusal.code == "card-already-played" and refusal.params["card"] == "QS"


def test_a_reveal_while_playing_is_refused() -> None:
    table = small()
    table.deal()
    table.play(0, "AC")
    refusal = table.refuse({"type": "reveal", "seat": 1, "cards": ["2C", "3C", "4C", "5C"]})
    assert refusal.code == "no-reveal-needed"


def test_a_known_talon_card_cannot_be_revealed() -> None:
    table = small()
    talon = cards(
        "7S 7H 7C JS QD QH KS KD JH JD 10S 10H 10C 9S 9D 9C 8D 8C 8H 6S 6D 6H 5S 5D 5H 4S "
        "4H 4C 3S 3H 3C 2D 2H AS AD AH 10D JC KC QC"
    )
    table.deal(talon=talon)
    table.play(0, "AC 2C")
    table.play(1, "3D")
    table.play(2, "4D")
    table.play(0, "5C 6C")
    refusal = table.refuse({"type": "reveal", "seat": 1, "cards": ["9H", "QS", "7S"]})
    assert refusal.code == "reveal-mismatch" and "talon" in said(refusal)


def test_the_last_reveal_settles_the_deal() -> None:
    """The same deal as the full-information one above, its losers' hands revealed: same chips."""
    table = small()
    _out_unseen(table)
    assert transfers(table.reveal(2, "KH 7D 2S")) == []  # any order of reveals
    events = table.reveal(1, "QS 9H 8S")
    assert [e.type for e in events][:1] == ["reveal"] and events[-1].type == "deal_ended"
    assert events[0].data == {"seat": 1, "cards": ["QS", "9H", "8S"]}
    assert table.balances == [131, 49, 39]
    assert table.board == {"10D": 3, "JC": 6, "QS": 18, "KH": 24, "7D": 30}
    assert events[-1].data["hands_left"] == {"1": ["8S", "9H", "QS"], "2": ["2S", "7D", "KH"]}
    assert table.state.status == "ready" and table.view["deal"]["awaiting_reveal"] == []


def test_one_chip_a_card_without_bete_settles_without_reveals() -> None:
    table = small("cards", bete="none")
    table.deal()
    table.play(0, "AC 2C")
    table.play(1, "3D")
    table.play(2, "4D")
    events = table.play(0, "5C 6C")
    assert table.state.status == "ready"
    ended = of_type(events, "deal_ended")[0].data
    assert ended["payments"] == [
        {"seat": 1, "cards_left": 3, "points": None, "amount": 3, "paid": 3},
        {"seat": 2, "cards_left": 3, "points": None, "amount": 3, "paid": 3},
    ]
    assert ended["hands_left"] == {} and ended["betes"] == []
    assert table.balances == [91, 82, 82]


def test_hearts_settles_without_reveals() -> None:
    table = Table(3, {"profile": "hearts", **SMALL}, 100)
    table.deal()
    table.play(0, "AC 2C 3C 4C")
    assert table.state.status == "ready"
    assert table.balances == [85 + 8, 81, 81]
