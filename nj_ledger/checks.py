"""What the deciders check of a state before an action is recorded: a deal open (or not), whose turn it is, the
cards that may be laid, the cards that may be announced. Each refusal names what it is about in values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .actions import RevealCount
from .cards import DECK, RANK_NAMES_FR, Card, rank_label
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
        expected, suit = rules.wanted_after(card)
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


def require_awaited(s: GameState, seat: int) -> DealState:
    """A reveal of ``seat``'s hand: the deal is over and settlement waits for that hand."""
    deal = require_open_deal(s, revealing_ok=True)
    if s.status != REVEALING:
        raise RuleViolation("no-reveal-needed", "No hand is awaited: reveals come after a player goes out.")
    if seat not in deal.awaiting:
        raise RuleViolation(
            "no-reveal-needed", "{player}'s hand is not awaited.", player=player(s, seat), seat=seat
        )
    return deal


def declarable(s: GameState) -> tuple[Card, ...]:
    """The cards a count names when held: the honours of the board, and the wild card when holding it makes a
    loser pay double (the 1760 rules' 7D, an honour there too)."""
    rules = s.rules
    extra = (rules.wild,) if rules.wild_pays_double and rules.wild is not None else ()
    return tuple(dict.fromkeys((*rules.honours, *extra)))


def point_sums(values: Sequence[int], count: int) -> int:
    """Every sum ``count`` of these card values can make, as a bit set (bit ``n`` set: ``n`` can be made).

    >>> sums = point_sums([1, 10, 10, 10], 2)
    >>> [n for n in range(sums.bit_length()) if sums >> n & 1]
    [11, 20]
    """
    reach = [1] + [0] * count  # reach[j]: the sums j of the cards seen so far make
    for seen, value in enumerate(values):
        for j in range(min(count, seen + 1), 0, -1):
            reach[j] |= reach[j - 1] << value
    return reach[count]


def check_count(s: GameState, deal: DealState, told: RevealCount) -> None:
    """A hand told by count holds what it can: as many cards as the seat has left, honours of the board that
    nobody has shown, and points that that many cards not yet seen can make with those honours among them."""
    seat, count, points = told.seat, told.count, told.points
    left = deal.hand_sizes[seat]
    if count != left:
        raise RuleViolation(
            "reveal-mismatch", "{player} has {left} cards left, not {count}.",
            player=player(s, seat), left=left, count=count,
            seat=seat,
        )
    honours = declarable(s)
    for position, card in enumerate(told.honours):
        if card not in honours:
            raise RuleViolation(
                "not-an-honour",
                "{card} is not an honour ({honours}): only the honours still held are told with a count.",
                card=card, honours=Listed(honours),
                seat=seat,
            )
        if card in told.honours[:position]:
            raise RuleViolation("reveal-mismatch", "{card} is told twice.", card=card, seat=seat)
        if card in deal.seen:
            raise RuleViolation(
                "reveal-mismatch", "{card} has already been seen in this deal: {player} cannot hold it.",
                card=card, player=player(s, seat),
                seat=seat,
            )
        if deal.talon is not None and card in deal.talon:
            raise RuleViolation("reveal-mismatch", "{card} is in the talon, not in a hand.", card=card, seat=seat)
    if len(told.honours) > count:
        raise RuleViolation(
            "reveal-mismatch", "{player} cannot hold {honours} honours among {count} cards.",
            player=player(s, seat), honours=len(told.honours), count=count,
            seat=seat,
        )
    # the rest of the hand: cards nobody has seen, not in the talon when it is known, and no honour (the honours
    # held are the ones told)
    unseen = [card.points for card in DECK if card not in deal.seen and card not in honours
              and (deal.talon is None or card not in deal.talon)]
    rest = count - len(told.honours)
    if rest > len(unseen):
        raise RuleViolation(
            "reveal-mismatch",
            "{player} cannot hold {count} cards: only {unseen} cards not yet seen can be in that hand.",
            player=player(s, seat), count=count, unseen=len(unseen) + len(told.honours),
            seat=seat,
        )
    held = sum(card.points for card in told.honours)
    unseen.sort()
    least = held + sum(unseen[:rest])
    most = held + sum(unseen[len(unseen) - rest:])
    if not least <= points <= most:
        raise RuleViolation(
            "reveal-mismatch",
            "{player}'s {count} cards cannot make {points} points: {count} cards not yet seen, with the honours "
            "told, make {least} to {most} points.",
            player=player(s, seat), count=count, points=points, least=least, most=most,
            seat=seat,
        )
    if not point_sums(unseen, rest) >> (points - held) & 1:
        raise RuleViolation(
            "reveal-mismatch",
            "{player}'s {count} cards cannot make {points} points: {count} cards not yet seen, with the honours "
            "told, make {least} to {most} points, but never exactly {points}.",
            player=player(s, seat), count=count, points=points, least=least, most=most,
            seat=seat,
        )
