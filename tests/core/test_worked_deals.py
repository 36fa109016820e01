"""Whole deals worked out by hand, one per profile, with every hand known (full information).

Each docstring follows the chips step by step; the test asserts the same figures exactly.
Seats are written s0, s1…; "sans X" is a stop with X the missing rank.
"""

from __future__ import annotations

from .helpers import Table, cards, of_type, transfers


def test_classic_three_players() -> None:
    """Classic, 3 players (15 cards, talon 7), 200 chips, seat 2 deals so s0 is first hand.

    Hands:
      s0  AC 2C 3C 4C 5C 6C QC KC 2D 3D 4D 8D 9D 10C JC
      s1  7D 8C 9C QS AH 2H 3H 4H 6H QH QD KD AS 2S 3S
      s2  10D JD KH 7C 6D 7H 8H 9H 10H JH 4S 6S 7S 8S 9S
      talon 5D 5H 5S AD 10S JS KS

    Antes: each seat stakes 1+2+3+4+5 = 15 → 185 each; boxes 10D 3, JC 6, QS 9, KH 12, 7D 15.

    Play:
      s0  A 2 3 4 5 6 of clubs, "sans 7".
      s1  7D 8C 9C, announcing the Nain Jaune: takes 15 → s1 200, box 7D 0. "sans 10".
      s2  10D JD, announcing 10D: takes 3 → s2 188, box 10D 0. "sans Dame".
      s0  QC KC, "Roi et je recommence": 2D 3D 4D, "sans 5" (every other 5 is in the talon).
      s1  passes; s0 then plays, so s2's pass is inferred: the run is blocked and s0, who laid
          the last card, restarts with 8D 9D 10C JC — JC not announced, its 6 chips stay — and is out.
      s0 laid cards in three turns: no Grand Opéra.

    Settlement (losers from s0's left: s1, s2):
      1. s1 keeps QS AH 2H 3H 4H 6H QH QD KD AS 2S 3S
             = 10+1+2+3+4+6+10+10+10+1+2+3 = 62 points → pays 62: s1 200-62 = 138.
         s2 keeps KH 7C 6D 7H 8H 9H 10H JH 4S 6S 7S 8S 9S
             = 10+7+6+7+8+9+10+10+4+6+7+8+9 = 101 points → pays 101: s2 188-101 = 87.
         s0 185 + 62 + 101 = 348.
      3. Bête (double): s1 holds QS → pays the 9 its box holds: s1 129, box QS 18.
                        s2 holds KH → pays 12: s2 75, box KH 24.
    Balances 348, 129, 75; boxes 10D 0, JC 6, QS 18, KH 24, 7D 0 (552 + 48 = 600 = 3 × 200).

    Next deal: s0 deals (next seat), s1 is first hand; the boxes keep what was left:
    10D 3, JC 12, QS 27, KH 36, 7D 15, and the balances are 333, 114, 60.
    """
    table = Table(3, "classic", 200)
    table.deal(
        [
            "AC 2C 3C 4C 5C 6C QC KC 2D 3D 4D 8D 9D 10C JC",
            "7D 8C 9C QS AH 2H 3H 4H 6H QH QD KD AS 2S 3S",
            "10D JD KH 7C 6D 7H 8H 9H 10H JH 4S 6S 7S 8S 9S",
        ]
    )
    assert sorted(table.deal_state.talon or ()) == sorted(cards("5D 5H 5S AD 10S JS KS"))
    assert table.balances == [185, 185, 185]
    assert table.board == {"10D": 3, "JC": 6, "QS": 9, "KH": 12, "7D": 15}

    table.play(0, "AC 2C 3C 4C 5C 6C")
    assert table.view["deal"]["expected"] == "7" and table.view["deal"]["turn"] == 1
    assert transfers(table.play(1, "7D 8C 9C", announced="7D")) == [("box:7D", "seat:1", 15, "take")]
    assert transfers(table.play(2, "10D JD", announced="10D")) == [("box:10D", "seat:2", 3, "take")]
    assert table.balances == [185, 200, 188]
    table.play(0, "QC KC")
    assert table.view["deal"]["turn"] == 0 and table.view["deal"]["expected"] is None
    table.play(0, "2D 3D 4D")
    table.pass_(1)
    events = table.play(0, "8D 9D 10C JC")
    assert [(e.type, e.data.get("seat")) for e in events[:2]] == [("pass", 2), ("play", 0)]
    assert events[0].data["inferred"] is True

    assert transfers(events) == [
        ("seat:1", "seat:0", 62, "payment"),
        ("seat:2", "seat:0", 101, "payment"),
        ("seat:1", "box:QS", 9, "bete"),
        ("seat:2", "box:KH", 12, "bete"),
    ]
    ended = of_type(events, "deal_ended")[0].data
    assert ended["winner"] == 0 and ended["grand_opera"] is False
    assert [(p["seat"], p["cards_left"], p["points"], p["paid"]) for p in ended["payments"]] == [
        (1, 12, 62, 62),
        (2, 13, 101, 101),
    ]
    assert table.balances == [348, 129, 75]
    assert table.board == {"10D": 0, "JC": 6, "QS": 18, "KH": 24, "7D": 0}
    assert table.state.status == "ready" and table.state.deals_played == 1

    events = table.deal()
    assert events[0].data["dealer"] == 0 and table.deal_state.first_hand == 1
    assert table.board == {"10D": 3, "JC": 12, "QS": 27, "KH": 36, "7D": 15}
    assert table.balances == [333, 114, 60]


