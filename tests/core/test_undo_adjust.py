"""Corrections: ``undo`` inside an open deal, ``adjust`` between deals (SPEC §4)."""

from __future__ import annotations

from typing import Any

from support.sentences import said

from .helpers import Table, of_type, transfers

SMALL = {"players": [3], "deal_table": {"3": [4, 40]}}


def without_version(view: dict[str, Any]) -> dict[str, Any]:
    """The view without what an undo adds: the version, and the redo of what it withdrew."""
    return {key: value for key, value in view.items() if key not in ("version", "redo")}


def dealt(rules: Any = "classic", hands: Any = None) -> Table:
    table = Table(3, rules, 100)
    table.deal(hands)
    return table


# --- undo ---------------------------------------------------------------------------------------------
def test_undo_withdraws_the_latest_play_and_gives_back_what_it_took() -> None:
    table = dealt()
    table.play(0, "9H 10D", announced="10D")
    before = table.view
    taken_at = len(table.log) + 3  # seq of the take: after seat 1's inferred pass and the play
    table.play(2, "JC", announced="JC")
    assert table.log[taken_at - 1].data["reason"] == "take"
    events = table.do({"type": "undo", "reason": "seat 1 had the jack"})
    assert [e.type for e in events] == ["undo", "transfer"]
    assert events[0].data == {"reason": "seat 1 had the jack"}
    assert events[1].data == {
        "from": "seat:2",
        "to": "box:JC",
        "amount": 6,
        "reason": "undo",
        "reverses": taken_at,
    }
    assert without_version(table.view) == without_version(before)  # the inferred pass went too
    assert table.balances == [88, 85, 85] and table.board["JC"] == 6


def test_undo_is_repeatable_back_to_the_deal() -> None:
    table = dealt()
    start = table.view
    table.play(0, "9H 10D", announced="10D")
    table.pass_(1)
    table.pass_(2)
    after_passes = table.view
    table.play(0, "2S")
    table.do({"type": "undo"})
    assert without_version(table.view) == without_version(after_passes)
    table.do({"type": "undo"})
    assert table.view["deal"]["passed"] == [1] and table.view["deal"]["turn"] == 2
    table.do({"type": "undo"})
    assert table.view["deal"]["passed"] == [] and table.view["deal"]["turn"] == 1
    events = table.do({"type": "undo"})
    assert transfers(events) == [("seat:0", "box:10D", 3, "undo")]
    assert without_version(table.view) == without_version(start)
    assert table.view["deal"]["can_undo"] is False
    refusal = table.refuse({"type": "undo"})
    assert refusal.code == "nothing-to-undo"


def test_nothing_to_undo_right_after_the_deal() -> None:
    table = dealt()
    assert table.refuse({"type": "undo"}).code == "nothing-to-undo"


def test_undo_withdraws_a_round_of_inferred_passes_that_blocked_the_run() -> None:
    table = dealt()
    table.play(0, "5H 6H")
    before = table.view
    events = table.play(0, "2S")  # seats 1 and 2 pass, the run is blocked, seat 0 restarts
    assert len(of_type(events, "pass")) == 2
    table.do({"type": "undo"})
    assert without_version(table.view) == without_version(before)
    assert table.view["deal"]["turn"] == 1 and table.view["deal"]["expected"] == "7"


def test_undo_after_an_undone_play_may_record_it_again() -> None:
    table = dealt()
    table.play(0, "5H 6H")
    table.do({"type": "undo"})
    table.play(0, "5D 6D 7D", announced="7D")
    assert table.board["7D"] == 0 and table.balances == [100, 85, 85]


def test_undo_the_winning_play_while_hands_are_awaited() -> None:
    table = Table(3, {"profile": "classic", **SMALL}, 100)
    table.deal()
    table.play(0, "AC 2C")
    table.play(1, "3D")
    table.play(2, "4D")
    before = table.view
    table.play(0, "5C 6C")  # seat 0 goes out
    assert table.state.status == "revealing"
    table.reveal(1, "9H QS 8S")
    table.do({"type": "undo", "reason": "wrong hand"})
    assert table.view["deal"]["awaiting_reveal"] == [1, 2]
    table.do({"type": "undo"})
    assert table.state.status == "playing"
    assert without_version(table.view) == without_version(before)


def test_no_undo_once_a_settled_deal_is_adjusted() -> None:
    table = Table(3, {"profile": "cards", "bete": "none", **SMALL}, 100)
    table.deal()
    table.play(0, "AC 2C 3C 4C")
    assert table.state.status == "ready" and table.view["undo"] is not None
    table.do({"type": "adjust", "from": 1, "to": 2, "amount": 1})
    assert table.view["undo"] is None
    refusal = table.refuse({"type": "undo"})
    assert refusal.code == "no-deal-in-progress" and "adjust" in said(refusal)


def test_undo_fields_are_checked() -> None:
    table = dealt()
    table.play(0, "5H")
    assert table.refuse({"type": "undo", "reason": 3}).code == "invalid-action"
    assert table.refuse({"type": "undo", "reason": "x" * 501}).code == "invalid-action"
    assert table.refuse({"type": "undo", "seat": 0}).code == "invalid-action"
    assert Table(3).refuse({"type": "undo"}).code == "no-deal-in-progress"


