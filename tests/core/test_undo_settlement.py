"""``undo`` past a deal's settlement until the next deal starts, the game's end too (SPEC §4), and redo.

An undo of the action that settled a deal (the winning play, or the last reveal) withdraws
the settlement with it: every transfer of the settlement is given back by a reversing
transfer (reason ``undo``), and the state is the one before the action (playing or revealing
again, the deal no longer counted, the game no longer ended). The state says what an undo
would withdraw (``undo``) and what the latest undo withdrew, to be sent again (``redo``).
"""

from __future__ import annotations

from typing import Any

from nj_ledger.audit import audit
from nj_ledger.exchange import load_game
from nj_ledger.findings import _action_said
from nj_ledger.notation import parse_njn, write_njn
from support.sentences import said

from .chained import chained_records
from .helpers import Table, of_type, transfers

SMALL = {"players": [3], "deal_table": {"3": [4, 40]}}
# Seat 0 goes out in its second turn; seat 1 keeps 9H QS 8S (27 points), seat 2 keeps KH 7D 2S (19 points).
HANDS = ["AC 2C 5C 6C", "3D 9H QS 8S", "4D KH 7D 2S"]
WINNING_PLAY = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}


def small(profile: str = "classic", chips: int = 100, **overrides: Any) -> Table:
    return Table(3, {"profile": profile, **SMALL, **overrides}, chips)


def before_going_out(table: Table, hands: list[str] | None = HANDS) -> None:
    """Seat 0: A 2 "sans 3"; seat 1: 3; seat 2: 4; seat 0 is about to lay 5 6 and go out."""
    table.deal(hands)
    table.play(0, "AC 2C")
    table.play(1, "3D")
    table.play(2, "4D")


def bare(view: dict[str, Any]) -> dict[str, Any]:
    """A view without what an undo and a redo change by themselves: the version and the redo."""
    return {key: value for key, value in view.items() if key not in ("version", "redo")}


def reversed_settlement(table: Table, settled: list[Any], undone: list[Any]) -> None:
    """``undone`` gives back every transfer of ``settled``, last first, each naming the seq it reverses."""
    first = len(table.log) - len(undone) - len(settled) + 1  # seq of settled[0]
    moved = [(seq, e) for seq, e in enumerate(settled, start=first) if e.type == "transfer"]
    assert undone[0].type == "undo"
    assert [(e.data["from"], e.data["to"], e.data["amount"], e.data["reason"], e.data["reverses"])
            for e in undone[1:]] == [(e.data["to"], e.data["from"], e.data["amount"], "undo", seq)
                                     for seq, e in reversed(moved)]


# --- the winning play ----------------------------------------------------------------------------------
def test_undo_withdraws_the_winning_play_with_its_payments_and_betes() -> None:
    table = small()
    before_going_out(table)
    before = table.view
    assert before["undo"] == {"type": "play", "seat": 2, "withdraws_settlement": False}
    settled = table.do(WINNING_PLAY)
    assert [e.type for e in settled][-1] == "deal_ended"
    assert {r for *_, r in transfers(settled)} == {"payment", "bete"}
    assert table.state.status == "ready" and table.state.deals_played == 1
    assert table.view["undo"] == {"type": "play", "seat": 0, "withdraws_settlement": True}
    assert table.view["deal"]["can_undo"] is True

    undone = table.do({"type": "undo", "reason": "wrong seat"})
    reversed_settlement(table, settled, undone)
    assert bare(table.view) == bare(before)
    assert table.state.status == "playing" and table.state.deals_played == 0 and table.state.result is None
    assert table.balances == [85, 85, 85]
    assert table.view["redo"] == WINNING_PLAY

    redone = table.do(table.view["redo"])  # the page sends the redo as it is
    assert [(e.type, e.data) for e in redone] == [(e.type, e.data) for e in settled]
    assert table.view["redo"] is None and table.state.deals_played == 1 and table.balances == [131, 49, 39]