def test_cards_four_players_grand_opera() -> None:
    """Cards (one chip a card left), 4 players (12 cards, talon 4), 50 chips, s3 deals, s0 first hand.

    Hands:
      s0  5C 6C 7D 8C 9C 10D JC QC KC AS 2S 3S
      s1  QS AC 2C 3C 4C 7C 10C AD 2D 3D 4D 5D
      s2  KH 6D 8D 9D JD QD KD AH 2H 3H 4H 5H
      s3  6H 7H 8H 9H 10H JH QH 4S 5S 6S 7S 8S
      talon 9S 10S JS KS

    Antes: 50 - 15 = 35 each; boxes 10D 4, JC 8, QS 12, KH 16, 7D 20.

    Play: s0 lays 5C 6C 7D 8C 9C 10D JC QC KC announcing 10D and JC (takes 4 and 8 → 47;
    boxes 10D 0, JC 0) but forgetting the Nain Jaune (its 20 stay); "Roi et je recommence":
    AS 2S 3S, recorded as a second play of the same turn. s0 is out in its first turn:
    a Grand Opéra.

    Settlement (losers s1, s2, s3), boxes when s0 went out: 0, 0, 12, 16, 20.
      1. each loser keeps 12 cards → pays 12: losers 23 each, s0 47 + 36 = 83.
      2. Grand Opéra, sweep: s0 takes QS 12, KH 16 and the forgotten 7D 20 → 131; boxes empty.
      3. Bête (double, the box as it stood when s0 went out): s1 holds QS → pays 12: 11;
         s2 holds KH → pays 16: 7. Boxes QS 12, KH 16.
    Balances 131, 11, 7, 23; boxes 0, 0, 12, 16, 0 (172 + 28 = 200 = 4 × 50).
    s1 and s2 cannot stake 15 for the next deal: the game ends (cannot_ante), 28 chips left on
    the board. Standings: s0 131, s3 23, s1 11, s2 7.
    """
    table = Table(4, "cards", 50)
    table.deal(
        [
            "5C 6C 7D 8C 9C 10D JC QC KC AS 2S 3S",
            "QS AC 2C 3C 4C 7C 10C AD 2D 3D 4D 5D",
            "KH 6D 8D 9D JD QD KD AH 2H 3H 4H 5H",
            "6H 7H 8H 9H 10H JH QH 4S 5S 6S 7S 8S",
        ]
    )
    assert table.balances == [35, 35, 35, 35]
    assert table.board == {"10D": 4, "JC": 8, "QS": 12, "KH": 16, "7D": 20}

    events = table.play(0, "5C 6C 7D 8C 9C 10D JC QC KC", announced="10D JC")
    assert transfers(events) == [("box:10D", "seat:0", 4, "take"), ("box:JC", "seat:0", 8, "take")]
    assert table.board["7D"] == 20
    events = table.play(0, "AS 2S 3S")
    assert transfers(events) == [
        ("seat:1", "seat:0", 12, "payment"),
        ("seat:2", "seat:0", 12, "payment"),
        ("seat:3", "seat:0", 12, "payment"),
        ("box:QS", "seat:0", 12, "grand_opera"),
        ("box:KH", "seat:0", 16, "grand_opera"),
        ("box:7D", "seat:0", 20, "grand_opera"),
        ("seat:1", "box:QS", 12, "bete"),
        ("seat:2", "box:KH", 16, "bete"),
    ]
    ended = of_type(events, "deal_ended")[0].data
    assert ended["grand_opera"] is True and ended["winner"] == 0
    assert [p["amount"] for p in ended["payments"]] == [12, 12, 12]
    assert table.balances == [131, 11, 7, 23]
    assert table.board == {"10D": 0, "JC": 0, "QS": 12, "KH": 16, "7D": 0}
    result = table.view["result"]
    assert result["reason"] == "cannot_ante"
    assert [(row["seat"], row["chips"], row["rank"]) for row in result["standings"]] == [
        (0, 131, 1),
        (3, 23, 2),
        (1, 11, 3),
        (2, 7, 4),
    ]
    assert result["board_left"] == {"10D": 0, "JC": 0, "QS": 12, "KH": 16, "7D": 0}


