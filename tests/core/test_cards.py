"""Cards (SPEC §2): tolerant parsing, canonical output, clear refusals."""

from __future__ import annotations

import pickle

import pytest

from nj_ledger import DECK, Card, InvalidInput, parse_card, parse_cards
from nj_ledger.cards import card_points, parse_rank, rank_label
from support.sentences import said


def test_the_deck_has_52_distinct_canonical_cards() -> None:
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    assert {card.suit for card in DECK} == {"C", "D", "H", "S"}
    assert sorted({card.rank for card in DECK}) == list(range(1, 14))
    assert all(parse_card(str(card)) is card for card in DECK)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("10D", "10D"),
        ("10d", "10D"),
        ("td", "10D"),
        ("TD", "10D"),
        ("T♦", "10D"),
        ("10♦", "10D"),
        ("jc", "JC"),
        ("J♣", "JC"),
        ("j♧", "JC"),
        ("qs", "QS"),
        ("Q♠", "QS"),
        ("q♤", "QS"),
        ("kh", "KH"),
        ("K♥", "KH"),
        ("k♡", "KH"),
        ("7d", "7D"),
        ("7♦", "7D"),
        ("7♢", "7D"),
        ("♦7", "7D"),
        ("♦10", "10D"),
        ("♣J", "JC"),
        ("♥A", "AH"),
        ("ah", "AH"),
        ("  9s ", "9S"),
        ("2c", "2C"),
    ],
)
def test_parsing_is_tolerant_and_output_canonical(text: str, canonical: str) -> None:
    card = parse_card(text)
    assert card == canonical
    assert str(card) == canonical
    assert card is parse_card(canonical)  # interned: one object per card


def test_a_card_carries_rank_suit_and_points() -> None:
    assert (parse_card("AS").rank, parse_card("AS").suit, parse_card("AS").points) == (1, "S", 1)
    assert (parse_card("7D").rank, parse_card("7D").points) == (7, 7)
    assert [parse_card(c).points for c in ("9H", "10H", "JH", "QH", "KH")] == [9, 10, 10, 10, 10]
    assert card_points(parse_card("QS")) == 10
    assert parse_rank("t") == 10 and parse_rank("q") == 12 and parse_rank("A") == 1 and parse_rank("1") == 1
    assert [rank_label(r) for r in (1, 10, 11, 12, 13)] == ["A", "10", "J", "Q", "K"]


def test_a_card_is_its_text() -> None:
    card = parse_card("q♠")
    assert isinstance(card, Card) and isinstance(card, str)
    assert card == "QS" and {"QS": 1}[card] == 1
    assert pickle.loads(pickle.dumps(card)) is card


def test_parse_cards_keeps_order_and_accepts_a_text() -> None:
    assert parse_cards(["kh", "A♠", "t♣"]) == ("KH", "AS", "10C")
    assert parse_cards("9h, 10d jc") == ("9H", "10D", "JC")
    assert parse_cards([]) == ()


@pytest.mark.parametrize(
    "text", ["", "  ", "D", "10", "1D0", "11D", "0H", "ZZ", "10X", "KK", "♦", "7♦♦", "Joker"]
)
def test_an_unknown_card_is_refused_with_invalid_card(text: str) -> None:
    with pytest.raises(InvalidInput) as refusal:
        parse_card(text)
    assert refusal.value.code == "invalid-card"
    assert repr(text) in said(refusal.value)


@pytest.mark.parametrize("value", [None, 7, 10.0, ["7D"], {"card": "7D"}])
def test_a_card_must_be_text(value: object) -> None:
    with pytest.raises(InvalidInput) as refusal:
        parse_card(value)
    assert refusal.value.code == "invalid-card"


def test_a_bad_card_in_a_list_refuses_the_list() -> None:
    with pytest.raises(InvalidInput) as refusal:
        parse_cards(["7D", "8Z"])
    assert refusal.value.code == "invalid-card" and "8Z" in said(refusal.value)


def test_an_unknown_rank_is_refused() -> None:
    with pytest.raises(InvalidInput) as refusal:
        parse_rank("Z")
    assert refusal.value.code == "invalid-card"
