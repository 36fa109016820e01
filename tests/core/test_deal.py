"""A new game and its deals: validation, antes, dealers, hands and talon (SPEC §3.2, §4)."""

from __future__ import annotations

from typing import Any

import pytest

from nj_ledger import DECK, InvalidInput, new_game, replay
from support.sentences import said

from .helpers import NAMES, Table, cards, fill_hands, transfers

BOXES = ("box:10D", "box:JC", "box:QS", "box:KH", "box:7D")


# --- new_game -------------------------------------------------------------------------------------
def test_new_game_stores_players_resolved_rules_chips_and_dealer() -> None:
    started = new_game([" Ana ", "Ben", "Chloé"], {"profile": "cards", "max_deals": 4}, 60)
    assert started.type == "game_started" and started.deal == 0
    assert started.data["players"] == ["Ana", "Ben", "Chloé"]
    assert started.data["starting_chips"] == 60
    assert started.data["dealer"] == 2  # the last seat deals first: seat 0 is first hand
    assert started.data["rules"]["payment"] == "cards" and started.data["rules"]["max_deals"] == 4
    state = replay([started])
    assert state.status == "ready" and state.version == 1
    assert state.balances == (60, 60, 60) and state.boxes == (0, 0, 0, 0, 0)
    assert state.next_dealer() == 2
    assert new_game(["Ana", "Ben"], "classic", 30, dealer=0).data["dealer"] == 0


@pytest.mark.parametrize(
    ("players", "code"),
    [
        ("Ana, Ben", "invalid-players"),
        (["Ana", 7], "invalid-players"),
        (["Ana", ""], "invalid-players"),
        (["Ana", "   "], "invalid-players"),
        (["Ana", "x" * 81], "invalid-players"),
        (["Ana", "ana"], "invalid-players"),
        (["Ana"], "invalid-players"),
        (list(NAMES) + ["Inès"], "invalid-players"),
    ],
)
def test_new_game_refuses_bad_players(players: Any, code: str) -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(players, "classic", 100)
    assert refusal.value.code == code


def test_new_game_refuses_a_count_the_rules_do_not_allow() -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(["Ana", "Ben", "Chloé", "Denis"], {"profile": "classic", "players": [3, 5]}, 100)
    assert refusal.value.code == "invalid-players" and refusal.value.params["count"] == 4


@pytest.mark.parametrize("chips", [0, -5, 10**9 + 1, True, 2.5, "100", None])
def test_new_game_refuses_bad_starting_chips(chips: Any) -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(["Ana", "Ben"], "classic", chips)
    assert refusal.value.code == "invalid-chips"


def test_starting_chips_must_cover_one_ante_unless_balances_may_go_negative() -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(["Ana", "Ben"], "classic", 14)
    assert refusal.value.code == "starting-chips-too-low" and refusal.value.params["needed"] == 15
    with pytest.raises(InvalidInput) as refusal:
        new_game(["Ana", "Ben"], {"profile": "classic", "stake_unit": 2}, 29)
    assert refusal.value.params["needed"] == 30
    assert new_game(["Ana", "Ben"], "classic", 15).data["starting_chips"] == 15
    assert (
        new_game(["Ana", "Ben"], {"profile": "classic", "shortfall": "negative"}, 1).data["starting_chips"]
        == 1
    )


@pytest.mark.parametrize("dealer", [3, -1, "0", True, 1.0])
def test_new_game_refuses_a_dealer_who_is_not_a_seat(dealer: Any) -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(["Ana", "Ben", "Chloé"], "classic", 100, dealer=dealer)
    assert refusal.value.code == "invalid-players"


def test_new_game_refuses_bad_rules() -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(["Ana", "Ben"], {"profile": "classic", "payment": "gold"}, 100)
    assert refusal.value.code == "invalid-rules"


# --- antes --------------------------------------------------------------------------------------
def test_every_player_antes_the_board() -> None:
    table = Table(3, "classic", 60)
    events = table.deal()
    assert events[0].type == "deal" and events[0].deal == 1 and events[0].data == {"dealer": 2}
    expected = [
        (f"seat:{seat}", box, stake, "ante")
        for seat in range(3)
        for box, stake in zip(BOXES, (1, 2, 3, 4, 5), strict=True)
    ]
    assert transfers(events) == expected
    assert all(e.deal == 1 for e in events)
    assert table.board == {"10D": 3, "JC": 6, "QS": 9, "KH": 12, "7D": 15}
    assert table.balances == [45, 45, 45]
    assert table.state.status == "playing"