def test_skip_three_players() -> None:
    """Skip (blocked: skip, may_stop: false), 3 players (15 cards, talon 7), 150 chips, s0 first hand.

    Hands:
      s0  QS KS 3C 4C 5C 7C 8C JC JS AC 2C QC AS 2S 3S
      s1  9D 10C 10D 7D 9C 9S 10S AD 2D 3D 4D 5D 8D 4S 5S
      s2  JD QD 7H 8H 9H 10H JH QH AH 2H 3H 4H 5H 7S 8S
      talon 6C 6D 6H 6S KC KD KH      (every 6, and three Kings)

    Antes: 135 each; boxes 10D 3, JC 6, QS 9, KH 12, 7D 15.

    Play:
      s0  QS (announced: takes 9 → 144, box QS 0) KS, "Roi et je recommence": 3C 4C 5C, "sans 6".
      s1, s2 pass (no 6 anywhere): the 6 is skipped; s0, who laid the last card, may lay a 7.
      s0  7C 8C, "sans 9" — s0 could not stop at 7C while holding 8C (must-continue).
      s1  must lay a 9 (a pass is refused): 9D 10C, "sans Valet".
      s2  JD QD, "sans Roi".
      s0 passes; s2 plays again, so s1's pass is inferred: the King is missing, which always
          restarts: s2, who laid the last card, starts 7H 8H 9H 10H JH QH, "sans Roi".
      s2  plays again: s0 and s1 pass (inferred), the run restarts: AH 2H 3H 4H 5H, "sans 6".
      s2  plays again: s0 and s1 pass (inferred), the 6 is skipped: s2 lays 7S 8S and is out.

    Settlement (losers from s2's left: s0, s1), boxes when s2 went out: 3, 6, 0, 12, 15.
      1. s0 keeps JC JS AC 2C QC AS 2S 3S = 10+10+1+2+10+1+2+3 = 39 → 144-39 = 105.
         s1 keeps 10D 7D 9C 9S 10S AD 2D 3D 4D 5D 8D 4S 5S
             = 10+7+9+9+10+1+2+3+4+5+8+4+5 = 77 → 135-77 = 58.
         s2 135 + 39 + 77 = 251.
      3. Bête (double): s0 holds JC → pays 6: 99, box JC 12.
                        s1 holds 10D and 7D → pays 3 and 15: 40; boxes 10D 6, 7D 30.
    Balances 99, 40, 251; boxes 10D 6, JC 12, QS 0, KH 12, 7D 30 (390 + 60 = 450 = 3 × 150).
    """
    table = Table(3, "skip", 150)
    table.deal(
        [
            "QS KS 3C 4C 5C 7C 8C JC JS AC 2C QC AS 2S 3S",
            "9D 10C 10D 7D 9C 9S 10S AD 2D 3D 4D 5D 8D 4S 5S",
            "JD QD 7H 8H 9H 10H JH QH AH 2H 3H 4H 5H 7S 8S",
        ]
    )
    assert sorted(table.deal_state.talon or ()) == sorted(cards("6C 6D 6H 6S KC KD KH"))
    assert table.board == {"10D": 3, "JC": 6, "QS": 9, "KH": 12, "7D": 15}

    assert transfers(table.play(0, "QS KS 3C 4C 5C", announced="QS")) == [("box:QS", "seat:0", 9, "take")]
    table.pass_(1)
    table.pass_(2)
    assert table.view["deal"]["expected"] == "7" and table.view["deal"]["turn"] == 0
    assert table.refuse({"type": "play", "seat": 0, "cards": ["7C"]}).code == "must-continue"
    table.play(0, "7C 8C")
    assert table.refuse({"type": "pass", "seat": 1}).code == "must-continue"
    table.play(1, "9D 10C")
    table.play(2, "JD QD")
    table.pass_(0)
    events = table.play(2, "7H 8H 9H 10H JH QH")
    assert [(e.type, e.data["seat"]) for e in events] == [("pass", 1), ("play", 2)]
    events = table.play(2, "AH 2H 3H 4H 5H")
    assert [(e.type, e.data["seat"]) for e in events] == [("pass", 0), ("pass", 1), ("play", 2)]
    assert table.view["deal"]["run"] == cards("AH 2H 3H 4H 5H")
    events = table.play(2, "7S 8S")
    assert [(e.type, e.data.get("seat")) for e in events[:3]] == [("pass", 0), ("pass", 1), ("play", 2)]

    assert transfers(events) == [
        ("seat:0", "seat:2", 39, "payment"),
        ("seat:1", "seat:2", 77, "payment"),
        ("seat:0", "box:JC", 6, "bete"),
        ("seat:1", "box:10D", 3, "bete"),
        ("seat:1", "box:7D", 15, "bete"),
    ]
    ended = of_type(events, "deal_ended")[0].data
    assert ended["winner"] == 2 and ended["grand_opera"] is False
    assert ended["hands_left"]["0"] == cards("AC AS 2C 2S 3S JC JS QC")
    assert table.balances == [99, 40, 251]
    assert table.board == {"10D": 6, "JC": 12, "QS": 0, "KH": 12, "7D": 30}
    assert table.state.status == "ready" and table.view["next_dealer"] == 0


