"""Deciding: a table action on a state becomes new events, or a :class:`RuleViolation`.

Every check happens here, before anything is appended. An action is parsed once
(:func:`nj_ledger.actions.parse_action`); the events are applied to a scratch
copy as they are made (inferred passes change whose turn it is before a play is
judged), so ``execute`` returns exactly what a replay of the log gives.

    >>> from nj_ledger import new_game, execute, replay, RuleViolation
    >>> state = replay([new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60)])
    >>> try:
    ...     execute(state, [{"type": "play", "seat": 0, "cards": ["5H"]}])
    ... except RuleViolation as refusal:
    ...     print(refusal.code)
    no-deal-in-progress
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .actions import (
    Action,
    Adjust,
    Deal,
    End,
    Pass,
    Play,
    Reveal,
    RevealCount,
    TableAction,
    Undo,
    box_account,
    new_game,
    parse_action,
    seat_account,
)
from .bounds import ADJUSTMENT, MAX_DEAL_EVENTS, MAX_GAME_EVENTS, shown
from .cards import DECK, Card, rank_label
from .checks import (
    check_announced,
    check_cards,
    check_count,
    check_may_pass,
    not_your_turn,
    require_awaited,
    require_between_deals,
    require_open_deal,
)
from .errors import InvalidInput, LedgerError, RuleViolation
from .events import Event
from .messages import Listed
from .reducer import lay_cards, losers, pass_turn
from .settlement import can_ante, emit, emitted, end_game, pay_during_play, player, settle, transfer
from .state import ENDED, PLAYING, READY, GameState


# --- table actions ----------------------------------------------------------------------------------
def _decide_deal(s: GameState, a: Deal, events: list[Event]) -> None:
    require_between_deals(s)
    dealer = s.next_dealer()
    if a.dealer is not None:
        if s.deal_number > 0 and a.dealer != dealer:
            raise RuleViolation(
                "wrong-dealer",
                "The deal passes to {dealer}, not {named}.",
                dealer=player(s, dealer), named=player(s, a.dealer), expected=dealer,
            )
        dealer = a.dealer
    size, talon_size = s.rules.deal_table[s.n]
    data: dict[str, Any] = {"dealer": dealer}
    dealt: set[Card] = set()
    if a.hands is not None:
        for seat, cards in enumerate(a.hands):
            if len(cards) != size:
                raise InvalidInput(
                    "invalid-hands", "Seat {seat} was dealt {count} cards; each hand has {size}.",
                    seat=seat, count=len(cards), size=size,
                )
            for card in cards:
                if card in dealt:
                    raise InvalidInput("invalid-hands", "{card} was dealt twice.", card=card)
                dealt.add(card)
        data["hands"] = [[str(c) for c in cards] for cards in a.hands]
    if a.talon is not None:
        if len(a.talon) != talon_size or len(set(a.talon)) != len(a.talon):
            raise InvalidInput("invalid-hands", "The talon holds {size} different cards.", size=talon_size)
        twice = dealt.intersection(a.talon)
        if twice:
            raise InvalidInput("invalid-hands", "{card} is both in a hand and in the talon.", card=min(twice))
        data["talon"] = [str(c) for c in a.talon]
    elif dealt:
        data["talon"] = [str(c) for c in DECK if c not in dealt]
    payers = range(s.n) if s.rules.ante == "all" else (dealer,)
    if not can_ante(s, dealer):
        short = tuple(player(s, seat) for seat in payers if s.balances[seat] < s.rules.ante_total)
        raise RuleViolation(
            "cannot-ante",
            "{players} cannot stake the {needed} chips of the board: end the game.",
            players=Listed(short), needed=s.rules.ante_total,
        )
    emit(s, events, "deal", data)
    for seat in payers:
        for card, stake in s.rules.board.items():
            transfer(s, events, seat_account(seat), box_account(card), stake * s.rules.stake_unit, "ante")


def _decide_pass(s: GameState, a: Pass, events: list[Event]) -> None:
    deal = require_open_deal(s)
    if a.seat != deal.turn:
        raise not_your_turn(s, deal.turn, a.seat)
    if deal.expected is None:
        raise RuleViolation(
            "cannot-pass", "{player} must lay a card to start a new run: there is nothing to pass.",
            player=player(s, a.seat),
        )
    check_may_pass(s, a.seat)
    data = {"seat": a.seat}
    emitted(s, events, "pass", data)
    pass_turn(s, data, a.seat, False)


def _infer_passes(s: GameState, seat: int, events: list[Event]) -> None:
    """A play from a later seat records a pass for every seat in between (going round the table)."""
    deal = s.deal
    assert deal is not None
    if deal.expected is None or deal.continuing:
        return
    while deal.turn is not None and deal.turn != seat:
        passer = deal.turn
        check_may_pass(s, passer)
        data = {"seat": passer, "inferred": True}
        emitted(s, events, "pass", data)
        pass_turn(s, data, passer, True)
        deal = s.deal
        assert deal is not None
        if deal.expected is None:  # the round completed and the run restarts: no more passes
            break


def _decide_play(s: GameState, a: Play, events: list[Event]) -> None:
    seat, cards = a.seat, a.cards
    turn = require_open_deal(s).turn
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise RuleViolation("card-already-played", "{card} appears twice in this play.", card=twice)
    if turn != seat:
        _infer_passes(s, seat, events)
    deal = s.deal
    assert deal is not None
    if deal.turn != seat:
        raise not_your_turn(s, deal.turn, seat)
    rules = s.rules
    if len(cards) > deal.hand_sizes[seat]:
        raise RuleViolation(
            "too-many-cards",
            "{player} has only {left} cards left, not {count}.",
            player=player(s, seat), left=deal.hand_sizes[seat], count=len(cards),
        )
    expected, suit = check_cards(s, deal, seat, cards)
    goes_out = len(cards) == deal.hand_sizes[seat]
    hand = deal.hands[seat] if deal.hands is not None else None
    if not goes_out and not rules.ends_run(cards[-1]) and not rules.may_stop and hand is not None:
        left = hand.difference(cards)
        if any(c.rank == expected and (suit is None or c.suit == suit) and c != rules.wild for c in left):
            raise RuleViolation(
                "must-continue",
                "{player} holds a {wanted} and must play it: "
                "these rules do not let a player stop while holding the next card.",
                player=player(s, seat), wanted=rank_label(expected or 0) + (suit or ""),
                seat=seat,
            )
    called = dict.fromkeys(a.announced)
    check_announced(s, cards, called)
    data = {"seat": seat, "cards": [str(c) for c in cards], "announced": [str(c) for c in cards if c in called]}
    emitted(s, events, "play", data)
    lay_cards(s, data, seat, cards)
    for card in cards:
        if card in called and card in rules.board:  # "Dame qui prend !"
            transfer(s, events, box_account(card), seat_account(seat), s.boxes[s.box_index(card)], "take")
        if card in called and rules.is_hoc(card):  # "Hoc !": one chip from each other player
            for other in losers(s, seat):
                pay_during_play(s, events, other, seat, rules.hoc_reward * rules.stake_unit, "hoc")
    if s.deal is not None and s.deal.winner is not None and s.status == PLAYING:
        settle(s, events)


def _decide_reveal(s: GameState, a: Reveal, events: list[Event]) -> None:
    seat, cards = a.seat, a.cards
    deal = require_awaited(s, seat)
    if len(cards) != deal.hand_sizes[seat] or len(set(cards)) != len(cards):
        raise RuleViolation(
            "reveal-mismatch",
            "{player} has {left} different cards left; the reveal lists {count}.",
            player=player(s, seat), left=deal.hand_sizes[seat], count=len(set(cards)),
            seat=seat,
        )
    for card in cards:
        if card in deal.seen:
            raise RuleViolation(
                "card-already-played", "{card} has already been seen in this deal.", card=card
            )
        if deal.talon is not None and card in deal.talon:
            raise RuleViolation("reveal-mismatch", "{card} is in the talon, not in a hand.", card=card)
    emit(s, events, "reveal", {"seat": seat, "cards": [str(c) for c in cards]})
    if s.deal is not None and not s.deal.awaiting:
        settle(s, events)


def _decide_reveal_count(s: GameState, a: RevealCount, events: list[Event]) -> None:
    """Settling by count: the hand as the table tells it, checked as far as the deal allows (``check_count``)."""
    deal = require_awaited(s, a.seat)
    check_count(s, deal, a)
    emit(s, events, "reveal", {"seat": a.seat, "count": a.count, "points": a.points,
                               "honours": [str(card) for card in a.honours]})
    if s.deal is not None and not s.deal.awaiting:
        settle(s, events)


def _decide_undo(s: GameState, a: Undo, events: list[Event]) -> None:
    # past a settlement until the next deal starts (the game's end too, unless the table agreed it: ``end``)
    deal = s.deal
    if s.status == ENDED and (deal is None or deal.undo_to is None):
        raise RuleViolation("game-ended", "This game has ended: nothing more can be recorded.")
    if s.status == READY and deal is None:
        raise RuleViolation("no-deal-in-progress", "No deal has been dealt yet: there is nothing to undo.")
    if s.status == READY and deal is not None and deal.undo_to is None:
        raise RuleViolation(
            "no-deal-in-progress",
            "An adjustment was recorded after deal {deal} was settled: the deal is corrected with an adjust, "
            "not an undo.",
            deal=deal.number,
        )
    assert deal is not None
    if deal.undo_to is None:
        raise RuleViolation("nothing-to-undo", "Nothing has been played in this deal yet: there is nothing to undo.")
    withdrawn = deal.group_transfers
    emit(s, events, "undo", {"reason": a.reason})
    for seq, source, target, amount in reversed(withdrawn):
        transfer(s, events, target, source, amount, "undo", reverses=seq)


def _decide_adjust(s: GameState, a: Adjust, events: list[Event]) -> None:
    source, target, amount = a.source, a.target, a.amount
    require_between_deals(s)
    if source == target:
        raise InvalidInput("invalid-account", "An adjustment moves chips between two different accounts.")
    if not ADJUSTMENT[0] <= amount <= ADJUSTMENT[1]:
        raise InvalidInput(
            "invalid-amount", "{field} must be a whole number of chips from 1 to 1,000,000,000, not {value}.",
            value=shown(amount),
            field="amount",
        )
    # balances may go below zero on a score sheet (shortfall: negative); a box never holds fewer than 0 chips
    if (s.rules.shortfall == "end" or source.box is not None) and s.account_balance(source) < amount:
        raise RuleViolation(
            "insufficient-chips", "{account} holds {chips} chips, fewer than {amount}.",
            account=source.text, chips=s.account_balance(source), amount=amount,
        )
    emit(s, events, "adjust", {"from": source.text, "to": target.text, "amount": amount, "reason": a.reason})
    transfer(s, events, source, target, amount, "adjust")


def _decide_end(s: GameState, a: End, events: list[Event]) -> None:
    require_between_deals(s)
    emit(s, events, "end", {"reason": a.reason})
    end_game(s, events, "agreed")


def _decide_into(s: GameState, action: Action | Mapping[str, Any], events: list[Event], bounded: bool = True,
                 limit: int = MAX_GAME_EVENTS) -> None:
    parsed = action if isinstance(action, TableAction) else parse_action(action, s.n, s.rules.board)
    before = s.version
    match parsed:
        case Play():
            _decide_play(s, parsed, events)
        case Pass():
            _decide_pass(s, parsed, events)
        case Deal():
            _decide_deal(s, parsed, events)
        case Reveal():
            _decide_reveal(s, parsed, events)
        case RevealCount():
            _decide_reveal_count(s, parsed, events)
        case Undo():
            _decide_undo(s, parsed, events)
        case Adjust():
            _decide_adjust(s, parsed, events)
        case End():
            _decide_end(s, parsed, events)
    if bounded:
        _check_length(s, parsed, before, limit)


def _check_length(s: GameState, parsed: Action, before: int, limit: int) -> None:
    """Refuse an action that takes the game past its bounds of length (:mod:`nj_ledger.bounds`), once decided."""
    # the deal's events, undos included; before the first deal (adjustments only) no replay ever shows them, and
    # only the game's own bound holds them
    if s.deal_number and s.version - s.deal_first_seq >= MAX_DEAL_EVENTS:
        raise RuleViolation(
            "deal-too-long",
            "Deal {deal} would hold {count} events, more than the {limit} a deal may hold: "
            "an undo adds events, it never removes any.",
            deal=s.deal_number, count=s.version - s.deal_first_seq + 1, limit=MAX_DEAL_EVENTS,
        )
    if isinstance(parsed, Deal) and before > limit - MAX_DEAL_EVENTS:  # no room for a whole deal
        raise RuleViolation(
            "game-too-long",
            "The game holds {count} events and a deal may add {deal_limit}: a game holds at most {limit}. "
            "End this game and start a new one.",
            count=before, deal_limit=MAX_DEAL_EVENTS, limit=limit,
        )
    if s.version > limit and not isinstance(parsed, End):  # ending the game is always possible
        raise RuleViolation(
            "game-too-long",
            "The game would hold {count} events, more than the {limit} a game may hold: end it and start a new "
            "one.",
            count=s.version, limit=limit,
        )


def decide(state: GameState, action: Action | Mapping[str, Any], *, bounded: bool = True,
           limit: int = MAX_GAME_EVENTS) -> list[Event]:
    """The events one table action (a value, or its JSON) adds to the log; ``state`` is left untouched.

    Raises :class:`~nj_ledger.errors.LedgerError` (``InvalidInput`` for a malformed
    action, ``RuleViolation`` for a forbidden one) with a stable ``code``. With ``bounded`` false the lengths
    of the deal and of the game are not held to their bounds: the audit re-computes a stored log, which may
    have been recorded under wider bounds than today's, with it.
    """
    events: list[Event] = []
    _decide_into(state.copy(), action, events, bounded, limit)
    return events


def execute(state: GameState, actions: Iterable[Action | Mapping[str, Any]],
            limit: int = MAX_GAME_EVENTS) -> tuple[GameState, list[Event]]:
    """Apply a batch of table actions all-or-nothing: the new state and every event to append; ``limit``: the
    events the game may hold (:data:`~nj_ledger.bounds.MAX_DOCUMENT_EVENTS` for a game brought whole).

    The first refused action refuses the batch; its error carries ``index``
    (the action's position in the batch) in ``params``.
    """
    s = state.copy()
    events: list[Event] = []
    for index, action in enumerate(actions):
        try:
            _decide_into(s, action, events, True, limit)
        except LedgerError as refusal:
            refusal.params.setdefault("index", index)
            raise
    return s, events


__all__ = ["can_ante", "decide", "execute", "new_game"]  # new_game: the game's first event (nj_ledger.actions)