def test_a_second_undo_goes_further_back_in_the_settled_deal() -> None:
    table = small()
    before_going_out(table)
    table.do(WINNING_PLAY)
    table.do({"type": "undo"})
    undone = table.do({"type": "undo"})
    assert transfers(undone) == []
    assert table.view["deal"]["turn"] == 2 and table.view["deal"]["run"] == ["AC", "2C", "3D"]
    assert table.view["redo"] == {"type": "play", "seat": 2, "cards": ["4D"], "announced": []}
    # undo, undo, redo, redo: the two actions come back in their order
    table.do(table.view["redo"])
    assert table.view["redo"] == WINNING_PLAY
    table.do(table.view["redo"])
    assert table.view["redo"] is None and table.state.status == "ready" and table.balances == [131, 49, 39]


def test_any_other_action_ends_the_redos() -> None:
    table = small()
    before_going_out(table)
    table.do({"type": "undo"})
    assert table.view["redo"] == {"type": "play", "seat": 2, "cards": ["4D"], "announced": []}
    table.pass_(2)  # another action than the one withdrawn
    assert table.view["redo"] is None
    table.do({"type": "undo"})
    assert table.view["redo"] == {"type": "pass", "seat": 2}
    table.do({"type": "pass", "seat": 2})
    assert table.view["redo"] is None and table.view["undo"] == {
        "type": "pass", "seat": 2, "withdraws_settlement": False}


def test_a_redo_of_a_play_that_inferred_passes_infers_them_again() -> None:
    table = small()
    table.deal(HANDS)
    table.play(0, "AC 2C")
    before = table.view
    played = table.play(0, "5C")  # seats 1 and 2 pass (inferred): the run is blocked, seat 0 restarts
    assert len(of_type(played, "pass")) == 2
    table.do({"type": "undo"})
    assert bare(table.view) == bare(before)
    assert table.view["redo"] == {"type": "play", "seat": 0, "cards": ["5C"], "announced": []}
    assert [(e.type, e.data) for e in table.do(table.view["redo"])] == [(e.type, e.data) for e in played]
    assert table.view["redo"] is None


def test_undo_withdraws_a_grand_opera_sweep() -> None:
    table = small()
    table.deal(["AC 2C 3C 4C", "3D 9H QS 8S", "4D KH 7D 2S"])
    settled = table.play(0, "AC 2C 3C 4C")
    assert of_type(settled, "deal_ended")[0].data["grand_opera"] is True
    assert "grand_opera" in {r for *_, r in transfers(settled)}
    assert table.board == {"10D": 0, "JC": 0, "QS": 9, "KH": 12, "7D": 15}  # swept, then the bêtes
    undone = table.do({"type": "undo", "reason": "not a grand opéra"})
    reversed_settlement(table, settled, undone)
    assert table.balances == [85, 85, 85] and table.board == {"10D": 3, "JC": 6, "QS": 9, "KH": 12, "7D": 15}
    assert table.view["deal"]["turn"] == 0 and table.view["deal"]["grand_opera"] is False


# --- the last reveal -----------------------------------------------------------------------------------
def test_undo_withdraws_the_last_reveal_and_the_settlement_it_caused() -> None:
    table = small()
    before_going_out(table, hands=None)
    table.do(WINNING_PLAY)
    table.reveal(1, "9H QS 8S")
    before = table.view
    assert before["undo"] == {"type": "reveal", "seat": 1, "withdraws_settlement": False}
    settled = table.reveal(2, "KH 7D 2S")
    assert table.state.status == "ready"
    assert table.view["undo"] == {"type": "reveal", "seat": 2, "withdraws_settlement": True}
    undone = table.do({"type": "undo", "reason": "7D was the 7H"})
    reversed_settlement(table, settled, undone)
    assert bare(table.view) == bare(before)
    assert table.state.status == "revealing" and table.view["deal"]["awaiting_reveal"] == [2]
    assert table.view["redo"] == {"type": "reveal", "seat": 2, "cards": ["KH", "7D", "2S"]}
    table.reveal(2, "KH 7H 2S")  # recorded right this time
    assert table.view["redo"] is None and table.state.status == "ready"


