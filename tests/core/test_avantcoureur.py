"""The ``avantcoureur-1760`` profile (SPEC §3.4): the original rules of 1760, deal by deal.

Every deal here is worked by hand in its test's docstring. Unless a test says
otherwise the table has three seats, seat 2 deals first (so seat 0 is first
hand) and the dealer alone antes 1, 2, 3, 4, 5 on 10D, JC, QS, KH, 7D.

Most rule checks use the hands ``HANDS`` (fifteen cards each, talon
6H 7H 9H 10H JH QH KH): after the ante of a 100-chip game the balances are
[100, 100, 85] and the boxes 10D 1, JC 2, QS 3, KH 4, 7D 5.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from api.views import expected_label
from nj_ledger import InvalidInput, fold, replay, resolve_rules
from nj_ledger.audit import audit
from nj_ledger.events import Event
from nj_ledger.exchange import load_game
from nj_ledger.simulator import simulate
from support.scale import scaled, sized
from support.sentences import said

from .chained import chained_records
from .helpers import Table, cards, of_type, snapshot, transfers

PROFILE = "avantcoureur-1760"
BOARD_AFTER_ANTE = {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 5}
HANDS = [
    "4D 5D 6D 8D 9D 10D 5H 2S 3S AC 2C 3C 4C 5C KS",
    "7D 6C 6S 7C 8C 9C 10C JC QC KC AH 2H 3H 4H AD",
    "4S 5S 7S 8S 9S 10S JS QS AS 2D 3D JD QD KD 8H",
]
TALON = "6H 7H 9H 10H JH QH KH"


def dealt(chips: int = 100, **overrides: Any) -> Table:
    table = Table(3, {"profile": PROFILE, **overrides}, chips)
    table.deal(HANDS, talon=cards(TALON))
    return table


def hoc(payer: int, player: int) -> tuple[str, str, int, str]:
    return (f"seat:{payer}", f"seat:{player}", 1, "hoc")


def deal_ended(events: list[Event]) -> dict[str, Any]:
    return dict(of_type(events, "deal_ended")[0].data)


def result_of(table: Table) -> dict[str, Any]:
    assert table.state.result is not None, "the game has not ended"
    return table.state.result


# --- the profile ---------------------------------------------------------------------------------------
def test_the_profile_resolves_to_the_1760_options() -> None:
    stored = resolve_rules(PROFILE).to_dict()
    assert stored == {
        "profile": PROFILE,
        "board": BOARD_AFTER_ANTE,
        "players": [3, 5],
        "deal_table": {"3": [15, 7], "5": [9, 7]},
        "sequence": "suit",
        "opening": "any",
        "may_stop": False,
        "blocked": "restart",
        "restarter": "last_player",
        "payment": "points",
        "bete": "double",
        "grand_opera": {"condition": "no_other_plays", "reward": "double"},
        "ante": "dealer",
        "stake_unit": 1,
        "point_value": 1,
        "shortfall": "end",
        "max_deals": {"3": 12, "5": 10},
        "dealer_rotation": "next",
        "stops": ["10D", "JC", "QS"],
        "wild": "7D",
        "hoc_reward": 1,
        "wild_pays_double": True,
    }
    assert resolve_rules(stored) == resolve_rules(PROFILE)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_only_three_or_five_players_sit_down(players: int) -> None:
    with pytest.raises(InvalidInput) as refusal:
        Table(players, PROFILE)
    assert refusal.value.code == "invalid-players"


# --- the ante ------------------------------------------------------------------------------------------
def test_the_dealer_alone_antes_and_the_deal_passes_to_the_next_seat() -> None:
    """Deal 1 of a 500-chip game: seat 2 deals and alone stakes 1+2+3+4+5 = 15 ([500, 500, 485]).

    Scored without hands: seat 0 lays fifteen cards in one turn, calling nothing (no box, no hoc chip),
    an Opera; seat 1 shows 81 points and pays 162, seat 2 shows 90 and pays 180: [842, 338, 305], the
    boxes untouched (842 + 338 + 305 + 15 = 1500). Deal 2 is dealt by the next seat, seat 0, who alone
    stakes 15 more: [827, 338, 305], boxes 10D 2, JC 4, QS 6, KH 8, 7D 10.
    """
    table = Table(3, PROFILE, 500)
    events = table.deal()
    assert transfers(events) == [("seat:2", f"box:{card}", stake, "ante") for card, stake in BOARD_AFTER_ANTE.items()]
    assert table.balances == [500, 500, 485] and table.board == BOARD_AFTER_ANTE
    table.play(0, "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 9D 10D")
    table.reveal(1, "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C QC KC AD 2D 3D")
    table.reveal(2, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS 4D 5D 6D")
    assert table.balances == [842, 338, 305] and table.board == BOARD_AFTER_ANTE
    events = table.deal()
    assert table.deal_state.dealer == 0
    assert transfers(events) == [("seat:0", f"box:{card}", stake, "ante") for card, stake in BOARD_AFTER_ANTE.items()]
    assert table.balances == [827, 338, 305]
    assert table.board == {card: 2 * stake for card, stake in BOARD_AFTER_ANTE.items()}


def test_a_poor_player_may_sit_but_a_dealer_who_cannot_ante_stops_the_game() -> None:
    """Before the first deal seat 1 gives 95 chips to seat 0 and has 5 left ([195, 5, 100]).

    Seat 2 deals: only the dealer antes, so seat 1's 5 chips do not stop the deal. Had seat 1 to deal,
    the deal would be refused and the refusal names seat 1 alone.
    """
    table = Table(3, PROFILE, 100)
    table.do({"type": "adjust", "from": "seat:1", "to": "seat:0", "amount": 95, "reason": "a loan"})
    refusal = table.refuse({"type": "deal", "dealer": 1})
    assert refusal.code == "cannot-ante"
    assert "Ben (seat 1)" in said(refusal) and "seat 0" not in said(refusal) and "seat 2" not in said(refusal)
    table.deal()
    assert table.balances == [195, 5, 85]


# --- runs in suit --------------------------------------------------------------------------------------
def test_runs_follow_suit_and_a_card_of_another_suit_is_out_of_sequence() -> None:
    """Seat 0 lays 5H "sans 6H"; the run wants the 6 of hearts, and 6C or 6S does not follow.

    6H is in the talon: seat 1 and seat 2 pass, the run is blocked and seat 0, who laid its
    last card, starts a new one.
    """
    table = dealt()
    assert table.refuse({"type": "play", "seat": 0, "cards": ["5H", "6D"]}).code == "out-of-sequence"
    table.play(0, "5H")
    view = table.view["deal"]
    assert view["expected"] == "6H" and view["turn"] == 1
    for card in ("6C", "6S"):
        refusal = table.refuse({"type": "play", "seat": 1, "cards": [card]})
        assert refusal.code == "out-of-sequence" and refusal.params["expected"] == "6H"
    table.pass_(1)
    table.pass_(2)
    view = table.view["deal"]
    assert view["expected"] is None and view["turn"] == 0 and view["run"] == []


def test_a_player_holding_the_next_card_of_the_suit_must_play_it() -> None:
    """Seat 0 lays A 2 3 4 5 of clubs; seat 1 holds 6C, 7C and 8C, so it may neither pass nor stop
    before 8C; seat 0 could not stop after 4D 5D while holding 6D either."""
    table = dealt()
    assert table.refuse({"type": "play", "seat": 0, "cards": cards("4D 5D")}).code == "must-continue"
    table.play(0, "AC 2C 3C 4C 5C")
    assert table.view["deal"]["expected"] == "6C"
    assert table.refuse({"type": "pass", "seat": 1}).code == "must-continue"
    assert table.refuse({"type": "play", "seat": 1, "cards": cards("6C 7C")}).code == "must-continue"


# --- hocs ----------------------------------------------------------------------------------------------
def test_a_permanent_hoc_ends_the_run_and_its_player_starts_a_new_one() -> None:
    """Seat 0 lays 8D 9D 10D and calls the 10D: it takes the box (1) and one chip from each other
    player ([103, 99, 84], box 10D 0). The run is over: seat 0 may not pass, nobody else may play, and
    seat 0 goes on with a new run — here the King of spades alone, another hoc (+2: [105, 98, 83]) —
    then 2S 3S "sans 4S"."""
    table = dealt()
    events = table.play(0, "8D 9D 10D", announced="10D")
    assert transfers(events) == [("box:10D", "seat:0", 1, "take"), hoc(1, 0), hoc(2, 0)]
    assert table.balances == [103, 99, 84] and table.board["10D"] == 0
    view = table.view["deal"]
    assert view["expected"] is None and view["turn"] == 0
    assert table.refuse({"type": "pass", "seat": 0}).code == "cannot-pass"
    assert table.refuse({"type": "play", "seat": 1, "cards": ["AD"]}).code == "not-your-turn"
    events = table.play(0, "KS", announced="KS")
    assert transfers(events) == [hoc(1, 0), hoc(2, 0)]
    assert table.view["deal"]["turn"] == 0 and table.view["deal"]["expected"] is None
    table.play(0, "2S 3S")
    assert table.view["deal"]["expected"] == "4S" and table.view["deal"]["turn"] == 1
    assert table.balances == [105, 98, 83]
    assert table.deal_state.laying_turns == (1, 0, 0)  # three plays, one turn


def test_a_hoc_forgotten_earns_nothing_and_the_audit_notes_it() -> None:
    """Seat 0 lays 8D 9D 10D without calling the 10D: no box, no hoc chip, yet the run ends. Its KS,
    called, earns one chip from each ([102, 99, 84]); the 10D box keeps its chip. Seat 0 goes on with
    A 2 3 4 5 of clubs "sans 6C". The audit lists the forgotten 10D (the KS was called)."""
    table = dealt()
    events = table.play(0, "8D 9D 10D")
    assert transfers(events) == []
    assert table.view["deal"]["expected"] is None and table.view["deal"]["turn"] == 0
    table.play(0, "KS", announced="KS")
    table.play(0, "AC 2C 3C 4C 5C")
    assert table.balances == [102, 99, 84] and table.board == BOARD_AFTER_ANTE
    findings = [f for f in audit(chained_records(table.log))["findings"] if f.code == "not-announced"]
    assert [said(f) for f in findings] == [
        "10D was played without being announced: its box stays on the board and no hoc chips were paid."
    ]


def test_only_honours_and_hocs_are_announced() -> None:
    table = dealt()
    refusal = table.refuse({"type": "play", "seat": 0, "cards": ["5H"], "announced": ["5H"]})
    assert refusal.code == "not-an-honour"
    classic = Table(3, "classic", 100)
    classic.deal()
    refusal = classic.refuse({"type": "play", "seat": 0, "cards": ["KD"], "announced": ["KD"]})
    assert refusal.code == "not-an-honour"  # a King earns nothing in the modern rules


def test_the_chief_hoc_is_laid_out_of_sequence_and_ends_the_run() -> None:
    """Seat 0 lays 5H "sans 6H" (in the talon). Seat 1 has no 6H but lays the 7D, called: it takes
    the Nain's box (5) and a chip from seat 2 and seat 0 ([99, 107, 84], box 7D 0). Seat 1 then starts
    a new run, A 2 3 4 of hearts "sans 5H" — already laid, so seats 2 and 0 pass and seat 1 starts again.
    """
    table = dealt()
    table.play(0, "5H")
    events = table.play(1, "7D", announced="7D")
    assert transfers(events) == [("box:7D", "seat:1", 5, "take"), hoc(2, 1), hoc(0, 1)]
    assert table.balances == [99, 107, 84] and table.board["7D"] == 0
    view = table.view["deal"]
    assert view["expected"] is None and view["turn"] == 1
    table.play(1, "AH 2H 3H 4H")
    assert table.view["deal"]["expected"] == "5H"
    table.pass_(2)
    table.pass_(0)
    assert table.view["deal"]["turn"] == 1 and table.view["deal"]["expected"] is None


def test_the_chief_hoc_may_cut_a_run_its_holder_would_have_to_continue() -> None:
    """Seat 0 lays A 2 3 4 5 of clubs. Seat 1 must follow with 6C and 7C, then lays the 7D although it
    holds 8C: the run ends there. Calls: 7D (box 5, +2) and, in a later play of the same turn,
    8C 9C 10C JC (JC: box 2, +2); QC KC is laid without calling the King. Seat 1 ends with AD "sans 2D".
    Balances [98, 111, 83]; boxes 10D 1, JC 0, QS 3, KH 4, 7D 0."""
    table = dealt()
    table.play(0, "AC 2C 3C 4C 5C")
    table.play(1, "6C 7C 7D", announced="7D")
    assert table.view["deal"]["expected"] is None and table.view["deal"]["turn"] == 1
    table.play(1, "8C 9C 10C JC", announced="JC")
    table.play(1, "QC KC AD")
    assert table.view["deal"]["expected"] == "2D" and table.view["deal"]["turn"] == 2
    assert table.balances == [98, 111, 83]
    assert table.board == {"10D": 1, "JC": 0, "QS": 3, "KH": 4, "7D": 0}


def test_the_chief_hoc_need_not_be_played_even_when_it_is_the_next_card() -> None:
    """Seat 0 lays 4D 5D 6D "sans 7D". Seat 1 holds the 7D and passes all the same; seat 2 passes;
    the run is blocked and seat 0 starts a new one. Had seat 1 laid it, in sequence, the run would end
    with it: 8D cannot follow, and seat 1 goes on."""
    table = dealt()
    table.play(0, "4D 5D 6D")
    assert table.view["deal"]["expected"] == "7D"
    table.pass_(1)
    table.pass_(2)
    assert table.view["deal"]["turn"] == 0 and table.view["deal"]["expected"] is None

    table = dealt()
    table.play(0, "4D 5D 6D")
    table.play(1, "7D", announced="7D")
    assert table.view["deal"]["turn"] == 1 and table.view["deal"]["expected"] is None
    assert table.refuse({"type": "play", "seat": 0, "cards": ["8D"]}).code == "not-your-turn"


def test_undo_gives_back_the_box_and_the_hoc_chips() -> None:
    table = dealt()
    table.play(0, "8D 9D 10D", announced="10D")
    events = table.do({"type": "undo", "reason": "wrong card tapped"})
    assert [t[3] for t in transfers(events)] == ["undo"] * 3
    assert transfers(events) == [("seat:0", "seat:2", 1, "undo"), ("seat:0", "seat:1", 1, "undo"),
                                 ("seat:0", "box:10D", 1, "undo")]
    assert table.balances == [100, 100, 85] and table.board == BOARD_AFTER_ANTE


# --- worked deals, three players -------------------------------------------------------------------------
OPERA = [
    "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 9D 10D",
    "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AD 2D",
    "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS 3D 4D",
]


def test_an_opera_makes_the_losers_pay_double() -> None:
    """500 chips; seat 2 antes ([500, 500, 485]). Seat 0 lays its fifteen cards in one turn, hearts
    A..K ("Hoc!" on KH: box 4 and a chip from each) then 9D 10D (10D: box 1, a chip from each):
    [509, 498, 483]. Nobody else laid a card: an Opera, the losers pay double.

    Seat 1 keeps clubs A..K (1+…+9 + 4×10 = 85) + AD 2D = 88 points, pays 176; seat 2 keeps spades
    A..K (85) + 3D 4D = 92, pays 184. Bêtes: seat 1 holds JC and pays its box (2), seat 2 holds QS and
    pays 3 — not doubled. Balances [869, 320, 296]; boxes 10D 0, JC 4, QS 6, KH 0, 7D 5
    (869 + 320 + 296 + 15 = 1500).
    """
    table = Table(3, PROFILE, 500)
    table.deal(OPERA, talon=cards("5D 6D 7D 8D JD QD KD"))
    events = table.play(0, OPERA[0], announced="KH 10D")
    assert transfers(events) == [
        ("box:KH", "seat:0", 4, "take"), hoc(1, 0), hoc(2, 0),
        ("box:10D", "seat:0", 1, "take"), hoc(1, 0), hoc(2, 0),
        ("seat:1", "seat:0", 176, "payment"), ("seat:2", "seat:0", 184, "payment"),
        ("seat:1", "box:JC", 2, "bete"), ("seat:2", "box:QS", 3, "bete"),
    ]
    ended = deal_ended(events)
    assert ended["grand_opera"] is True
    assert ended["payments"] == [
        {"seat": 1, "cards_left": 15, "points": 88, "amount": 176, "paid": 176},
        {"seat": 2, "cards_left": 15, "points": 92, "amount": 184, "paid": 184},
    ]
    assert table.balances == [869, 320, 296]
    assert table.board == {"10D": 0, "JC": 4, "QS": 6, "KH": 0, "7D": 5}
    assert table.state.status == "ready"


def test_an_opera_against_a_holder_of_the_7d_doubles_twice() -> None:
    """The Opera above, with seat 1 keeping AD 7D instead of AD 2D (2D goes to the talon).

    Seat 1: 85 + 1 + 7 = 93 points, × 2 (Opera) × 2 (the 7D) = 372; bêtes JC (2) and 7D (5).
    Seat 2 as before: 184 and 3. Balances [500 + 9 + 372 + 184, 500 − 2 − 372 − 7, 485 − 2 − 184 − 3]
    = [1065, 119, 296]; boxes 10D 0, JC 4, QS 6, KH 0, 7D 10 (1065 + 119 + 296 + 20 = 1500).
    """
    hands = [OPERA[0], OPERA[1].replace("2D", "7D"), OPERA[2]]
    table = Table(3, PROFILE, 500)
    table.deal(hands, talon=cards("2D 5D 6D 8D JD QD KD"))
    events = table.play(0, OPERA[0], announced="KH 10D")
    ended = deal_ended(events)
    assert ended["payments"][0] == {"seat": 1, "cards_left": 15, "points": 93, "amount": 372, "paid": 372}
    assert ended["betes"] == [
        {"seat": 1, "card": "JC", "amount": 2, "paid": 2},
        {"seat": 1, "card": "7D", "amount": 5, "paid": 5},
        {"seat": 2, "card": "QS", "amount": 3, "paid": 3},
    ]
    assert table.balances == [1065, 119, 296]
    assert table.board == {"10D": 0, "JC": 4, "QS": 6, "KH": 0, "7D": 10}


SEVEN_HELD = [
    "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2C 4C",
    "3C 7D AD 2D 3D 4D 5D 6D AS 2S 3S 4S 5S 6S 8D",
    "7S 8S 9S 10S JS QS KS AC 5C 6C 7C 8C 9C 9D QD",
]
SEVEN_HELD_TALON = "10C JC QC KC 10D JD KD"


def play_seven_held(table: Table) -> list[Event]:
    """Seat 0: hearts A..K (KH called) then 2C "sans 3C"; seat 1: 3C "sans 4C"; seat 2 has no 4C
    (its pass is inferred); seat 0 lays 4C and goes out."""
    table.play(0, "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2C", announced="KH")
    table.play(1, "3C")
    return table.play(0, "4C")


def test_a_loser_holding_the_7d_pays_double_and_is_bete() -> None:
    """200 chips; seat 2 antes ([200, 200, 185]). KH called: box 4 and a chip from each ([206, 199, 184]).
    Seat 1 laid the 3C, so this is no Opera.

    Seat 1 keeps 7D AD..6D AS..6S 8D: 7 + 21 + 21 + 8 = 57 points, doubled for the 7D: 114.
    Seat 2 keeps 7S..KS (64) AC 5C..9C (36) 9D QD (19): 119 points.
    Bêtes: seat 1 pays the 7D box (5), seat 2 the QS box (3).
    Balances [206 + 114 + 119, 199 − 114 − 5, 184 − 119 − 3] = [439, 80, 62];
    boxes 10D 1, JC 2, QS 6, KH 0, 7D 10 (439 + 80 + 62 + 19 = 600).
    """
    table = Table(3, PROFILE, 200)
    table.deal(SEVEN_HELD, talon=cards(SEVEN_HELD_TALON))
    events = play_seven_held(table)
    assert [(e.type, e.data.get("seat")) for e in events[:2]] == [("pass", 2), ("play", 0)]
    assert transfers(events) == [
        ("seat:1", "seat:0", 114, "payment"), ("seat:2", "seat:0", 119, "payment"),
        ("seat:1", "box:7D", 5, "bete"), ("seat:2", "box:QS", 3, "bete"),
    ]
    ended = deal_ended(events)
    assert ended["grand_opera"] is False
    assert [p["points"] for p in ended["payments"]] == [57, 119]
    assert table.balances == [439, 80, 62]
    assert table.board == {"10D": 1, "JC": 2, "QS": 6, "KH": 0, "7D": 10}


def test_the_same_deal_scored_without_hands_waits_for_the_reveals_and_settles_alike() -> None:
    """Scored as a real table is: no hands at the deal, the losers show their cards at the end.
    The settlement is the one worked above."""
    full = Table(3, PROFILE, 200)
    full.deal(SEVEN_HELD, talon=cards(SEVEN_HELD_TALON))
    full_events = play_seven_held(full)
    table = Table(3, PROFILE, 200)
    table.deal()
    play_seven_held(table)
    assert table.state.status == "revealing" and table.view["deal"]["awaiting_reveal"] == [1, 2]
    table.reveal(2, "7S 8S 9S 10S JS QS KS AC 5C 6C 7C 8C 9C 9D QD")
    events = table.reveal(1, "7D AD 2D 3D 4D 5D 6D AS 2S 3S 4S 5S 6S 8D")
    assert transfers(events) == transfers(full_events)
    assert table.balances == full.balances == [439, 80, 62] and table.board == full.board


# --- a worked deal, five players -------------------------------------------------------------------------
FIVE = [
    "3S 4S 5S 3C AC AD 2D AH 2H",
    "6S 7S 10D 3D 4D 3H 4H AS 2S",
    "7D 9C 10C JC 8H 9H 4C 5C 6C",
    "10H JH QS 5D 6D 5H 6H 7H 7C",
    "QH KH 2C 8C 8D 9D 9S 10S JS",
]
FIVE_TALON = "8S QC KC JD QD KD KS"


def test_a_five_player_deal_with_the_wild_card_hocs_a_forgotten_king_and_betes() -> None:
    """Five seats, nine cards each, 100 chips; seat 4 deals and antes ([100, 100, 100, 100, 85]).

    - Seat 0: 3S 4S 5S "sans 6S". Seat 1: 6S 7S "sans 8S" (in the talon).
    - Seat 2 has no 8S: it lays the 7D (called: box 5, a chip from each of the four others), then
      9C 10C JC (called: box 2, four chips), then 8H 9H "sans 10H".
      [98, 98, 115, 98, 83].
    - Seat 3: 10H JH "sans QH". Seat 4: QH KH — the King laid without a call: nothing — then 2C "sans 3C".
    - Seat 0: 3C "sans 4C". Seat 1 passes (inferred); seat 2 lays 4C 5C 6C and goes out.

    Payments to seat 2, from its left: seat 3 keeps QS 5D 6D 5H 6H 7H 7C = 46, seat 4 keeps
    8C 8D 9D 9S 10S JS = 54, seat 0 keeps AC AD 2D AH 2H = 7, seat 1 keeps 10D 3D 4D 3H 4H AS 2S = 27.
    Bêtes: seat 3 the QS box (3), seat 1 the 10D box (1).
    Balances [91, 70, 249, 49, 29]; boxes 10D 2, JC 0, QS 6, KH 4, 7D 0 (488 + 12 = 500).
    """
    table = Table(5, PROFILE, 100)
    table.deal(FIVE, talon=cards(FIVE_TALON))
    assert table.balances == [100, 100, 100, 100, 85]
    table.play(0, "3S 4S 5S")
    table.play(1, "6S 7S")
    events = table.play(2, "7D 9C 10C JC 8H 9H", announced="7D JC")
    assert transfers(events) == [
        ("box:7D", "seat:2", 5, "take"), hoc(3, 2), hoc(4, 2), hoc(0, 2), hoc(1, 2),
        ("box:JC", "seat:2", 2, "take"), hoc(3, 2), hoc(4, 2), hoc(0, 2), hoc(1, 2),
    ]
    assert table.balances == [98, 98, 115, 98, 83]
    table.play(3, "10H JH")
    assert transfers(table.play(4, "QH KH 2C")) == []
    table.play(0, "3C")
    events = table.play(2, "4C 5C 6C")
    assert of_type(events, "pass")[0].data == {"seat": 1, "inferred": True}
    assert transfers(events) == [
        ("seat:3", "seat:2", 46, "payment"), ("seat:4", "seat:2", 54, "payment"),
        ("seat:0", "seat:2", 7, "payment"), ("seat:1", "seat:2", 27, "payment"),
        ("seat:3", "box:QS", 3, "bete"), ("seat:1", "box:10D", 1, "bete"),
    ]
    assert deal_ended(events)["grand_opera"] is False
    assert table.balances == [91, 70, 249, 49, 29]
    assert table.board == {"10D": 2, "JC": 0, "QS": 6, "KH": 4, "7D": 0}


# --- a hoc chip that cannot be paid ---------------------------------------------------------------------
SHORT = [
    "AD 2D 3D 4D 5D 6D 8D AS 2S 3S 4S 5S 6S 7S 8S",
    "KS 2H AH 3C 4C 5C 6C 7C 8C 9C 10C QD 9S 10S JS",
    "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 9D 10D AC 2C",
]


def short_of_a_chip(shortfall: str) -> tuple[Table, list[Event]]:
    """Seat 2 gives its 100 chips to seat 0 before the first deal; seat 0 deals and antes
    ([185, 100, 0]). Seat 1, first hand, lays KS (called) then 2H "sans 3H"; seat 2 lays fifteen cards
    3H..KH (KH called) 9D 10D (10D called) AC 2C and goes out."""
    table = Table(3, {"profile": PROFILE, "shortfall": shortfall}, 100)
    table.do({"type": "adjust", "from": "seat:2", "to": "seat:0", "amount": 100, "reason": "settling a debt"})
    table.deal(SHORT, dealer=0)
    first = table.play(1, "KS 2H", announced="KS")
    last = table.play(2, "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 9D 10D AC 2C", announced="KH 10D")
    return table, first + last


def test_a_hoc_chip_that_cannot_be_paid_is_owed_and_ends_the_game_after_the_deal() -> None:
    """Seat 2 has nothing when seat 1 calls the KS: it pays 0 of the chip it owes (recorded ``owed``),
    seat 0 pays its chip ([184, 101, 0]). Seat 2 then takes KH (4) and 10D (1) and two chips from each
    ([182, 99, 9]), and goes out: seat 0 pays 65 (AD..6D 8D = 29, AS..8S = 36), seat 1 pays 92
    (AH 3C..10C QD 9S 10S JS). Nobody holds an honour. Balances [117, 7, 166]; boxes 10D 0, JC 2, QS 3,
    KH 0, 7D 5 (290 + 10 = 300). The unpaid chip ends the game after the deal: Chloé first."""
    table, events = short_of_a_chip("end")
    owed = [e.data for e in events if e.type == "transfer" and "owed" in e.data]
    assert owed == [{"from": "seat:2", "to": "seat:1", "amount": 0, "reason": "hoc", "owed": 1}]
    ended = deal_ended(events)
    assert ended["shortfalls"] == [{"seat": 2, "reason": "hoc", "owed": 1, "paid": 0}]
    assert [p["amount"] for p in ended["payments"]] == [65, 92] and ended["betes"] == []
    assert table.balances == [117, 7, 166]
    assert table.board == {"10D": 0, "JC": 2, "QS": 3, "KH": 0, "7D": 5}
    assert table.state.status == "ended"
    assert result_of(table)["reason"] == "shortfall"
    assert [row["name"] for row in result_of(table)["standings"]] == ["Chloé", "Ana", "Ben"]


def test_with_negative_balances_the_hoc_chip_is_paid_and_play_goes_on() -> None:
    """The same deal on a score sheet: seat 2 pays its chip and stands at −1 for a moment; it ends
    with 165, seat 1 with 8 (one chip more), seat 0 with 117; the game goes on to deal 2."""
    table, events = short_of_a_chip("negative")
    assert not [e for e in events if e.type == "transfer" and "owed" in e.data]
    assert deal_ended(events)["shortfalls"] == []
    assert table.balances == [117, 8, 165]
    assert table.state.status == "ready"


# --- a fixed number of deals ----------------------------------------------------------------------------
WINNER_3 = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 9D 10D"
LOSERS_3 = ("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C QC KC AD 2D 3D", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS 4D 5D 6D")
WINNER_5 = "5H 6H 7H 8H 9H 10H JH QH KH"
LOSERS_5 = ("AC 2C 3C 4C 5C 6C 7C 8C 9C", "AS 2S 3S 4S 5S 6S 7S 8S 9S", "AD 2D 3D 4D 5D 6D 8D 9D JD",
            "AH 2H 3H 4H 10C 10S JS QC QD")


def play_opera(table: Table, winner: str, announced: str, losers: tuple[str, ...]) -> list[Event]:
    """First hand lays ``winner`` in one turn; the losers, from its left, show ``losers``."""
    events = table.deal()
    first_hand = table.deal_state.first_hand
    dealer = table.deal_state.dealer
    assert transfers(events) == [(f"seat:{dealer}", f"box:{c}", s, "ante") for c, s in BOARD_AFTER_ANTE.items()]
    events += table.play(first_hand, winner, announced=announced)
    for offset, hand in enumerate(losers, start=1):
        events += table.reveal((first_hand + offset) % table.state.n, hand)
    return events


def test_a_three_player_game_ends_after_twelve_deals() -> None:
    """Twelve deals scored without hands; in each, first hand lays hearts A..K (KH called) and
    9D 10D (10D called) — an Opera — and the next seats show clubs A..10 Q K + AD 2D 3D (81 points,
    pays 162) and spades A..J K + 4D 5D 6D (90 points, pays 180). No honour is held.

    Per deal: the winner gains 4 + 1 (boxes) + 4 (hoc chips) + 162 + 180 = 351; the next seat loses
    2 + 162 = 164; the dealer loses 15 + 2 + 180 = 197. JC, QS and 7D keep their stakes (+10 a deal).
    Dealers go 2, 0, 1, 2…: each seat plays each part four times and ends with 500 + 4 × (351 − 164 − 197)
    = 460; board 10D 0, JC 24, QS 36, KH 0, 7D 60 (3 × 460 + 120 = 1500). All three share rank 1.
    """
    table = Table(3, PROFILE, 500)
    for number in range(1, 13):
        events = play_opera(table, WINNER_3, "KH 10D", LOSERS_3)
        assert deal_ended(events)["grand_opera"] is True
        if number < 12:
            assert table.state.status == "ready"
    assert table.balances == [460, 460, 460]
    assert table.board == {"10D": 0, "JC": 24, "QS": 36, "KH": 0, "7D": 60}
    result = result_of(table)
    assert table.state.status == "ended" and table.state.deals_played == 12
    assert result["reason"] == "max_deals"
    assert [row["rank"] for row in result["standings"]] == [1, 1, 1]
    assert result["board_left"] == table.board
    assert table.refuse({"type": "deal"}).code == "game-ended"


def test_a_five_player_game_ends_after_ten_deals() -> None:
    """Ten deals of five, scored without hands; first hand lays 5H..KH (KH called: box 4 and four
    chips), an Opera; from its left the others show 45, 45, 48 and 50 points and pay 90, 90, 96, 100.

    Per deal: winner +4 +4 +376 = +384; the next two seats −91 each, the third −97, the dealer
    −15 −1 −100 = −116. Each seat plays each part twice: 500 + 2 × (384 − 91 − 91 − 97 − 116) = 478.
    Board 10D 10, JC 20, QS 30, KH 0, 7D 50 (5 × 478 + 110 = 2500).
    """
    table = Table(5, PROFILE, 500)
    for _ in range(10):
        play_opera(table, WINNER_5, "KH", LOSERS_5)
    assert table.balances == [478] * 5
    assert table.board == {"10D": 10, "JC": 20, "QS": 30, "KH": 0, "7D": 50}
    assert table.state.deals_played == 10 and result_of(table)["reason"] == "max_deals"


def test_the_last_deal_ends_on_max_deals_even_when_the_next_dealer_could_not_ante() -> None:
    """One deal agreed (``max_deals: 1``), the deal passing to the previous seat. 190 chips; seat 2
    antes (175). Seat 0's Opera as in the twelve-deal game, but seat 1 shows the spades (90 points:
    pays 180, and 2 hoc chips: 8 left) and seat 2 the clubs (81: 162 + 2, 11 left). Seat 1 would deal
    next and holds 8 chips, fewer than the 15 of an ante, but no deal follows: the game ends on
    max_deals. Without the limit the same deal ends the game because seat 1 cannot ante."""
    rotation = {"dealer_rotation": "previous"}
    for overrides, reason in (({**rotation, "max_deals": 1}, "max_deals"), (rotation, "cannot_ante")):
        table = Table(3, {"profile": PROFILE, **overrides}, 190)
        play_opera(table, WINNER_3, "KH 10D", tuple(reversed(LOSERS_3)))
        assert table.balances == [541, 8, 11]
        assert result_of(table)["reason"] == reason


# --- the example game -----------------------------------------------------------------------------------
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "avantcoureur-1760-lorraine.json"


def test_the_lorraine_example_shows_the_1760_rules() -> None:
    """Three deals at 120 chips (the notes tell them): 28 hoc chips in all (8, 10 and 10), the Nain laid
    out of sequence in deal 2 when the run wanted the 8S and passed over in deals 1 and 3 when it was the
    next card, its holder paying double and bête in deals 1 and 3. Agathe 92, Basile 108, Colette 150;
    10 chips left on the Nain's box."""
    events, state = load_game(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    hocs = Counter(e.deal for e in events if e.type == "transfer" and e.data["reason"] == "hoc")
    assert hocs == {1: 8, 2: 10, 3: 10}
    # (deal, seat, the card the run wanted) when a 7D was laid, and at each pass
    laid_when: list[tuple[int, int, str | None]] = []
    passed_when: list[tuple[int, int, str | None]] = []
    running = replay(events[:1])
    for event in events[1:]:
        wanted = None if running.deal is None else expected_label(running.deal)
        if event.type == "play" and "7D" in event.data["cards"]:
            laid_when.append((event.deal, event.data["seat"], wanted))
        elif event.type == "pass":
            passed_when.append((event.deal, event.data["seat"], wanted))
        running = fold(running, event)
    assert laid_when == [(2, 2, "8S")]
    assert [p for p in passed_when if p[2] == "7D"] == [(1, 2, "7D"), (1, 0, "7D"), (3, 0, "7D"), (3, 1, "7D")]
    held = [(e.data["number"], p["amount"], p["points"]) for e in of_type(events, "deal_ended")
            for p in e.data["payments"] if "7D" in e.data["hands_left"][str(p["seat"])]]
    assert held == [(1, 14, 7), (3, 14, 7)]
    betes = [(e.data["number"], b["card"]) for e in of_type(events, "deal_ended") for b in e.data["betes"]]
    assert betes == [(1, "7D"), (3, "7D")]
    assert list(state.balances) == [92, 108, 150] and state.board()["7D"] == 10
    assert state.result is not None and state.result["reason"] == "agreed"


# --- the simulator ---------------------------------------------------------------------------------------
def conserved_at_every_event(events: list[Event]) -> bool:
    state = None
    for event in events:
        state = fold(state, event)
        if sum(state.balances) + sum(state.boxes) != state.total_chips:
            return False
    return True


def check_simulated_games(info: str, seeds: range, deep_every: int) -> None:
    """Simulate a game per seed; each conserves chips, replays to its state and audits clean.

    Every ``deep_every``-th seed starts with deep pockets (900 chips), so that games also run their
    twelve or ten deals; the others start with 2 to 8 antes and mostly end on a shortfall.
    """
    reasons: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for seed in seeds:
        chips = 15 * 60 if seed % deep_every == 0 else None
        game = simulate(seed, PROFILE, info=info, deals=None, starting_chips=chips)
        assert game.state is not None and game.state.status == "ended", seed
        assert conserved_at_every_event(game.events), seed
        assert snapshot(replay(game.events)) == snapshot(game.state), seed
        report = audit(chained_records(game.events))
        assert report["ok"], (seed, report["findings"])
        assert game.state.result is not None
        reasons[game.state.result["reason"]] += 1
        for event in game.events:
            if event.type == "transfer":
                seen[event.data["reason"]] += 1
            elif event.type == "play" and "7D" in event.data["cards"]:
                seen["wild"] += 1
            elif event.type == "deal":
                assert (event.data.get("hands") is not None) == (info == "full"), seed
    assert {"shortfall", "max_deals"} <= set(reasons)
    assert {"ante", "take", "hoc", "payment", "bete", "wild", "undo", "adjust"} <= set(seen)
    assert "grand_opera" not in seen  # the 1760 Opera doubles payments, it sweeps nothing


@scaled
@pytest.mark.parametrize("info", ["full", "partial"])
def test_the_simulator_plays_the_1760_rules(info: str) -> None:
    check_simulated_games(info, range(sized(100, 1100)), deep_every=sized(25, 5))
