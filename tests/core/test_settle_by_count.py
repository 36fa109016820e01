"""Settling by count (SPEC §4, the ``reveal`` count form): a loser's hand told as the table says it.

The deals here are played on a three-seat table with four cards a hand (``deal_table: {"3": [4, 40]}``) and
the hands not given: seat 0 lays A 2 "sans 3", seat 1 lays 3D, seat 2 lays 4D, seat 0 lays 5 6 and goes out.
Seat 1 keeps 9H QS 8S (27 points, QS held), seat 2 keeps KH 7D 2S (19 points, KH and 7D held). After the antes
of a 100-chip game each seat holds 85 and the boxes hold 10D 3, JC 6, QS 9, KH 12, 7D 15.
"""

from __future__ import annotations

from typing import Any

import pytest

from nj_ledger import DECK, execute, replay
from nj_ledger.actions import RevealCount, parse_action
from nj_ledger.audit import audit
from nj_ledger.checks import point_sums
from nj_ledger.events import Event
from nj_ledger.simulator import simulate
from support.sentences import said

from .chained import chained_records
from .helpers import Table, cards, of_type, transfers

SMALL = {"players": [3], "deal_table": {"3": [4, 40]}}
HANDS = ["AC 2C 5C 6C", "3D 9H QS 8S", "4D KH 7D 2S"]
SEAT_1 = {"type": "reveal", "seat": 1, "count": 3, "points": 27, "honours": ["QS"]}
SEAT_2 = {"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]}


def small(profile: str = "classic", **overrides: Any) -> Table:
    return Table(3, {"profile": profile, **SMALL, **overrides}, 100)


def out_unseen(table: Table, **deal: Any) -> None:
    table.do({"type": "deal", **deal})
    table.play(0, "AC 2C")
    table.play(1, "3D")
    table.play(2, "4D")
    table.play(0, "5C 6C")


def talon_known() -> list[str]:
    """The talon of HANDS: told at the deal, it leaves 9H QS 8S KH 7D 2S as the only cards not yet seen."""
    dealt = set(cards(" ".join(HANDS)))
    return [str(card) for card in DECK if str(card) not in dealt]


def settled(events: list[Event]) -> dict[str, Any]:
    """A deal's settlement without the hands it names (a hand told by count names none)."""
    ended = dict(of_type(events, "deal_ended")[0].data)
    ended.pop("hands_left")
    return ended


# --- the form ------------------------------------------------------------------------------------------
def test_the_count_form_is_parsed_into_a_value() -> None:
    action = {"type": "reveal", "seat": 1, "count": 10, "points": 62, "honours": ["kh", "q♠"]}
    assert parse_action(action, 3, ()) == RevealCount(1, 10, 62, ("KH", "QS"))
    assert parse_action({"type": "reveal", "seat": 1, "count": 2, "points": 3}, 3, ()) == RevealCount(1, 2, 3, ())


@pytest.mark.parametrize(("fields", "code", "field"), [
    ({"cards": ["9H"], "count": 1, "points": 9}, "invalid-action", "count"),
    ({"cards": ["9H"], "honours": []}, "invalid-action", "honours"),
    ({"count": 3}, "invalid-action", "points"),
    ({"points": 27}, "invalid-action", "count"),
    ({"honours": ["QS"]}, "invalid-action", "count"),
    ({}, "invalid-action", "cards"),
    ({"count": "3", "points": 27}, "invalid-action", "count"),
    ({"count": True, "points": 27}, "invalid-action", "count"),
    ({"count": 0, "points": 27}, "invalid-action", "count"),
    ({"count": 53, "points": 27}, "invalid-action", "count"),
    ({"count": 3, "points": -1}, "invalid-action", "points"),
    ({"count": 3, "points": 521}, "invalid-action", "points"),
    ({"count": 3, "points": 2.5}, "invalid-action", "points"),
    ({"count": 3, "points": 27, "honours": "QS"}, "invalid-action", "honours"),
    ({"count": 3, "points": 27, "honours": ["QZ"]}, "invalid-card", None),
    ({"count": 3, "points": 27, "colour": "red"}, "invalid-action", None),
])
def test_a_malformed_count_is_refused(fields: dict[str, Any], code: str, field: str | None) -> None:
    table = small()
    out_unseen(table)
    refusal = table.refuse({"type": "reveal", "seat": 1, **fields})
    assert refusal.code == code
    if field is not None:
        assert refusal.params.get("field") == field


def test_the_refusal_of_both_forms_says_why() -> None:
    table = small()
    out_unseen(table)
    refusal = table.refuse({"type": "reveal", "seat": 1, "cards": ["9H", "QS", "8S"], "count": 3, "points": 27})
    assert said(refusal) == "A reveal gives the cards left in hand, or their count ('count'…), not both."


# --- settling from it ----------------------------------------------------------------------------------
def test_a_count_settles_as_the_cards_would() -> None:
    by_cards, by_count = small(), small()
    out_unseen(by_cards)
    out_unseen(by_count)
    by_cards.reveal(1, "9H QS 8S")
    shown = by_cards.reveal(2, "KH 7D 2S")
    assert by_count.do(SEAT_1)[0].data == {"seat": 1, "count": 3, "points": 27, "honours": ["QS"]}
    assert by_count.state.status == "revealing" and by_count.view["deal"]["awaiting_reveal"] == [2]
    told = by_count.do(SEAT_2)
    assert transfers(told) == transfers(shown) == [
        ("seat:1", "seat:0", 27, "payment"),
        ("seat:2", "seat:0", 19, "payment"),
        ("seat:1", "box:QS", 9, "bete"),
        ("seat:2", "box:KH", 12, "bete"),
        ("seat:2", "box:7D", 15, "bete"),
    ]
    assert settled(told) == settled(shown)
    assert of_type(told, "deal_ended")[0].data["hands_left"] == {}
    assert by_count.balances == by_cards.balances == [131, 49, 39]
    assert by_count.board == by_cards.board


def test_one_loser_by_cards_another_by_count() -> None:
    by_cards, mixed = small(), small()
    out_unseen(by_cards)
    out_unseen(mixed)
    by_cards.reveal(1, "9H QS 8S")
    shown = by_cards.reveal(2, "KH 7D 2S")
    mixed.do(SEAT_2)
    told = mixed.reveal(1, "9H QS 8S")
    assert transfers(told) == transfers(shown)
    assert of_type(told, "deal_ended")[0].data["hands_left"] == {"1": cards("8S 9H QS")}
    assert mixed.balances == by_cards.balances


def test_payment_by_cards_uses_the_count() -> None:
    """``payment: cards`` with bêtes: each loser pays 3 (cards), the bêtes as before."""
    table = small("cards", bete="double")
    out_unseen(table)
    table.do({**SEAT_1, "points": 20})  # points are checked, though cards are paid: 9H 8S and QS could be 27
    assert table.refuse({**SEAT_2, "points": 40}).code == "reveal-mismatch"
    events = table.do(SEAT_2)
    assert transfers(events)[:2] == [("seat:1", "seat:0", 3, "payment"), ("seat:2", "seat:0", 3, "payment")]


def test_grand_opera_double_doubles_a_count() -> None:
    """Seat 0 lays A 2 3 4 in its first turn; reward ``double``: seat 1 pays 2 x 27, seat 2 pays 2 x 19."""
    table = small(grand_opera={"condition": "first_turn", "reward": "double"})
    table.deal()
    table.play(0, "AC 2C 3C 4C")
    table.do({**SEAT_1, "count": 4, "points": 30})
    events = table.do({**SEAT_2, "count": 4, "points": 22})
    assert transfers(events)[:2] == [("seat:1", "seat:0", 60, "payment"), ("seat:2", "seat:0", 44, "payment")]
    assert of_type(events, "deal_ended")[0].data["grand_opera"] is True


def test_a_wild_told_held_pays_double_in_1760() -> None:
    """The 1760 rules: a loser still holding the 7D pays double; told with a count, it does too."""
    rules = {"profile": "avantcoureur-1760", "players": [3], "deal_table": {"3": [4, 40]}}
    by_cards, by_count = Table(3, rules, 100), Table(3, rules, 100)
    for table in (by_cards, by_count):
        table.deal()
        table.play(0, "AC 2C 3C 4C")  # suit sequence, Opera: no other player laid a card
    by_cards.reveal(1, "9H QS 8S 5D")
    shown = by_cards.reveal(2, "KH 7D 2S 3S")
    by_count.do({"type": "reveal", "seat": 1, "count": 4, "points": 32, "honours": ["QS"]})
    told = by_count.do({"type": "reveal", "seat": 2, "count": 4, "points": 22, "honours": ["KH", "7D"]})
    assert transfers(told) == transfers(shown)
    assert by_count.balances == by_cards.balances


def test_an_undo_withdraws_a_count() -> None:
    table = small()
    out_unseen(table)
    table.do(SEAT_1)
    assert table.deal_state.counted_hand(1) is not None and "QS" in table.deal_state.seen
    table.do({"type": "undo", "reason": "miscounted"})
    assert table.deal_state.counted == () and "QS" not in table.deal_state.seen
    assert table.view["deal"]["awaiting_reveal"] == [1, 2]
    table.reveal(1, "9H QS 8S")
    table.do(SEAT_2)
    assert table.balances == [131, 49, 39]


def test_the_state_view_keeps_its_shape() -> None:
    by_cards, by_count = small(), small()
    out_unseen(by_cards)
    out_unseen(by_count)
    by_cards.reveal(1, "9H QS 8S")
    by_count.do(SEAT_1)
    assert by_count.view == by_cards.view  # the view shows who is awaited, never the hands shown


# --- what is checked -----------------------------------------------------------------------------------
def test_the_count_is_the_cards_left() -> None:
    table = small()
    out_unseen(table)
    for count in (2, 4):
        refusal = table.refuse({**SEAT_1, "count": count})
        assert refusal.code == "reveal-mismatch"
        assert said(refusal) == f"Ben (seat 1) has 3 cards left, not {count}."


def test_the_points_are_within_what_unseen_cards_make() -> None:
    """Unseen: every card but AC 2C 3D 4D 5C 6C. Three cards and no honour: three aces (3) to three Kings (30);
    with QS held, 10 + two aces (12) to 10 + two Kings (30)."""
    table = small()
    out_unseen(table)
    for points in (2, 31):
        refusal = table.refuse({**SEAT_1, "honours": [], "points": points})
        assert refusal.code == "reveal-mismatch" and (refusal.params["least"], refusal.params["most"]) == (3, 30)
    assert said(table.refuse({**SEAT_1, "points": 11})) == (
        "Ben (seat 1)'s 3 cards cannot make 11 points: 3 cards not yet seen, with the honours told, make 12 to 30 "
        "points.")
    table.do({**SEAT_1, "honours": [], "points": 3})  # three aces: AD AH AS


def test_points_no_set_of_unseen_cards_makes_are_refused() -> None:
    """With the talon told, only 9H QS 8S KH 7D 2S are unseen: with QS held, seat 1's other two cards are two of
    9H 8S 2S (the honours KH and 7D are not held): 10 + 10, 11 or 17 points; never 25."""
    table = small()
    out_unseen(table, talon=talon_known())
    refusal = table.refuse({**SEAT_1, "points": 25})
    assert refusal.code == "reveal-mismatch" and (refusal.params["least"], refusal.params["most"]) == (20, 27)
    assert said(refusal).endswith("make 20 to 27 points, but never exactly 25.")
    table.do({**SEAT_1, "points": 21})  # QS 9H 2S: possible, so taken at the table's word
    table.do({"type": "undo", "reason": "Ben counted again"})
    table.reveal(1, "9H QS 8S")
    refusal = table.refuse({**SEAT_2, "honours": ["KH"], "points": 20})
    assert said(refusal) == "Chloé (seat 2) cannot hold 3 cards: only 2 cards not yet seen can be in that hand."


def test_honours_are_honours_not_seen_and_told_once() -> None:
    table = small()
    out_unseen(table, talon=talon_known())
    checks = [
        ({"honours": ["9H"]}, "not-an-honour", "9H is not an honour (10D, JC, QS, KH, 7D): only the honours still "
                                               "held are told with a count."),
        ({"honours": ["QS", "QS"], "points": 30}, "reveal-mismatch", "QS is told twice."),
        ({"honours": ["10D"]}, "reveal-mismatch", "10D is in the talon, not in a hand."),
        ({"count": 3, "honours": ["QS", "KH", "7D", "JC"]}, "reveal-mismatch", "JC is in the talon, not in a hand."),
    ]
    for fields, code, sentence in checks:
        refusal = table.refuse({**SEAT_1, **fields})
        assert (refusal.code, said(refusal)) == (code, sentence)
    table.reveal(1, "9H QS 8S")
    refusal = table.refuse({**SEAT_2, "honours": ["QS", "KH"]})
    assert (refusal.code, said(refusal)) == (
        "reveal-mismatch", "QS has already been seen in this deal: Chloé (seat 2) cannot hold it.")


def test_more_honours_than_cards_are_refused() -> None:
    table = small()
    out_unseen(table)
    refusal = table.refuse({**SEAT_1, "honours": ["QS", "KH", "7D", "10D"], "points": 37})
    assert said(refusal) == "Ben (seat 1) cannot hold 4 honours among 3 cards."


def test_an_honour_told_is_seen_by_a_later_card_reveal() -> None:
    table = small()
    out_unseen(table)
    table.do(SEAT_2)
    refusal = table.refuse({"type": "reveal", "seat": 1, "cards": cards("9H KH 8S")})
    assert refusal.code == "card-already-played" and refusal.params["card"] == "KH"


def test_a_count_is_only_taken_when_a_hand_is_awaited() -> None:
    """With the hands dealt the deal settles at once: no hand is awaited, so no count either (nor cards)."""
    table = small()
    table.deal(HANDS)
    table.play(0, "AC 2C")
    assert table.refuse(SEAT_1).code == "no-reveal-needed"  # while playing
    table.play(1, "3D")
    table.play(2, "4D")
    table.play(0, "5C 6C")
    assert table.state.status == "ready"
    assert table.refuse(SEAT_1).code == "no-deal-in-progress"
    partial = small()
    out_unseen(partial)
    assert partial.refuse({**SEAT_1, "seat": 0}).code == "no-reveal-needed"  # the winner
    partial.do(SEAT_1)
    assert partial.refuse(SEAT_1).code == "no-reveal-needed"  # told already


def test_point_sums() -> None:
    sums = point_sums([9, 8, 2], 2)
    assert [n for n in range(sums.bit_length()) if sums >> n & 1] == [10, 11, 17]
    assert point_sums([1, 2], 0) == 1  # no card: 0 points
    assert point_sums([1, 2], 3) == 0  # not enough cards: nothing


# --- the audit ------------------------------------------------------------------------------------------
def test_the_audit_marks_a_deal_settled_by_count() -> None:
    table = small()
    out_unseen(table)
    table.reveal(1, "9H QS 8S")
    table.do(SEAT_2)
    table.do({"type": "deal"})
    table.play(1, "AC 2C 3C 4C")
    table.reveal(2, "9H QS 8S 5D")
    table.reveal(0, "KH 7D 2S 3S")  # deal 2: by cards
    report = audit(chained_records(table.log))
    assert report["ok"] is True and report["recomputation"]["ok"] is True
    assert report["settled_by_count"] == [1]
    marks = [finding for finding in report["findings"] if finding.code == "settled-by-count"]
    assert [(finding.severity, said(finding)) for finding in marks] == [
        ("info", "Deal 1 was settled by count for Chloé (seat 2): the cards left were told, not shown.")]
    assert marks[0].seq == next(seq for seq, event in enumerate(table.log, 1) if event.type == "deal_ended")


def test_a_count_withdrawn_before_the_settlement_marks_nothing() -> None:
    table = small()
    out_unseen(table)
    table.do(SEAT_1)
    table.do({"type": "undo", "reason": "the cards were shown after all"})
    table.reveal(1, "9H QS 8S")
    table.reveal(2, "KH 7D 2S")
    report = audit(chained_records(table.log))
    assert report["ok"] is True and report["settled_by_count"] == []


def test_the_simulator_settles_some_losers_by_count() -> None:
    game = simulate(seed=5, profile="classic", players=4, info="partial", deals=4, by_count=0.6)
    told = [event for event in game.events if event.type == "reveal" and "count" in event.data]
    assert told
    report = audit(chained_records(game.events))
    assert report["ok"] is True and report["settled_by_count"]
    again, _ = execute(replay(game.events[:1]), game.actions)
    assert again.balances == game.state.balances  # type: ignore[union-attr]
