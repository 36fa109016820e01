"""Cards of the 52-card French deck.

A card is written rank + suit letter: ranks ``A 2 … 10 J Q K`` (Ace low, King
high; ``T`` is accepted for 10) and suits ``C D H S``. Parsing is tolerant
(case, suit symbols ♣♦♥♠); output is always canonical::

    >>> parse_card("t♦")
    '10D'
    >>> parse_card("qs").rank, parse_card("qs").points
    (12, 10)

Cards are interned ``str`` subclasses, so they hash and serialise like their
canonical text while carrying their rank, suit and point value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .errors import InvalidInput

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
KING = 13
RANK_NAMES_FR = {
    1: "As", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
    11: "Valet", 12: "Dame", 13: "Roi",
}
_SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "♧": "C", "♢": "D", "♡": "H", "♤": "S"}


class Card(str):
    """One card, identical to its canonical text (``"10D"``)."""

    __slots__ = ("points", "rank", "suit")
    rank: int
    suit: str
    points: int

    def __new__(cls, rank: int, suit: str) -> Card:
        card = super().__new__(cls, RANKS[rank - 1] + suit)
        card.rank = rank
        card.suit = suit
        card.points = rank if rank < 10 else 10
        return card

    def __reduce__(self) -> tuple[Callable[[str], Card], tuple[str]]:  # pickle/copy keep the interned instance
        return (parse_card, (str(self),))


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))
_BY_TEXT: dict[str, Card] = {str(card): card for card in DECK}
_CANONICAL = _BY_TEXT.__getitem__  # the card of a canonical text (KeyError for any other)


def rank_label(rank: int) -> str:
    """The written rank (``"10"``, ``"J"``…) of a rank number 1–13."""
    return RANKS[rank - 1]


def parse_rank(text: str) -> int:
    """Rank number of a written rank (``"t"`` → 10, ``"q"`` → 12)."""
    label = str(text).strip().upper()
    if label == "T":
        label = "10"
    if label == "1":
        label = "A"
    try:
        return RANKS.index(label) + 1
    except ValueError:
        raise InvalidInput("invalid-card", "{text!r} is not a card rank (A, 2–10, J, Q, K).", text=text) from None


def parse_card(text: object) -> Card:
    """The canonical card for ``text``; :class:`InvalidInput` (``invalid-card``) otherwise."""
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise InvalidInput("invalid-card", "{text!r} is not a card: write rank and suit, like 10D or QS.", text=text)
    card = _BY_TEXT.get(text)
    if card is not None:
        return card
    raw = text.strip()
    if raw and raw[-1] in _SUIT_SYMBOLS:
        raw = raw[:-1] + _SUIT_SYMBOLS[raw[-1]]
    elif raw and raw[0] in _SUIT_SYMBOLS:  # "♦7" as some rule books write it
        raw = raw[1:] + _SUIT_SYMBOLS[raw[0]]
    raw = raw.upper().replace(" ", "")
    if len(raw) >= 2 and raw[-1] in SUITS:
        rank = raw[:-1]
        if rank == "T":
            rank = "10"
        card = _BY_TEXT.get(rank + raw[-1])
        if card is not None:
            return card
    raise InvalidInput(
        "invalid-card", "{text!r} is not a card: write rank and suit, like 10D, JC, QS, KH or 7D.", text=text
    )


def parse_cards(texts: Iterable[object]) -> tuple[Card, ...]:
    """Parse a list of cards, keeping their order."""
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    elif not isinstance(texts, (list, tuple)):
        texts = list(texts)
    try:  # the common case, canonical cards, is one lookup each
        return tuple(map(_CANONICAL, texts))
    except (KeyError, TypeError):
        return tuple(parse_card(text) for text in texts)


def card_points(card: Card) -> int:
    """Points of a card left in hand: A=1, 2–9 face value, 10 and courts 10."""
    return card.points
