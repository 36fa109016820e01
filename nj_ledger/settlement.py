"""Chips that move: transfers held to their bounds, the settlement of a deal (SPEC §3.3), the end of a game.

Used by :mod:`nj_ledger.decide` on a scratch state it owns: each event is folded
into the state as it is made, so what follows sees its effect.
"""

from __future__ import annotations

from typing import Any

from .actions import Account, box_account, seat_account
from .bounds import MAX_CHIPS
from .cards import Card
from .errors import RuleViolation
from .events import EndReason, Event, TransferReason
from .messages import Player
from .reducer import fold, losers, move_chips
from .state import DealState, GameState


def emit(s: GameState, events: list[Event], event_type: str, data: dict[str, Any]) -> None:
    """Record an event: folded into ``s`` at once, and added to ``events``."""
    deal = s.deal_number + 1 if event_type == "deal" else s.deal_number
    event = Event(event_type, data, deal)
    fold(s, event)
    events.append(event)


def emitted(s: GameState, events: list[Event], event_type: str, data: dict[str, Any]) -> None:
    """Record an event of the open deal that the caller applies to ``s`` at once with the reducer's own step for
    it, given the values that step would read back from ``data`` (:func:`~nj_ledger.reducer.lay_cards`,
    :func:`~nj_ledger.reducer.pass_turn`, :func:`~nj_ledger.reducer.move_chips`): what :func:`emit` does, without
    parsing again the cards and accounts the engine has at hand. Added to ``events``."""
    events.append(Event(event_type, data, s.deal_number))
    s.version += 1


def player(s: GameState, seat: int) -> Player:
    """A seat as a refusal names it."""
    return Player(seat, s.players[seat])


def can_ante(s: GameState, dealer: int) -> bool:
    if s.rules.shortfall == "negative":
        return True  # score-sheet clubs keep playing below zero
    payers = range(s.n) if s.rules.ante == "all" else (dealer,)
    return all(s.balances[seat] >= s.rules.ante_total for seat in payers)


def chips_of(s: GameState, account: Account) -> int:
    return s.balances[account.seat] if account.seat is not None else s.boxes[s.box_index(account.box or "")]


def _chips_out_of_range(s: GameState, account: Account, chips: int) -> RuleViolation:
    if account.seat is not None:
        return RuleViolation(
            "chips-out-of-range",
            "This would leave {player} with {chips} chips: a player holds at most {limit} chips either way.",
            player=player(s, account.seat), chips=chips, limit=MAX_CHIPS, account=account.text,
        )
    return RuleViolation(
        "chips-out-of-range",
        "This would leave {chips} chips in the {card} box: a box holds at most {limit}.",
        card=account.box, chips=chips, limit=MAX_CHIPS, account=account.text,
    )


def amount_out_of_range(amount: int) -> RuleViolation:
    return RuleViolation(
        "chips-out-of-range",
        "This would move {amount} chips at once: a transfer moves at most {limit} chips.",
        amount=amount, limit=MAX_CHIPS,
    )


def _check_accounts(s: GameState, source: Account, target: Account) -> None:
    """Refuse chips past :data:`~nj_ledger.bounds.MAX_CHIPS` either way after a transfer: the payer only goes
    down (a box never below zero: it gives what it holds), the payee only up."""
    if source.seat is not None and s.balances[source.seat] < -MAX_CHIPS:
        raise _chips_out_of_range(s, source, s.balances[source.seat])
    chips = chips_of(s, target)
    if chips > MAX_CHIPS:
        raise _chips_out_of_range(s, target, chips)


def transfer(s: GameState, events: list[Event], source: Account, target: Account, amount: int,
             reason: TransferReason, **extra: Any) -> None:
    """Move ``amount`` chips (none: nothing is recorded)."""
    if amount > 0:
        if amount > MAX_CHIPS:
            raise amount_out_of_range(amount)
        data = {"from": source.text, "to": target.text, "amount": amount, "reason": reason, **extra}
        emitted(s, events, "transfer", data)
        move_chips(s, data, source, target, amount)
        _check_accounts(s, source, target)