# --- adjust ---------------------------------------------------------------------------------------------
def test_an_adjustment_is_a_transfer_between_deals() -> None:
    table = Table(3, "classic", 100)
    events = table.do(
        {"type": "adjust", "from": "seat:0", "to": "seat:2", "amount": 7, "reason": "dropped chips"}
    )
    assert [e.type for e in events] == ["adjust", "transfer"]
    assert events[0].data == {"from": "seat:0", "to": "seat:2", "amount": 7, "reason": "dropped chips"}
    assert events[1].data == {"from": "seat:0", "to": "seat:2", "amount": 7, "reason": "adjust"}
    assert events[0].is_table_action and not events[1].is_table_action
    assert table.balances == [93, 100, 107]


def test_adjust_accepts_seat_numbers_and_boxes() -> None:
    table = dealt()
    table.play(0, "AC")
    assert table.refuse({"type": "adjust", "from": 1, "to": 0, "amount": 1}).code == "deal-in-progress"
    table.do({"type": "undo"})
    table2 = Table(3, "classic", 100)
    events = table2.do({"type": "adjust", "from": 1, "to": "box:7♦", "amount": 4})
    assert transfers(events) == [("seat:1", "box:7D", 4, "adjust")]
    events = table2.do({"type": "adjust", "from": "box:7d", "to": "seat:2", "amount": 4, "reason": ""})
    assert transfers(events) == [("box:7D", "seat:2", 4, "adjust")]
    assert table2.balances == [100, 96, 104] and table2.board["7D"] == 0


def test_adjust_cannot_take_more_than_an_account_holds() -> None:
    table = Table(3, "classic", 100)
    refusal = table.refuse({"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 101})
    assert refusal.code == "insufficient-chips"
    assert (
        table.refuse({"type": "adjust", "from": "box:QS", "to": "seat:1", "amount": 1}).code
        == "insufficient-chips"
    )
    negative = Table(3, {"profile": "classic", "shortfall": "negative"}, 100)
    negative.do({"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 150})
    assert negative.balances == [-50, 250, 100]
    # a box is never taken below zero, even on a score sheet
    assert (
        negative.refuse({"type": "adjust", "from": "box:7D", "to": 0, "amount": 1}).code
        == "insufficient-chips"
    )


def test_adjust_refuses_bad_accounts_and_amounts() -> None:
    table = Table(3, "hearts", 100)
    cases = [
        ({"from": "seat:3", "to": "seat:1", "amount": 1}, "invalid-account"),
        ({"from": "seat:-1", "to": "seat:1", "amount": 1}, "invalid-account"),
        ({"from": "seat:¹", "to": "seat:1", "amount": 1}, "invalid-account"),  # a digit to isdigit, not to int
        ({"from": 5, "to": "seat:1", "amount": 1}, "invalid-account"),
        ({"from": "box:QS", "to": "seat:1", "amount": 1}, "invalid-account"),  # not a hearts honour
        ({"from": "box:XX", "to": "seat:1", "amount": 1}, "invalid-account"),
        ({"from": "bank", "to": "seat:1", "amount": 1}, "invalid-account"),
        ({"from": True, "to": "seat:1", "amount": 1}, "invalid-account"),
        ({"from": "seat:1", "to": "seat:1", "amount": 1}, "invalid-account"),
        ({"from": "seat:0", "to": 1, "amount": 0}, "invalid-amount"),
        ({"from": "seat:0", "to": 1, "amount": -3}, "invalid-amount"),
        ({"from": "seat:0", "to": 1, "amount": "3"}, "invalid-action"),
        ({"from": "seat:0", "to": 1, "amount": 2.0}, "invalid-action"),
        ({"from": "seat:0", "to": 1}, "invalid-action"),
        ({"from": "seat:0", "to": 1, "amount": 1, "note": "x"}, "invalid-action"),
        ({"from": "seat:0", "to": 1, "amount": 1, "reason": ["x"]}, "invalid-action"),
    ]
    for fields, code in cases:
        refusal = table.refuse({"type": "adjust", **fields})
        assert refusal.code == code, fields
    refusal = table.refuse({"type": "adjust", "from": "seat:9", "to": 1, "amount": 1})
    assert refusal.params["field"] == "from"


def test_an_adjustment_may_leave_a_seat_unable_to_ante() -> None:
    table = Table(3, "classic", 20)
    table.do({"type": "adjust", "from": "seat:1", "to": "seat:0", "amount": 6})
    assert table.refuse({"type": "deal"}).code == "cannot-ante"


def test_events_between_deals_belong_to_the_deal_before() -> None:
    table = Table(3, {"profile": "cards", "bete": "none", **SMALL}, 100)
    before_any = table.do({"type": "adjust", "from": 0, "to": 1, "amount": 1})
    assert [e.deal for e in table.log[:1] + before_any] == [0, 0, 0]
    dealt_events = table.deal()
    table.play(0, "AC 2C 3C 4C")
    after = table.do({"type": "adjust", "from": 1, "to": 2, "amount": 1})
    assert {e.deal for e in dealt_events} == {1} and {e.deal for e in after} == {1}
    assert {e.deal for e in table.deal()} == {2}
