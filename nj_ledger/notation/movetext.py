"""The deals and turns of an NJN text, read into table actions, each with the place it was written.

A statement starts with a keyword (``Deal``, ``Hand``, ``Talon``, ``Reveal``,
``Undo``, ``Adjust``, ``End``) or with a seat and a colon (``0: 5H 6H``,
``1: pass``); it runs until the next statement, so line breaks are free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..bounds import MAX_DIGITS
from ..cards import parse_card
from ..errors import InvalidInput
from .header import TOO_LARGE, is_number, read_seat, too_large
from .problems import N_
from .syntax import Place, Scanner, Token, clip

KEYWORDS = frozenset({"deal", "hand", "talon", "reveal", "undo", "adjust", "end"})
PASS_WORDS = ("pass", "passe")
# A reveal by count: "Reveal 1: 10 cards 62 points honours KH" (French words too, as a table says them)
CARD_WORDS = ("cards", "card", "cartes", "carte")
POINT_WORDS = ("points", "point")
HONOUR_WORDS = ("honours", "honors", "honneurs")
COUNT_FORM = N_("A reveal by count is written: Reveal 1: 10 cards 62 points honours KH (honours only if held).")
_BLANK = r"(?:[\s,]++|\{[^}]*+\}|;[^\n]*+)*+"  # blank space, commas and comments
_END = r'(?=[\s{}\[\]";:,]|\Z)'  # where a word ends
# Words that start no statement, passed over unscanned when a statement that was not understood is skipped:
# not a keyword, and another word (or the end) after them. Anything else after a word is left to the scanner:
# a colon makes it a turn, and so does a colon behind what scanning drops (a stray } or ], a tag, a string
# never closed), as in "xx } :".
_NO_STATEMENT = re.compile(
    rf"{_BLANK}(?:(?!(?i:{'|'.join(sorted(KEYWORDS))}){_END})"
    rf'[^\s{{}}\[\]";:,]++(?={_BLANK}(?:[^\s{{}}\[\]";:,]|\Z)){_BLANK})++'
)


def fold(word: str) -> str:
    """A word as keywords are matched: in any case of its ASCII letters (``DEAL``, ``Deal``, ``deal``).

    >>> fold("PASSE"), fold("Dealé")
    ('passe', 'Dealé')
    """
    return word.lower() if word.isascii() else word


@dataclass(slots=True)
class Statement:
    """Where an action was written: its first word, and each card it names."""

    place: Place
    cards: dict[str, Place] = field(default_factory=dict)


class Movetext:
    """The statements after the tags, turned into table actions, each with where it was written."""

    def __init__(self, scanner: Scanner, players: list[str] | None) -> None:
        self.scanner = scanner
        self.tokens = scanner.tokens  # scanned as far as they are asked for
        self.players = players
        self.i = 0
        self.actions: list[dict[str, Any]] = []
        self.statements: list[Statement] = []  # one per action
        self.dealing: int | None = None  # the deal action that Hand and Talon lines still belong to
        self.hands: dict[int, list[str]] = {}  # that deal's hands, by seat
        self.deals = 0

    # --- the token stream ---------------------------------------------------------------------
    def peek(self, offset: int = 0) -> Token | None:
        index = self.i + offset
        return self.tokens[index] if index < len(self.tokens) else self.scanner.token(index)

    def take(self) -> Token | None:
        token = self.peek()
        self.i += 1
        return token

    def at_word(self, *words: str, offset: int = 0) -> bool:
        token = self.peek(offset)
        return token is not None and token.kind == "word" and fold(token.text) in words

    def at_colon(self, offset: int = 0) -> bool:
        token = self.peek(offset)
        return token is not None and token.kind == "colon"

    def at_statement(self) -> bool:
        """A keyword, or a seat followed by a colon."""
        token = self.peek()
        if token is None or token.kind == "colon":
            return False
        if token.kind == "word" and fold(token.text) in KEYWORDS:
            return True
        following = self.peek(1)
        return following is not None and following.kind == "colon"

    def here(self) -> Place:
        token = self.peek()
        return token.place if token is not None else self.scanner.place(len(self.scanner.text))

    def fail(self, place: Place, template: str, **params: Any) -> None:
        """Report a problem and move on to the next statement."""
        self.scanner.error(place, template, **params)
        self.skip()

    def skip(self) -> None:
        """Move on to the next statement (:meth:`at_statement`, unrolled); a run of words that start none is
        passed over without being scanned."""
        tokens, scanner, i = self.tokens, self.scanner, self.i
        while True:
            if i >= len(tokens):
                scanner.pass_over(_NO_STATEMENT)
                if scanner.token(i) is None:
                    break
            token = tokens[i]
            if token.kind == "word" and fold(token.text) in KEYWORDS:
                break
            if token.kind != "colon":
                if i + 1 >= len(tokens) and scanner.pass_over(_NO_STATEMENT):
                    i += 1  # a word that starts no statement follows: no colon does
                    continue
                following = scanner.token(i + 1)
                if following is not None and following.kind == "colon":
                    break
            i += 1
        self.i = i

    # --- the statements -----------------------------------------------------------------------
    def read(self) -> list[dict[str, Any]]:
        while (token := self.peek()) is not None:
            keyword = fold(token.text) if self.at_word(*KEYWORDS) else None
            if keyword not in ("hand", "talon"):
                self.close_deal()
            if keyword is not None:
                self.i += 1
                getattr(self, f"read_{keyword}")(token)
            elif self.at_statement():
                self.read_turn(token)
            else:
                self.i += 1
                self.fail(token.place, '{text!r} starts no statement: expected a deal, a turn like "0: 5H 6H", '
                                       "a reveal, an undo, an adjustment or the end.", text=clip(token.text))
        self.close_deal()
        return self.actions

    def add(self, action: dict[str, Any], token: Token, cards: dict[str, Place] | None = None) -> None:
        self.actions.append(action)
        self.statements.append(Statement(token.place, cards or {}))

    def finish(self, template: str) -> None:
        """Nothing but the next statement may follow a statement: ``template`` names it, ``{text}`` is what does."""
        extra = self.peek()
        if extra is not None and not self.at_statement():
            self.fail(extra.place, template, text=clip(extra.text))

    def seat(self) -> int | None:
        """A seat number, or a player's name (a word or a text in quotes)."""
        token = self.peek()
        if token is None or token.kind == "colon" or self.at_word(*KEYWORDS):
            self.scanner.error(self.here(), "A seat is missing here.")
            return None
        self.i += 1
        return read_seat(self.scanner, token.text, token.place, self.players)

    def seat_and_colon(self) -> int | None:
        seat = self.seat()
        if self.at_colon():
            self.i += 1
        return seat

    def cards(self, places: dict[str, Place], announced: list[str] | None = None) -> list[str] | None:
        """The cards up to the next statement; ``QS!`` marks an announced honour where ``announced`` is given.

        None when a card was not understood (the problem is reported).
        """
        cards: list[str] | None = []
        while (token := self.peek()) is not None and token.kind == "word" and not self.at_statement():
            self.i += 1
            text = token.text.rstrip("!")
            marked = text != token.text
            try:
                card = parse_card(text)
            except InvalidInput:
                self.scanner.error(token.place, "{text!r} is not a card: write rank and suit, like 10D, JC, QS, KH "
                                                "or 7D.", text=clip(token.text))
                cards = None
                continue
            if marked and announced is None:
                self.scanner.error(token.place, "Only a card played is announced with !.")
                cards = None
                continue
            places[card] = token.place
            if cards is not None:
                cards.append(str(card))
            if marked and announced is not None:
                announced.append(str(card))
        return cards

    def read_deal(self, token: Token) -> None:
        self.deals += 1
        action: dict[str, Any] = {"type": "deal"}
        number = self.peek()
        if number is not None and number.kind == "word" and is_number(number.text) and not self.at_statement():
            self.i += 1
            if too_large(number.text) or int(number.text) != self.deals:
                self.scanner.error(number.place, "This is deal {deal} of the game, not deal {written}.",
                                   deal=self.deals, written=clip(number.text))
        if self.at_word("dealer"):
            self.i += 1
            if self.at_colon():
                self.i += 1
            dealer = self.seat()
            if dealer is not None:
                action["dealer"] = dealer
        self.add(action, token)
        self.dealing, self.hands = len(self.actions) - 1, {}
        self.finish("{text!r} does not belong to this Deal line.")

    def read_hand(self, token: Token) -> None:
        seat = self.seat_and_colon()
        places: dict[str, Place] = {}
        cards = self.cards(places)
        if self.dealing is None:
            self.scanner.error(token.place, "A Hand line comes right after its Deal line.")
        elif seat in self.hands:
            self.scanner.error(token.place, "Seat {seat}'s hand is given twice in this deal.", seat=seat)
        elif seat is not None and cards is not None:
            self.hands[seat] = cards
            self.statements[self.dealing].cards.update(places)

    def read_talon(self, token: Token) -> None:
        if self.at_colon():
            self.i += 1
        places: dict[str, Place] = {}
        cards = self.cards(places)
        if self.dealing is None:
            self.scanner.error(token.place, "The Talon line comes right after its Deal line.")
        elif "talon" in self.actions[self.dealing]:
            self.scanner.error(token.place, "The talon is given twice in this deal.")
        elif cards is not None:
            self.actions[self.dealing]["talon"] = cards
            self.statements[self.dealing].cards.update(places)

    def close_deal(self) -> None:
        """Give the deal being read its hands, one per seat in seat order (or none)."""
        if self.dealing is None:
            return
        action, statement = self.actions[self.dealing], self.statements[self.dealing]
        if self.hands:
            seats = range(len(self.players) if self.players else max(self.hands) + 1)
            missing = [str(seat) for seat in seats if seat not in self.hands]
            if missing:
                self.scanner.error(statement.place, "This deal gives no hand for seat {seats}: give every hand, "
                                                    "or none.", seats=", ".join(missing))
            else:
                action["hands"] = [self.hands[seat] for seat in seats]
                if "talon" in action:  # hands, then the talon, as a deal is written
                    action["talon"] = action.pop("talon")
        self.dealing, self.hands = None, {}

    def read_turn(self, token: Token) -> None:
        seat = self.seat_and_colon()
        if self.at_word(*PASS_WORDS) and not self.at_statement():
            self.i += 1
            if seat is not None:
                self.add({"type": "pass", "seat": seat}, token)
            self.finish("{text!r} does not belong to this pass.")
            return
        places: dict[str, Place] = {}
        announced: list[str] = []
        cards = self.cards(places, announced)
        if cards == []:
            self.scanner.error(token.place, "A turn lists the cards played, or pass.")
        elif cards is not None and seat is not None:
            self.add({"type": "play", "seat": seat, "cards": cards, "announced": announced}, token, places)

    def read_reveal(self, token: Token) -> None:
        seat = self.seat_and_colon()
        first = self.peek()
        if first is not None and first.kind == "word" and is_number(first.text) and not self.at_statement():
            self.read_count(token, seat)
            return
        places: dict[str, Place] = {}
        cards = self.cards(places)
        if cards is not None and seat is not None:
            self.add({"type": "reveal", "seat": seat, "cards": cards}, token, places)

    def read_count(self, token: Token, seat: int | None) -> None:
        """``Reveal 1: 10 cards 62 points honours KH``: a loser's hand told by count."""
        numbers: list[int] = []
        for words in (CARD_WORDS, POINT_WORDS):
            number = self.peek()
            if number is None or number.kind != "word" or not is_number(number.text) or self.at_statement():
                self.fail(self.count_place(token), COUNT_FORM)
                return
            if too_large(number.text):
                self.fail(number.place, TOO_LARGE, value=clip(number.text), digits=MAX_DIGITS)
                return
            self.i += 1
            if not self.at_word(*words) or self.at_statement():
                self.fail(self.count_place(token), COUNT_FORM)
                return
            self.i += 1
            numbers.append(int(number.text))
        if self.at_word(*HONOUR_WORDS) and not self.at_statement():
            self.i += 1
        places: dict[str, Place] = {}
        honours = self.cards(places)
        if honours is not None and seat is not None:
            self.add({"type": "reveal", "seat": seat, "count": numbers[0], "points": numbers[1],
                      "honours": honours}, token, places)

    def count_place(self, token: Token) -> Place:
        """Where a reveal by count goes wrong: the word that does not belong, or its Reveal when it stops short."""
        return token.place if self.peek() is None or self.at_statement() else self.here()

    def reason(self) -> str:
        token = self.peek()
        if token is not None and token.kind == "string":
            self.i += 1
            return token.text
        return ""

    def read_undo(self, token: Token) -> None:
        self.add({"type": "undo", "reason": self.reason()}, token)
        self.finish("{text!r} does not belong to this Undo line.")

    def read_end(self, token: Token) -> None:
        self.add({"type": "end", "reason": self.reason()}, token)
        self.finish("{text!r} does not belong to this End line.")

    def read_adjust(self, token: Token) -> None:
        """``Adjust 2 from seat:0 to box:QS "reason"``."""
        amount = self.peek()
        if amount is None or amount.kind != "word" or not is_number(amount.text):
            self.fail(token.place, 'An adjustment is written: Adjust 2 from seat:0 to box:QS "reason".')
            return
        if too_large(amount.text):
            self.fail(amount.place, TOO_LARGE, value=clip(amount.text), digits=MAX_DIGITS)
            return
        self.i += 1
        accounts = []
        for word in ("from", "to"):
            if not self.at_word(word):
                self.fail(self.here(), '"{word}" and an account (seat:0, box:QS…) are expected here.', word=word)
                return
            self.i += 1
            accounts.append(self.account())
        if None not in accounts:
            self.add({"type": "adjust", "from": accounts[0], "to": accounts[1], "amount": int(amount.text),
                      "reason": self.reason()}, token)
        self.finish("{text!r} does not belong to this adjustment.")

    def account(self) -> str | None:
        """``seat:N`` (or a seat alone) or ``box:CARD``."""
        if self.at_word("box") and self.at_colon(1):
            self.i += 2
            place, key = self.here(), self.take()
            try:
                return f"box:{parse_card(key.text if key is not None else '')}"
            except InvalidInput:
                self.scanner.error(place, "A box is named by its honour, like box:QS.")
                return None
        if self.at_word("seat") and self.at_colon(1):
            self.i += 2
        seat = self.seat()
        return None if seat is None else f"seat:{seat}"
