"""From the core to the solver and back: the solver's table and position for a deal being played
(:func:`position`), and a series of the solver's moves written as the core's table actions (:func:`actions_of`,
which ``nj_ledger.decide.execute`` accepts and which give the same state). The positions and moves themselves
are :mod:`nj_ledger.analysis.model`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..cards import DECK, Card
from ..errors import InvalidInput
from ..state import PLAYING, GameState
from .model import CALL, LEAD, LEAD_ON, MIDDLE, NONE, P_MODE, P_TURN, PLAIN, RESPOND, Position, Table, card_index


# --- from the core's state ---------------------------------------------------------------------------
def position(state: GameState, hands: Sequence[Iterable[Card | str]] | Mapping[int, Iterable[Card | str]] | None
             = None, table: Table | None = None) -> tuple[Table, Position, tuple[frozenset[Card], ...]]:
    """The solver's table and position for ``state`` (a deal being played) with every hand known: the deal's
    own dealt hands, or ``hands`` (what each seat still holds, by seat). With ``table`` (made for an earlier
    position of the same deal) the position is written against it: a box emptied since is a box taken."""
    from ..cards import parse_cards

    deal = state.deal
    if state.status != PLAYING or deal is None or deal.turn is None:
        raise InvalidInput("not-analysable", "Only a deal being played can be analysed: no deal is in progress.")
    n = state.n
    if deal.hands is not None:
        held = deal.hands
    else:
        if hands is None:
            raise InvalidInput("hands-needed", "The hands of this deal are not known: give every hand to analyse it.")
        items = hands.items() if isinstance(hands, Mapping) else enumerate(hands)
        given = dict(items)
        held = tuple(frozenset(parse_cards(list(given.get(seat, ())))) for seat in range(n))
    seen: set[Card] = set()
    for seat, cards in enumerate(held):
        if len(cards) != deal.hand_sizes[seat]:
            raise InvalidInput("hands-mismatch", "Seat {seat} holds {left} cards, not {count}.",
                               seat=seat, left=deal.hand_sizes[seat], count=len(cards))
        for card in cards:
            if card in deal.seen or card in seen or (deal.talon is not None and card in deal.talon):
                raise InvalidInput("hands-mismatch", "{card} cannot be in seat {seat}'s hand.", card=card, seat=seat)
            seen.add(card)
    taken = 0
    if table is None or table.rules != state.rules or table.n != n or table.first_hand != deal.first_hand:
        table = Table(state.rules, n, state.boxes, deal.first_hand)
    else:
        for box, (then, now) in enumerate(zip(table.boxes, state.boxes, strict=True)):
            if now != then:
                if now != 0:
                    table = Table(state.rules, n, state.boxes, deal.first_hand)  # not the same deal
                    taken = 0
                    break
                taken |= 1 << box
    encoded = tuple(table.encode(cards) for cards in held)
    if deal.expected is None:
        mode = LEAD_ON if deal.continuing else LEAD
        last, npass, first, need = -1, 0, -1, n - 1
        wanted, suit = 0, -1
    else:
        mode = RESPOND
        last = deal.last_player if deal.last_player is not None else -1
        npass = len(deal.passers)
        first = deal.passers[0] if deal.passers and table.first_passer else -1
        need = deal.passes_needed
        wanted = deal.expected
        suit = -1 if deal.expected_suit is None else "CDHS".index(deal.expected_suit)
    lt = 0
    if table.track_turns:
        for seat, turns in enumerate(deal.laying_turns):
            lt |= min(turns, 2) << (2 * seat)
    laid = 0
    if table.track_laid:
        for seat, count in enumerate(deal.cards_laid):
            if count:
                laid |= 1 << seat
    opened = 1 if deal.opened or not table.lowest else 0
    p = (encoded, wanted, suit, deal.turn, mode, last, npass, first, need, opened, lt, laid, taken,
         tuple(state.balances))
    return table, p, held


# --- back to table actions ---------------------------------------------------------------------------
def card_of(table: Table, hand: Iterable[Card], move: int) -> Card:
    """The card a move lays from ``hand`` (a plain move: the first card of that rank by suit)."""
    if move >= PLAIN:
        rank = move - PLAIN
        return min((c for c in hand if c.rank == rank and not table.special[card_index(c)]), key=card_index)
    return DECK[move & 63]


def actions_of(table: Table, p: Position, held: Sequence[Iterable[Card]], moves: Sequence[int]
               ) -> list[dict[str, Any]]:
    """The table actions (``play`` and ``pass``) that record ``moves`` from ``p``: one ``play`` a turn's cards,
    split after a card that ends the run (the turn goes on in the next ``play``)."""
    hands = [set(cards) for cards in held]
    actions: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for move in moves:
        seat = p[P_TURN]
        if move == NONE:
            if p[P_MODE] == RESPOND:
                actions.append({"type": "pass", "seat": seat})
            current = None
        else:
            card = card_of(table, hands[seat], move)
            hands[seat].discard(card)
            if current is None:
                current = {"type": "play", "seat": seat, "cards": [], "announced": []}
                actions.append(current)
            current["cards"].append(str(card))
            if move < PLAIN and move & CALL:
                current["announced"].append(str(card))
        p = table.play(p, move)
        if p[P_MODE] != MIDDLE:
            current = None
    return actions


__all__ = ["actions_of", "card_of", "position"]
