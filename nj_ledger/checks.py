"""What the deciders check of a state before an action is recorded: a deal open (or not), whose turn it is, the
cards that may be laid, the cards that may be announced. Each refusal names what it is about in values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import RANK_NAMES_FR, Card, rank_label
from .errors import RuleViolation
from .messages import Listed
from .settlement import player
from .state import ENDED, PLAYING, READY, REVEALING, DealState, GameState


def require_open_deal(s: GameState, *, revealing_ok: bool = False) -> DealState:
    if s.status == ENDED:
        raise RuleViolation("game-ended", "This game has ended: nothing more can be recorded.")
    if s.status == READY:
        raise RuleViolation("no-deal-in-progress", "No deal is in progress: record a deal first.")
    assert s.deal is not None
    if s.status == REVEALING and not revealing_ok:
        raise RuleViolation(
            "awaiting-reveal",
            "The deal is over; settlement waits for the cards left in hand by {players}.",
            players=Listed(tuple(player(s, seat) for seat in s.deal.awaiting)),
        )
    return s.deal


def require_between_deals(s: GameState) -> None:
    if s.status == ENDED:
        raise RuleViolation("game-ended", "This game has ended: nothing more can be recorded.")
    if s.status in (PLAYING, REVEALING):
        raise RuleViolation(
            "deal-in-progress", "Deal {deal} is still in progress: finish it first.", deal=s.deal_number
        )


def wanted(rank: int | None, suit: str | None) -> str:
    """The missing card as a player calls it: "sans Valet", or with its suit in suit play."""
    name = RANK_NAMES_FR[rank] if rank else "?"
    return f"{name} {suit}" if suit else name


def continues(deal: DealState, card: Card) -> bool:
    return card.rank == deal.expected and (deal.expected_suit is None or card.suit == deal.expected_suit)


def not_your_turn(s: GameState, turn: int | None, seat: int) -> RuleViolation:
    assert turn is not None  # a deal being played always has a seat to act
    return RuleViolation("not-your-turn", "It is {turn_player}'s turn, not {player}'s.",
                         turn_player=player(s, turn), player=player(s, seat), turn=turn)


def check_may_pass(s: GameState, seat: int) -> None:
    """With ``may_stop: false`` a player holding the wanted card must play it (when hands are known)."""
    deal = s.deal
    assert deal is not None
    if s.rules.may_stop or deal.hands is None or deal.expected is None:
        return
    if any(continues(deal, card) and card != s.rules.wild for card in deal.hands[seat]):
        raise RuleViolation(
            "must-continue",
            "{player} holds a {wanted} and must play it: "
            "these rules do not let a player pass or stop while holding the next card.",
            player=player(s, seat), wanted=wanted(deal.expected, deal.expected_suit),
            seat=seat,
        )


def check_cards(s: GameState, deal: DealState, seat: int, cards: Sequence[Card]) -> tuple[int | None, str | None]:
    """Each card laid may be laid, in its order; the rank (and suit) the run wants after them."""
    rules = s.rules
    hand = deal.hands[seat] if deal.hands is not None else None
    expected, suit = deal.expected, deal.expected_suit
    for position, card in enumerate(cards):
        if card in deal.seen:
            raise RuleViolation("card-already-played", "{card} has already been played in this deal.", card=card)
        if deal.talon is not None and card in deal.talon:
            raise RuleViolation("card-not-in-hand", "{card} is in the talon, not in a hand.", card=card)
        if hand is not None and card not in hand:
            raise RuleViolation(
                "card-not-in-hand", "{player} was not dealt {card}.", player=player(s, seat), card=card
            )
        if card == rules.wild:
            pass  # the chief hoc may be laid at any time in its holder's turn
        elif expected is None:
            if (position == 0 and not deal.opened and rules.opening == "lowest" and hand is not None
                    and card.rank != min(c.rank for c in hand)):
                lowest = rank_label(min(c.rank for c in hand))
                raise RuleViolation(
                    "not-lowest", "The deal opens with the lowest card of first hand: a {lowest}, not {card}.",
                    lowest=lowest, card=card,
                )
        elif card.rank != expected or (suit is not None and card.suit != suit):
            raise RuleViolation(
                "out-of-sequence", "{card} does not follow: the run wants a {expected}.", card=card,
                expected=rank_label(expected) + (suit or ""),
            )
        if rules.ends_run(card):
            expected, suit = None, None
        else:
            expected, suit = card.rank + 1, (card.suit if rules.sequence == "suit" else None)
    return expected, suit


def check_announced(s: GameState, cards: Sequence[Card], called: Iterable[Card]) -> None:
    rules = s.rules
    for card in called:
        if not rules.announceable(card):
            raise RuleViolation(
                "not-an-honour",
                "{card} is not a card to announce ({announceable}, the Kings and the hocs): there is nothing to call."
                if rules.hoc_reward else
                "{card} is not a card to announce ({announceable}): there is nothing to call.",
                announceable=Listed(tuple(rules.board)),
                card=card,
            )
        if card not in cards:
            raise RuleViolation(
                "announced-not-played", "{card} is announced but not among the cards played.", card=card
            )