def test_the_stake_unit_multiplies_the_antes() -> None:
    table = Table(2, {"profile": "classic", "stake_unit": 3}, 100)
    table.deal()
    assert table.board == {"10D": 6, "JC": 12, "QS": 18, "KH": 24, "7D": 30}
    assert table.balances == [55, 55]


def test_with_ante_dealer_only_the_dealer_stakes() -> None:
    table = Table(3, {"profile": "classic", "ante": "dealer"}, 60)
    events = table.deal()
    assert {t[0] for t in transfers(events)} == {"seat:2"}
    assert table.balances == [60, 60, 45]
    assert table.board == {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 5}


def test_the_board_is_per_profile() -> None:
    table = Table(2, "hearts", 60)
    table.deal()
    assert table.board == {"10D": 2, "JC": 4, "QH": 6, "KS": 8, "7D": 10}


# --- dealers --------------------------------------------------------------------------------------
def _finish_deal_quickly(table: Table) -> None:
    """Partial information with one chip a card and no bête: a seat goes out without reveals."""
    deal = table.deal_state
    assert deal.turn is not None
    seat, size = deal.turn, deal.hand_sizes[deal.turn]
    unseen = [c for c in DECK if c not in deal.seen]
    run: list[str] = []
    for position in range(size):  # A to K, then "Roi et je recommence" from the Ace again
        rank = position % 13 + 1
        run.append(str(next(c for c in unseen if c.rank == rank and str(c) not in run)))
    table.play(seat, " ".join(run))
    assert table.state.status == "ready"


@pytest.mark.parametrize(("rotation", "dealers"), [("next", [2, 0, 1, 2]), ("previous", [2, 1, 0, 2])])
def test_dealers_follow_the_rotation(rotation: str, dealers: list[int]) -> None:
    table = Table(3, {"profile": "cards", "bete": "none", "dealer_rotation": rotation}, 200)
    seen = []
    for _ in dealers:
        assert table.view["next_dealer"] == table.state.next_dealer()
        events = table.deal()
        seen.append(events[0].data["dealer"])
        assert table.deal_state.first_hand == (seen[-1] + 1) % 3
        assert table.deal_state.turn == table.deal_state.first_hand
        _finish_deal_quickly(table)
    assert seen == dealers


def test_the_first_deal_may_name_its_dealer_and_later_deals_follow_it() -> None:
    table = Table(4, {"profile": "cards", "bete": "none"}, 200)
    table.deal(dealer=1)
    assert table.deal_state.dealer == 1 and table.deal_state.first_hand == 2
    _finish_deal_quickly(table)
    refusal = table.refuse({"type": "deal", "dealer": 1})
    assert refusal.code == "wrong-dealer" and refusal.params["expected"] == 2
    table.deal(dealer=2)  # naming the right dealer is fine
    assert table.deal_state.dealer == 2


def test_the_game_may_name_the_first_dealer() -> None:
    table = Table(3, "classic", 60, dealer=0)
    table.deal()
    assert table.deal_state.dealer == 0 and table.deal_state.first_hand == 1


@pytest.mark.parametrize("dealer", [3, -1])
def test_a_deal_by_no_seat_is_refused(dealer: int) -> None:
    assert Table(3).refuse({"type": "deal", "dealer": dealer}).code == "unknown-seat"


def test_a_deal_during_a_deal_is_refused() -> None:
    table = Table(3)
    table.deal()
    assert table.refuse({"type": "deal"}).code == "deal-in-progress"


# --- hands and talon -----------------------------------------------------------------------------
def test_full_hands_are_stored_canonically_and_the_talon_is_the_rest() -> None:
    hands = fill_hands(3, 15, {0: "a♣ t♦ Q♠"})
    hands[0] = [c.lower() for c in hands[0]]
    table = Table(3)
    events = table.deal(hands)
    data = events[0].data
    assert data["hands"][0][:3] == ["AC", "10D", "QS"]
    assert len(data["talon"]) == 7
    assert set(data["talon"]) | {c for hand in data["hands"] for c in hand} == set(DECK)
    assert table.view["deal"]["hands"][0][:2] == ["AC", "2C"]  # shown sorted by rank
    assert table.deal_state.talon == frozenset(data["talon"])