# --- a settlement that ended the game -----------------------------------------------------------------
def test_undo_withdraws_a_settlement_that_ended_the_game_by_shortfall() -> None:
    table = small(chips=20)
    before_going_out(table)
    before = table.view
    settled = table.do(WINNING_PLAY)
    assert settled[-1].type == "game_ended" and settled[-1].data["reason"] == "shortfall"
    assert table.state.status == "ended"
    assert table.view["undo"] == {"type": "play", "seat": 0, "withdraws_settlement": True}
    undone = table.do({"type": "undo", "reason": "seat 2 had not gone out"})
    reversed_settlement(table, settled, undone)
    assert bare(table.view) == bare(before)
    assert table.view["result"] is None and table.state.status == "playing" and table.state.deals_played == 0
    redone = table.do(table.view["redo"])
    assert [(e.type, e.data) for e in redone] == [(e.type, e.data) for e in settled]
    assert table.state.status == "ended" and table.view["result"] == settled[-1].data


def test_undo_withdraws_a_game_ended_by_max_deals_or_cannot_ante() -> None:
    for overrides, reason in (({"max_deals": 1}, "max_deals"), ({}, "cannot_ante")):
        table = small("cards", chips=20, bete="none", **overrides)
        before_going_out(table)
        settled = table.do(WINNING_PLAY)
        assert settled[-1].data["reason"] == reason
        table.do({"type": "undo"})
        assert table.state.status == "playing" and table.state.result is None
        table.do(WINNING_PLAY)
        assert table.state.result is not None and table.state.result["reason"] == reason


# --- refusals -----------------------------------------------------------------------------------------
def test_no_undo_once_the_next_deal_has_started() -> None:
    table = small(bete="none")
    before_going_out(table)
    table.do(WINNING_PLAY)
    table.deal()
    assert table.view["undo"] is None and table.view["redo"] is None
    assert table.refuse({"type": "undo"}).code == "nothing-to-undo"


def test_no_undo_after_the_table_ended_the_game() -> None:
    table = small(bete="none")
    before_going_out(table)
    table.do(WINNING_PLAY)
    table.do({"type": "end", "reason": "late"})
    assert table.view["undo"] is None
    assert table.refuse({"type": "undo"}).code == "game-ended"


def test_no_undo_before_the_first_deal() -> None:
    table = small()
    assert table.view["undo"] is None
    refusal = table.refuse({"type": "undo"})
    assert refusal.code == "no-deal-in-progress" and "nothing to undo" in said(refusal)


def test_a_redo_is_refused_like_any_action_once_the_state_moved_on() -> None:
    table = small()
    before_going_out(table)
    table.do(WINNING_PLAY)
    table.do({"type": "undo"})
    redo = table.view["redo"]
    table.play(0, "5C")  # another play: the redo is gone, and sending it again is judged as any play
    assert table.view["redo"] is None
    assert table.refuse(redo).code == "too-many-cards"  # seat 0 holds 6C only


# --- the log: replay, audit, NJN ----------------------------------------------------------------------
def settled_undone_and_replayed() -> Table:
    table = small(chips=20)
    before_going_out(table)
    table.do(WINNING_PLAY)
    table.do({"type": "undo", "reason": "wrong seat"})
    table.do(WINNING_PLAY)
    return table


def test_the_audit_names_what_each_undo_withdrew_and_recomputes_the_same() -> None:
    table = settled_undone_and_replayed()
    undo_seq = next(seq for seq, e in enumerate(table.log, start=1) if e.type == "undo")
    report = audit(chained_records(table.log))
    assert report["ok"] and report["recomputation"]["ok"] and report["conservation"]["ok"]
    [correction] = report["corrections"]
    assert correction == {"seq": undo_seq, "deal": 1, "type": "undo", "reason": "wrong seat",
                          "withdrew": WINNING_PLAY, "settlement": 1, "game_end": True}
    [finding] = [f for f in report["findings"] if f.code == "undo"]
    assert finding.seq == undo_seq
    assert said(finding.said) == ("Taken back: Ana (seat 0)'s play of 5C, 6C, with the settlement of deal 1 and the "
                                  "end of the game — reason: wrong seat.")
    shortfalls = [said(f.said) for f in report["findings"] if f.code == "shortfall"]
    assert shortfalls[0] == "Deal 1: Ben (seat 1) owed 27 chips (payment) and could pay only 5."