def test_hearts_five_players() -> None:
    """Hearts (board 10D JC QH KS 7D, lowest opening, no stopping, the first passer restarts,
    one chip a card, no bête, Grand Opéra without reward), 5 players (9 cards, talon 7), 40 chips;
    s4 deals, s0 is first hand.

    Hands:
      s0  2C 3C 4C 4S 9C 10C JC QC 8D
      s1  5D 6D 7D 5H 6H 7S AD 2D 3D
      s2  8H 9H 10H JH QH 8S 9S 10S JS
      s3  AS 2S 3S AH 2H 3H 7H 5C 6C
      s4  7C 8C 9D 10D JD QD 5S 6S QS
      talon KC KD KH KS 4D 4H AC      (every King)

    Antes: 40 - 15 = 25 each; boxes 10D 5, JC 10, QH 15, KS 20, 7D 25.

    Play:
      s0  may not open with 9C (not-lowest): its lowest card is a 2. 2C 3C 4C, "sans 5".
      s1  5D 6D 7D — the Nain Jaune laid but not announced: its 25 stay. "sans 8".
      s2  8H 9H 10H JH QH, announcing the Dame de cœur: takes 15 → 40, box QH 0. "sans Roi".
      s3  passes; s3 plays next, so s4, s0 and s1 pass (inferred): everyone passed, and the
          first passer, s3, restarts: AS 2S 3S, "sans 4".
      s0  plays (s4's pass inferred): 4S, "sans 5".
      s1  may not stop after 5H 6H while holding 7S (must-continue): 5H 6H 7S, "sans 8".
      s2  8S 9S 10S JS: out, in its second turn.

    Settlement (losers from s2's left: s3, s4, s0, s1), one chip a card:
      s3 keeps 6 → 19; s4 keeps 9 → 16; s0 keeps 5 → 20; s1 keeps 3 → 22; s2 40 + 23 = 63.
      No bête: s0 still holds JC, s4 10D — the boxes do not move.
    Balances 20, 22, 63, 19, 16; boxes 10D 5, JC 10, QH 0, KS 20, 7D 25 (140 + 60 = 200).

    Next deal: s0 deals (next seat after s4), s1 is first hand; boxes 10, 20, 15, 40, 50.
    """
    table = Table(5, "hearts", 40)
    table.deal(
        [
            "2C 3C 4C 4S 9C 10C JC QC 8D",
            "5D 6D 7D 5H 6H 7S AD 2D 3D",
            "8H 9H 10H JH QH 8S 9S 10S JS",
            "AS 2S 3S AH 2H 3H 7H 5C 6C",
            "7C 8C 9D 10D JD QD 5S 6S QS",
        ]
    )
    assert sorted(table.deal_state.talon or ()) == sorted(cards("KC KD KH KS 4D 4H AC"))
    assert table.board == {"10D": 5, "JC": 10, "QH": 15, "KS": 20, "7D": 25}
    assert table.balances == [25] * 5

    assert table.refuse({"type": "play", "seat": 0, "cards": ["9C"]}).code == "not-lowest"
    table.play(0, "2C 3C 4C")
    assert transfers(table.play(1, "5D 6D 7D")) == []
    assert transfers(table.play(2, "8H 9H 10H JH QH", announced="QH")) == [("box:QH", "seat:2", 15, "take")]
    table.pass_(3)
    events = table.play(3, "AS 2S 3S")
    assert [(e.type, e.data["seat"]) for e in events] == [("pass", 4), ("pass", 0), ("pass", 1), ("play", 3)]
    events = table.play(0, "4S")
    assert [(e.type, e.data["seat"]) for e in events] == [("pass", 4), ("play", 0)]
    assert table.refuse({"type": "play", "seat": 1, "cards": ["5H", "6H"]}).code == "must-continue"
    table.play(1, "5H 6H 7S")
    events = table.play(2, "8S 9S 10S JS")

    assert transfers(events) == [
        ("seat:3", "seat:2", 6, "payment"),
        ("seat:4", "seat:2", 9, "payment"),
        ("seat:0", "seat:2", 5, "payment"),
        ("seat:1", "seat:2", 3, "payment"),
    ]
    ended = of_type(events, "deal_ended")[0].data
    assert ended["grand_opera"] is False and ended["betes"] == []
    assert table.balances == [20, 22, 63, 19, 16]
    assert table.board == {"10D": 5, "JC": 10, "QH": 0, "KS": 20, "7D": 25}

    events = table.deal()
    assert events[0].data["dealer"] == 0 and table.deal_state.first_hand == 1
    assert table.board == {"10D": 10, "JC": 20, "QH": 15, "KS": 40, "7D": 50}
    assert table.balances == [5, 7, 48, 4, 1]