def test_hands_with_their_talon() -> None:
    hands = fill_hands(2, 22, {}, talon="AS 2S 3S 4S 5S 6S 7S 8S")
    table = Table(2)
    events = table.deal(hands, talon=cards("AS 2S 3S 4S 5S 6S 7S 8S"))
    assert events[0].data["talon"] == cards("AS 2S 3S 4S 5S 6S 7S 8S")


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda h: h[:2], "invalid-hands"),  # a hand is missing
        (lambda h: h + [[]], "invalid-hands"),  # a hand too many
        (lambda h: [h[0][:-1], h[1], h[2]], "invalid-hands"),  # 14 cards
        (lambda h: [h[0] + ["AS"], h[1], h[2]], "invalid-hands"),  # 16 cards
        (lambda h: [h[0], [h[0][0]] + h[1][1:], h[2]], "invalid-hands"),  # dealt twice, two hands
        (lambda h: [[h[0][0]] + h[0][1:-1] + [h[0][0]], h[1], h[2]], "invalid-hands"),  # twice in a hand
        (lambda h: "AC 2C", "invalid-hands"),  # not a list of hands
        (lambda h: [h[0], h[1], h[2][:-1] + ["ZZ"]], "invalid-card"),
        (lambda h: [h[0], h[1], "not a hand"], "invalid-action"),
    ],
)
def test_bad_hands_are_refused(mutate: Any, code: str) -> None:
    hands = fill_hands(3, 15, {})
    table = Table(3)
    assert table.refuse({"type": "deal", "hands": mutate(hands)}).code == code


@pytest.mark.parametrize(
    "talon",
    [
        ["AS", "2S", "3S"],  # too few
        ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S"],  # too many
        ["AS", "AS", "3S", "4S", "5S", "6S", "7S"],  # twice
    ],
)
def test_a_bad_talon_is_refused(talon: list[str]) -> None:
    assert Table(3).refuse({"type": "deal", "talon": talon}).code == "invalid-hands"


def test_a_talon_card_in_a_hand_is_refused() -> None:
    hands = fill_hands(3, 15, {})
    talon = [hands[0][0]] + [str(c) for c in DECK if all(str(c) not in h for h in hands)][:6]
    refusal = Table(3).refuse({"type": "deal", "hands": hands, "talon": talon})
    assert refusal.code == "invalid-hands" and hands[0][0] in said(refusal)


def test_deal_fields_are_checked() -> None:
    table = Table(3)
    refusal = table.refuse({"type": "deal", "cards": []})
    assert refusal.code == "invalid-action" and refusal.params["field"] == "cards"
    assert table.refuse({"type": "deal", "dealer": "2"}).code == "invalid-action"


def test_partial_information_deal_knows_only_the_hand_sizes() -> None:
    table = Table(4)
    table.deal()
    view = table.view["deal"]
    assert view["hands"] is None and view["hand_sizes"] == [12, 12, 12, 12]
    assert view["turn"] == 0 and view["expected"] is None and view["run"] == []
    assert view["can_undo"] is False and view["awaiting_reveal"] == []


# --- affording the ante -----------------------------------------------------------------------------
def test_a_deal_nobody_can_stake_is_refused_and_the_table_ends_the_game() -> None:
    table = Table(3, "classic", 16)
    table.do({"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2, "reason": "side bet"})
    refusal = table.refuse({"type": "deal"})
    assert refusal.code == "cannot-ante" and "Ana" in said(refusal)
    table.do({"type": "end", "reason": "Ana is ruined"})
    assert table.view["result"]["reason"] == "agreed"


def test_with_ante_dealer_only_the_dealer_must_afford_it() -> None:
    table = Table(3, {"profile": "classic", "ante": "dealer"}, 16)
    table.do({"type": "adjust", "from": "seat:0", "to": "seat:2", "amount": 2})
    table.deal()  # seat 2 deals; seat 0's 14 chips are not needed
    assert table.balances == [14, 16, 3]


def test_negative_balances_may_still_ante() -> None:
    table = Table(2, {"profile": "classic", "shortfall": "negative"}, 5)
    table.deal()
    assert table.balances == [-10, -10]
    assert sum(table.balances) + sum(table.board.values()) == 10