def test_an_undo_without_a_reason_says_so() -> None:
    table = small()
    before_going_out(table)
    table.do({"type": "undo"})
    [finding] = [f for f in audit(chained_records(table.log))["findings"] if f.code == "undo"]
    assert said(finding.said) == "Taken back: Chloé (seat 2)'s play of 4D — no reason given."


def test_a_game_with_a_withdrawn_settlement_goes_through_njn_unchanged() -> None:
    table = settled_undone_and_replayed()
    text = write_njn(table.log)
    assert load_game(parse_njn(text))[0] == table.log


def test_the_audit_says_a_withdrawn_pass_reveal_or_count_in_words() -> None:
    table = small()
    before_going_out(table, hands=None)
    table.pass_(0)
    table.do({"type": "undo", "reason": "seat 0 had the 5"})
    table.do(WINNING_PLAY)
    table.reveal(1, "9H QS 8S")
    table.do({"type": "undo"})
    said_undos = [said(f.said) for f in audit(chained_records(table.log))["findings"] if f.code == "undo"]
    assert [text.split(": ", 1)[1] for text in said_undos] == [
        "Ana (seat 0)'s pass — reason: seat 0 had the 5.",
        "Ben (seat 1)'s reveal of 9H, QS, 8S — no reason given.",
    ]
    # a hand settled by count (the count form of reveal) is said by what the table counted
    counted = {"type": "reveal", "seat": 1, "count": 10, "points": 62, "honours": ["KH"]}
    assert said(_action_said(table.state, counted)) == "Ben (seat 1)'s count of 10 cards making 62 points"


def test_undo_withdraws_a_settlement_by_count_and_redoes_it_as_it_was_told() -> None:
    table = small()
    before_going_out(table, hands=None)
    table.do(WINNING_PLAY)
    told = {"type": "reveal", "seat": 1, "count": 3, "points": 27, "honours": ["QS"]}
    table.do(told)
    before = table.view
    last = {"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]}
    settled = table.do(last)
    assert table.state.status == "ready" and table.view["undo"]["withdraws_settlement"] is True
    undone = table.do({"type": "undo", "reason": "19, not 29"})
    reversed_settlement(table, settled, undone)
    assert bare(table.view) == bare(before) and table.view["redo"] == last
    redone = table.do(table.view["redo"])
    assert [(e.type, e.data) for e in redone] == [(e.type, e.data) for e in settled]
    [finding] = [f for f in audit(chained_records(table.log))["findings"] if f.code == "undo"]
    assert said(finding.said) == (
        "Taken back: Chloé (seat 2)'s count of 3 cards making 19 points, with the settlement of deal 1 — reason: 19, "
        "not 29.")


def test_a_count_withdrawn_with_its_settlement_leaves_the_deal_settled_from_the_cards_shown() -> None:
    table = small()
    before_going_out(table, hands=None)
    table.do(WINNING_PLAY)
    table.reveal(1, "9H QS 8S")
    table.do({"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]})
    table.do({"type": "undo", "reason": "show them"})
    table.reveal(2, "KH 7D 2S")  # the settlement that stands comes from cards shown
    report = audit(chained_records(table.log))
    assert report["ok"] and report["settled_by_count"] == []
    # the withdrawn settlement keeps its finding where it was made, the undo says it went
    assert [f.code for f in report["findings"]] == ["settled-by-count", "undo"]
    table.do({"type": "undo", "reason": "count them after all"})
    table.do({"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]})
    assert audit(chained_records(table.log))["settled_by_count"] == [1]