def pay_during_play(s: GameState, events: list[Event], payer: int, payee: int, owed: int,
                    reason: TransferReason) -> None:
    """A payment while the deal is played; one that cannot be made in full is recorded with what was owed."""
    if owed > MAX_CHIPS:
        raise amount_out_of_range(owed)
    paid = owed if s.rules.shortfall == "negative" else max(0, min(owed, s.balances[payer]))
    source, target = seat_account(payer), seat_account(payee)
    if paid == owed:
        transfer(s, events, source, target, paid, reason)
    else:
        data = {"from": source.text, "to": target.text, "amount": paid, "reason": reason, "owed": owed}
        emitted(s, events, "transfer", data)
        move_chips(s, data, source, target, paid)
        _check_accounts(s, source, target)


def held(deal: DealState, seat: int) -> frozenset[Card]:
    """The cards a loser is known to hold at the settlement: the hand (dealt or revealed), or the honours told
    with a count (its other cards stay unseen); nothing when no hand was needed."""
    hand = deal.remaining_hand(seat)
    if hand is not None:
        return hand
    told = deal.counted_hand(seat)
    return told.honours if told is not None else frozenset()


def settle(s: GameState, events: list[Event]) -> None:
    """The losers pay the winner and their bêtes (or the Grand Opéra sweeps the board): ``deal_ended``, and the
    end of the game when it is over."""
    deal = s.deal
    assert deal is not None and deal.winner is not None
    rules = s.rules
    winner = deal.winner
    boxes_at_out = s.boxes
    double = 2 if deal.grand_opera and rules.grand_opera.reward == "double" else 1
    payments: list[dict[str, Any]] = []
    betes: list[dict[str, Any]] = []
    shortfalls: list[dict[str, Any]] = list(deal.shortfalls)
    hands_left: dict[str, list[str]] = {}

    def pay(seat: int, target: Account, owed: int, reason: TransferReason) -> int:
        if owed > MAX_CHIPS:  # what was owed is kept in deal_ended, even when less was paid
            raise amount_out_of_range(owed)
        balance = s.balances[seat]
        paid = owed if rules.shortfall == "negative" else max(0, min(owed, balance))
        if paid < owed:
            shortfalls.append({"seat": seat, "reason": reason, "owed": owed, "paid": paid})
        transfer(s, events, seat_account(seat), target, paid, reason)
        return paid

    for seat in losers(s, winner):
        hand = deal.remaining_hand(seat)
        told = deal.counted_hand(seat) if hand is None else None  # settled by count: the points the table told
        left = deal.hand_sizes[seat]
        points = told.points if told is not None else None if hand is None else sum(c.points for c in hand)
        if hand is not None:
            hands_left[str(seat)] = [str(c) for c in sorted(hand, key=lambda c: (c.rank, c.suit))]
        base = left if rules.payment == "cards" else points
        assert base is not None  # points are only asked for when the losers' hands are known (needs_losers_hands)
        owed = base * rules.point_value * double
        if rules.wild_pays_double and rules.wild in held(deal, seat):
            owed *= 2
        paid = pay(seat, seat_account(winner), owed, "payment")
        payments.append({"seat": seat, "cards_left": left, "points": points, "amount": owed, "paid": paid})
    if deal.grand_opera and rules.grand_opera.reward == "sweep":
        for card in rules.honours:
            transfer(s, events, box_account(card), seat_account(winner), s.boxes[s.box_index(card)], "grand_opera")
    if rules.bete != "none":
        for seat in losers(s, winner):
            hand = held(deal, seat)
            for index, card in enumerate(rules.honours):
                if card in hand:
                    owed = boxes_at_out[index] if rules.bete == "double" else rules.board[card] * rules.stake_unit
                    paid = pay(seat, box_account(card), owed, "bete")
                    betes.append({"seat": seat, "card": str(card), "amount": owed, "paid": paid})
    emit(s, events, "deal_ended", {
        "number": deal.number,
        "winner": winner,
        "grand_opera": deal.grand_opera,
        "payments": payments,
        "betes": betes,
        "shortfalls": shortfalls,
        "hands_left": hands_left,
    })
    limit = rules.deals_limit(s.n)
    if shortfalls and rules.shortfall == "end":
        end_game(s, events, "shortfall")
    elif limit is not None and s.deals_played >= limit:
        end_game(s, events, "max_deals")  # the last deal was played: nobody has to ante again
    elif not can_ante(s, s.next_dealer()):
        end_game(s, events, "cannot_ante")


def end_game(s: GameState, events: list[Event], reason: EndReason) -> None:
    emit(s, events, "game_ended", {"reason": reason, "standings": s.standings(), "board_left": s.board()})
