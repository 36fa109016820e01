"""Deciding: a table action on a state becomes new events, or a :class:`RuleViolation`.

Every check happens here, before anything is appended. The events are applied
to a scratch copy as they are made (inferred passes change whose turn it is
before a play is judged), so ``execute`` returns exactly what a replay of the
log gives.

    >>> from nj_ledger import new_game, execute, replay, RuleViolation
    >>> state = replay([new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60)])
    >>> try:
    ...     execute(state, [{"type": "play", "seat": 0, "cards": ["5H"]}])
    ... except RuleViolation as refusal:
    ...     print(refusal.code)
    no-deal-in-progress
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from .bounds import ADJUSTMENT, MAX_CHIPS, MAX_DEAL_EVENTS, STARTING_CHIPS, shown
from .cards import DECK, RANK_NAMES_FR, Card, parse_card, parse_cards, rank_label
from .errors import InvalidInput, LedgerError, RuleViolation
from .events import TABLE_ACTIONS, Event
from .reducer import account_chips, fold, losers, parse_account
from .rules import Rules, check_bounds, resolve_rules
from .state import ENDED, PLAYING, READY, REVEALING, DealState, GameState

Decider = Callable[[GameState, Mapping[str, Any], list[Event]], None]


# --- small helpers ------------------------------------------------------------------------------
def _emit(s: GameState, events: list[Event], event_type: str, data: dict[str, Any]) -> None:
    deal = s.deal_number + 1 if event_type == "deal" else s.deal_number
    event = Event(event_type, data, deal)
    fold(s, event)
    events.append(event)


def _seat_name(s: GameState, seat: int) -> str:
    return f"{s.players[seat]} (seat {seat})"


def _fields(action: Mapping[str, Any], required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    required_set, allowed = _field_sets(required, optional)
    if allowed.issuperset(action) and required_set.issubset(action):  # the common case, in two set operations
        return
    unknown = sorted(set(action) - allowed)
    if unknown:
        raise InvalidInput(
            "invalid-action",
            "A {action} action has no field {field!r}; its fields are: {fields}.",
            action=action["type"], field=unknown[0], fields=", ".join(sorted(allowed - {"type"})) or "none",
        )
    missing = sorted(required_set - set(action))
    if missing:
        raise InvalidInput(
            "invalid-action", "A {action} action needs {field!r}.", action=action["type"], field=missing[0]
        )


@cache
def _field_sets(required: tuple[str, ...], optional: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """An action's required fields and all the fields it may have."""
    return frozenset(required), frozenset(required) | frozenset(optional) | {"type"}


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput("invalid-action", "{field} must be a whole number, not {value!r}.", field=what, value=value)
    return value


def _seat(s: GameState, value: Any, what: str = "seat") -> int:
    seat = _int(value, what)
    if not 0 <= seat < s.n:
        raise RuleViolation(
            "unknown-seat", "There is no seat {seat}: this table has seats 0 to {last}.", seat=shown(seat),
            last=s.n - 1,
            field=what,
        )
    return seat


def _card_list(value: Any, what: str, allow_empty: bool = False) -> tuple[Card, ...]:
    if not isinstance(value, (list, tuple)) or (not value and not allow_empty):
        raise InvalidInput(
            "invalid-action", "{field} must be a list of cards, like [\"9H\", \"10D\"].", field=what
        )
    return parse_cards(value)


def _reason(action: Mapping[str, Any]) -> str:
    reason = action.get("reason", "")
    if not isinstance(reason, str) or len(reason) > 500:
        raise InvalidInput("invalid-action", "reason must be a short text.", field="reason")
    return reason


def _require_open_deal(s: GameState, *, revealing_ok: bool = False) -> DealState:
    if s.status == ENDED:
        raise RuleViolation("game-ended", "This game has ended: nothing more can be recorded.")
    if s.status == READY:
        raise RuleViolation("no-deal-in-progress", "No deal is in progress: record a deal first.")
    if s.status == REVEALING and not revealing_ok:
        waiting = ", ".join(_seat_name(s, seat) for seat in s.deal.awaiting)  # type: ignore[union-attr]
        raise RuleViolation(
            "awaiting-reveal",
            "The deal is over; settlement waits for the cards left in hand by {players}.", players=waiting,
        )
    assert s.deal is not None
    return s.deal


def _require_between_deals(s: GameState) -> None:
    if s.status == ENDED:
        raise RuleViolation("game-ended", "This game has ended: nothing more can be recorded.")
    if s.status in (PLAYING, REVEALING):
        raise RuleViolation(
            "deal-in-progress", "Deal {deal} is still in progress: finish it first.", deal=s.deal_number
        )


def _wanted(deal: DealState) -> str:
    """The missing card as a player calls it: "sans Valet", or with its suit in suit play."""
    name = RANK_NAMES_FR[deal.expected] if deal.expected else "?"
    return f"{name} {deal.expected_suit}" if deal.expected_suit else name


def _continues(deal: DealState, card: Card) -> bool:
    return card.rank == deal.expected and (deal.expected_suit is None or card.suit == deal.expected_suit)


def can_ante(s: GameState, dealer: int) -> bool:
    if s.rules.shortfall == "negative":
        return True  # score-sheet clubs keep playing below zero
    payers = range(s.n) if s.rules.ante == "all" else (dealer,)
    return all(s.balances[seat] >= s.rules.ante_total for seat in payers)


# --- the game's first event -----------------------------------------------------------------------
def new_game(
    players: Sequence[str],
    rules: str | Mapping[str, Any] | Rules | None = "classic",
    starting_chips: int = 100,
    dealer: int | None = None,
) -> Event:
    """The ``game_started`` event of a new game, after checking players, rules and chips.

    Every number is held to its range (:mod:`nj_ledger.bounds`); a refusal names the
    field in ``params["field"]``:

    >>> try:
    ...     new_game(["Ana", "Ben"], {"profile": "classic", "max_deals": 10**30})
    ... except InvalidInput as refusal:
    ...     print(refusal.code, refusal.params["field"], refusal.params["most"])
    invalid-rules rules.max_deals 10000
    """
    resolved = check_bounds(resolve_rules(rules))
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) for p in players):
        raise InvalidInput("invalid-players", "players must be a list of names in seat order.")
    names = [p.strip() for p in players]
    if any(not name or len(name) > 80 for name in names):
        raise InvalidInput("invalid-players", "Every player needs a name of 1 to 80 characters.")
    if len({name.casefold() for name in names}) != len(names):
        raise InvalidInput("invalid-players", "Two seats have the same player name.")
    if len(names) not in resolved.players:
        allowed = ", ".join(map(str, resolved.players))
        raise InvalidInput(
            "invalid-players",
            "These rules are played by {allowed} players, not {count}.",
            allowed=allowed, count=len(names),
        )
    chips = starting_chips
    least, most = STARTING_CHIPS
    if isinstance(chips, bool) or not isinstance(chips, int) or chips < least or chips > most:
        raise InvalidInput(
            "invalid-chips", "starting_chips must be a whole number between 1 and 1,000,000,000.",
            field="starting_chips",
        )
    if resolved.shortfall == "end" and chips < resolved.ante_total:
        raise InvalidInput(
            "starting-chips-too-low",
            "Each player needs at least {needed} chips to stake the board.",
            needed=resolved.ante_total,
            field="starting_chips",
        )
    first_dealer = len(names) - 1 if dealer is None else dealer
    if type(first_dealer) is not int or not 0 <= first_dealer < len(names):
        raise InvalidInput("invalid-players", "There is no seat {seat} to deal.", seat=shown(first_dealer),
                           field="dealer")
    return Event(
        "game_started",
        {"players": names, "rules": resolved.to_dict(), "starting_chips": chips, "dealer": first_dealer},
        0,
    )


# --- table actions ----------------------------------------------------------------------------------
def _decide_deal(s: GameState, a: Mapping[str, Any], events: list[Event]) -> None:
    _fields(a, (), ("dealer", "hands", "talon"))
    _require_between_deals(s)
    dealer = s.next_dealer()
    if a.get("dealer") is not None:
        named = _seat(s, a["dealer"], "dealer")
        if s.deal_number > 0 and named != dealer:
            raise RuleViolation(
                "wrong-dealer",
                "The deal passes to {dealer}, not {named}.",
                dealer=_seat_name(s, dealer), named=_seat_name(s, named), expected=dealer,
            )
        dealer = named
    size, talon_size = s.rules.deal_table[s.n]
    data: dict[str, Any] = {"dealer": dealer}
    dealt: set[Card] = set()
    if a.get("hands") is not None:
        hands = a["hands"]
        if not isinstance(hands, (list, tuple)) or len(hands) != s.n:
            raise InvalidInput("invalid-hands", "hands lists one hand per seat: {count} hands.", count=s.n)
        canonical = []
        for seat, hand in enumerate(hands):
            cards = _card_list(hand, f"hands[{seat}]")
            if len(cards) != size:
                raise InvalidInput(
                    "invalid-hands", "Seat {seat} was dealt {count} cards; each hand has {size}.",
                    seat=seat, count=len(cards), size=size,
                )
            for card in cards:
                if card in dealt:
                    raise InvalidInput("invalid-hands", "{card} was dealt twice.", card=card)
                dealt.add(card)
            canonical.append([str(c) for c in cards])
        data["hands"] = canonical
    if a.get("talon") is not None:
        talon = _card_list(a["talon"], "talon", allow_empty=True)
        if len(talon) != talon_size or len(set(talon)) != len(talon):
            raise InvalidInput("invalid-hands", "The talon holds {size} different cards.", size=talon_size)
        twice = dealt.intersection(talon)
        if twice:
            raise InvalidInput("invalid-hands", "{card} is both in a hand and in the talon.", card=min(twice))
        data["talon"] = [str(c) for c in talon]
    elif dealt:
        data["talon"] = [str(c) for c in DECK if c not in dealt]
    payers = range(s.n) if s.rules.ante == "all" else (dealer,)
    if not can_ante(s, dealer):
        short = [_seat_name(s, seat) for seat in payers if s.balances[seat] < s.rules.ante_total]
        raise RuleViolation(
            "cannot-ante",
            "{players} cannot stake the {needed} chips of the board: end the game.",
            players=", ".join(short), needed=s.rules.ante_total,
        )
    _emit(s, events, "deal", data)
    for seat in payers:
        for card, stake in s.rules.board.items():
            _transfer(s, events, f"seat:{seat}", f"box:{card}", stake * s.rules.stake_unit, "ante")


def _chips_out_of_range(s: GameState, account: str, chips: int) -> RuleViolation:
    kind, _, key = account.partition(":")
    if kind == "seat":
        return RuleViolation(
            "chips-out-of-range",
            "This would leave {player} with {chips} chips: a player holds at most {limit} chips either way.",
            player=_seat_name(s, int(key)), chips=chips, limit=MAX_CHIPS, account=account,
        )
    return RuleViolation(
        "chips-out-of-range",
        "This would leave {chips} chips in the {card} box: a box holds at most {limit}.",
        card=key, chips=chips, limit=MAX_CHIPS, account=account,
    )


def _amount_out_of_range(amount: int) -> RuleViolation:
    return RuleViolation(
        "chips-out-of-range",
        "This would move {amount} chips at once: a transfer moves at most {limit} chips.",
        amount=amount, limit=MAX_CHIPS,
    )


def _check_accounts(s: GameState, source: str, target: str) -> None:
    """Refuse chips past :data:`~nj_ledger.bounds.MAX_CHIPS` either way after a transfer: the payer only goes
    down (a box never below zero: it gives what it holds), the payee only up."""
    is_seat, key = parse_account(source)
    if is_seat and s.balances[key] < -MAX_CHIPS:  # type: ignore[index]
        raise _chips_out_of_range(s, source, account_chips(s, source))
    is_seat, key = parse_account(target)
    chips = s.balances[key] if is_seat else s.boxes[s.rules.box_positions[key]]  # type: ignore[index]
    if chips > MAX_CHIPS:
        raise _chips_out_of_range(s, target, chips)


def _transfer(s: GameState, events: list[Event], source: str, target: str, amount: int, reason: str,
              **extra: Any) -> None:
    if amount > 0:
        if amount > MAX_CHIPS:
            raise _amount_out_of_range(amount)
        _emit(s, events, "transfer", {"from": source, "to": target, "amount": amount, "reason": reason, **extra})
        # _check_accounts, written out: this runs at every transfer
        is_seat, key = parse_account(source)
        if is_seat and s.balances[key] < -MAX_CHIPS:  # type: ignore[index]
            raise _chips_out_of_range(s, source, account_chips(s, source))
        is_seat, key = parse_account(target)
        chips = s.balances[key] if is_seat else s.boxes[s.rules.box_positions[key]]  # type: ignore[index]
        if chips > MAX_CHIPS:
            raise _chips_out_of_range(s, target, chips)


def _pay_during_play(s: GameState, events: list[Event], payer: int, payee: int, owed: int, reason: str) -> None:
    """A payment while the deal is played; one that cannot be made in full is recorded with what was owed."""
    if owed > MAX_CHIPS:
        raise _amount_out_of_range(owed)
    paid = owed if s.rules.shortfall == "negative" else max(0, min(owed, s.balances[payer]))
    if paid == owed:
        _transfer(s, events, f"seat:{payer}", f"seat:{payee}", paid, reason)
    else:
        _emit(s, events, "transfer",
              {"from": f"seat:{payer}", "to": f"seat:{payee}", "amount": paid, "reason": reason, "owed": owed})
        _check_accounts(s, f"seat:{payer}", f"seat:{payee}")


def _check_may_pass(s: GameState, seat: int) -> None:
    """With ``may_stop: false`` a player holding the wanted card must play it (when hands are known)."""
    deal = s.deal
    assert deal is not None
    if s.rules.may_stop or deal.hands is None or deal.expected is None:
        return
    if any(_continues(deal, card) and card != s.rules.wild for card in deal.hands[seat]):
        raise RuleViolation(
            "must-continue",
            "{player} holds a {wanted} and must play it: "
            "these rules do not let a player pass or stop while holding the next card.",
            player=_seat_name(s, seat), wanted=_wanted(deal),
            seat=seat,
        )


def _decide_pass(s: GameState, a: Mapping[str, Any], events: list[Event]) -> None:
    _fields(a, ("seat",))
    seat = _seat(s, a["seat"])
    deal = _require_open_deal(s)
    if seat != deal.turn:
        raise RuleViolation(
            "not-your-turn", "It is {turn_player}'s turn, not {player}'s.",
            turn_player=_seat_name(s, deal.turn), player=_seat_name(s, seat),  # type: ignore[arg-type]
            turn=deal.turn,
        )
    if deal.expected is None:
        raise RuleViolation(
            "cannot-pass", "{player} must lay a card to start a new run: there is nothing to pass.",
            player=_seat_name(s, seat),
        )
    _check_may_pass(s, seat)
    _emit(s, events, "pass", {"seat": seat})


def _infer_passes(s: GameState, seat: int, events: list[Event]) -> None:
    """A play from a later seat records a pass for every seat in between (going round the table)."""
    deal = s.deal
    assert deal is not None
    if deal.expected is None or deal.continuing:
        return
    while deal.turn != seat:
        _check_may_pass(s, deal.turn)  # type: ignore[arg-type]
        _emit(s, events, "pass", {"seat": deal.turn, "inferred": True})
        deal = s.deal
        assert deal is not None
        if deal.expected is None:  # the round completed and the run restarts: no more passes
            break


def _decide_play(s: GameState, a: Mapping[str, Any], events: list[Event]) -> None:
    _fields(a, ("seat", "cards"), ("announced",))
    seat = _seat(s, a["seat"])
    cards = _card_list(a["cards"], "cards")
    announced = _card_list(a.get("announced", []), "announced", allow_empty=True)
    _require_open_deal(s)
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise RuleViolation("card-already-played", "{card} appears twice in this play.", card=twice)
    if s.deal.turn != seat:  # type: ignore[union-attr]
        _infer_passes(s, seat, events)
    deal = s.deal
    assert deal is not None
    if deal.turn != seat:
        raise RuleViolation(
            "not-your-turn", "It is {turn_player}'s turn, not {player}'s.",
            turn_player=_seat_name(s, deal.turn), player=_seat_name(s, seat),  # type: ignore[arg-type]
            turn=deal.turn,
        )
    rules = s.rules
    hand = deal.hands[seat] if deal.hands is not None else None
    if len(cards) > deal.hand_sizes[seat]:
        raise RuleViolation(
            "too-many-cards",
            "{player} has only {left} cards left, not {count}.",
            player=_seat_name(s, seat), left=deal.hand_sizes[seat], count=len(cards),
        )
    expected, suit = deal.expected, deal.expected_suit
    for position, card in enumerate(cards):
        if card in deal.seen:
            raise RuleViolation("card-already-played", "{card} has already been played in this deal.", card=card)
        if deal.talon is not None and card in deal.talon:
            raise RuleViolation("card-not-in-hand", "{card} is in the talon, not in a hand.", card=card)
        if hand is not None and card not in hand:
            raise RuleViolation(
                "card-not-in-hand", "{player} was not dealt {card}.", player=_seat_name(s, seat), card=card
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
            wanted = rank_label(expected) + (suit or "")
            raise RuleViolation(
                "out-of-sequence", "{card} does not follow: the run wants a {expected}.", card=card, expected=wanted
            )
        if rules.ends_run(card):
            expected, suit = None, None
        else:
            expected, suit = card.rank + 1, (card.suit if rules.sequence == "suit" else None)
    goes_out = len(cards) == deal.hand_sizes[seat]
    if not goes_out and not rules.ends_run(cards[-1]) and not rules.may_stop and hand is not None:
        left = hand.difference(cards)
        if any(c.rank == expected and (suit is None or c.suit == suit) and c != rules.wild for c in left):
            raise RuleViolation(
                "must-continue",
                "{player} holds a {wanted} and must play it: "
                "these rules do not let a player stop while holding the next card.",
                player=_seat_name(s, seat), wanted=rank_label(expected) + (suit or ""),  # type: ignore[arg-type]
                seat=seat,
            )
    called = dict.fromkeys(announced)
    for card in called:
        if not rules.announceable(card):
            called_cards = ", ".join(rules.board) + (", the Kings and the hocs" if rules.hoc_reward else "")
            raise RuleViolation(
                "not-an-honour",
                "{card} is not a card to announce ({announceable}): there is nothing to call.",
                announceable=called_cards,
                card=card,
            )
        if card not in cards:
            raise RuleViolation(
                "announced-not-played", "{card} is announced but not among the cards played.", card=card
            )
    _emit(s, events, "play", {
        "seat": seat,
        "cards": [str(c) for c in cards],
        "announced": [str(c) for c in cards if c in called],
    })
    for card in cards:
        if card in called and card in rules.board:  # "Dame qui prend !"
            _transfer(s, events, f"box:{card}", f"seat:{seat}", s.boxes[s.box_index(card)], "take")
        if card in called and rules.is_hoc(card):  # "Hoc !": one chip from each other player
            for other in losers(s, seat):
                _pay_during_play(s, events, other, seat, rules.hoc_reward * rules.stake_unit, "hoc")
    if s.deal.winner is not None and s.status == PLAYING:  # type: ignore[union-attr]
        _settle(s, events)


def _decide_reveal(s: GameState, a: Mapping[str, Any], events: list[Event]) -> None:
    _fields(a, ("seat", "cards"))
    seat = _seat(s, a["seat"])
    cards = _card_list(a["cards"], "cards", allow_empty=True)
    deal = _require_open_deal(s, revealing_ok=True)
    if s.status != REVEALING:
        raise RuleViolation("no-reveal-needed", "No hand is awaited: reveals come after a player goes out.")
    if seat not in deal.awaiting:
        raise RuleViolation(
            "no-reveal-needed", "{player}'s hand is not awaited.", player=_seat_name(s, seat), seat=seat
        )
    if len(cards) != deal.hand_sizes[seat] or len(set(cards)) != len(cards):
        raise RuleViolation(
            "reveal-mismatch",
            "{player} has {left} different cards left; the reveal lists {count}.",
            player=_seat_name(s, seat), left=deal.hand_sizes[seat], count=len(set(cards)),
            seat=seat,
        )
    for card in cards:
        if card in deal.seen:
            raise RuleViolation(
                "card-already-played", "{card} has already been seen in this deal.", card=card
            )
        if deal.talon is not None and card in deal.talon:
            raise RuleViolation("reveal-mismatch", "{card} is in the talon, not in a hand.", card=card)
    _emit(s, events, "reveal", {"seat": seat, "cards": [str(c) for c in cards]})
    if not s.deal.awaiting:  # type: ignore[union-attr]
        _settle(s, events)


def _decide_undo(s: GameState, a: Mapping[str, Any], events: list[Event]) -> None:
    _fields(a, (), ("reason",))
    reason = _reason(a)
    if s.status == ENDED:
        raise RuleViolation("game-ended", "This game has ended: nothing more can be recorded.")
    if s.status == READY:
        raise RuleViolation(
            "no-deal-in-progress",
            "No deal is open: a settled deal is corrected with an adjust, not an undo.",
        )
    deal = s.deal
    assert deal is not None
    if deal.undo_to is None:
        raise RuleViolation("nothing-to-undo", "Nothing has been played in this deal yet: there is nothing to undo.")
    withdrawn = deal.group_transfers
    _emit(s, events, "undo", {"reason": reason})
    for seq, source, target, amount in reversed(withdrawn):
        _transfer(s, events, target, source, amount, "undo", reverses=seq)


def _account(s: GameState, value: Any, what: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = f"seat:{value}"
    if isinstance(value, str):
        kind, _, key = value.partition(":")
        if kind == "seat" and key.isascii() and key.isdigit() and int(key) < s.n:  # not "¹": a digit int() refuses
            return f"seat:{int(key)}"
        if kind == "box":
            try:
                card = parse_card(key)
            except InvalidInput:
                card = None
            if card in s.rules.board:
                return f"box:{card}"
    raise InvalidInput(
        "invalid-account",
        "{field} must be a seat (\"seat:0\" to \"seat:{last}\") or a box (\"box:7D\"…), not {value!r}.",
        last=s.n - 1, value=value,
        field=what,
    )


def _decide_adjust(s: GameState, a: Mapping[str, Any], events: list[Event]) -> None:
    _fields(a, ("from", "to", "amount"), ("reason",))
    source, target = _account(s, a["from"], "from"), _account(s, a["to"], "to")
    amount = _int(a["amount"], "amount")
    reason = _reason(a)
    _require_between_deals(s)
    if source == target:
        raise InvalidInput("invalid-account", "An adjustment moves chips between two different accounts.")
    if not ADJUSTMENT[0] <= amount <= ADJUSTMENT[1]:
        raise InvalidInput(
            "invalid-amount", "{field} must be a whole number of chips from 1 to 1,000,000,000, not {value}.",
            value=shown(amount),
            field="amount",
        )
    # balances may go below zero on a score sheet (shortfall: negative); a box never holds fewer than 0 chips
    if (s.rules.shortfall == "end" or source.startswith("box:")) and s.account_balance(source) < amount:
        raise RuleViolation(
            "insufficient-chips", "{account} holds {chips} chips, fewer than {amount}.",
            account=source, chips=s.account_balance(source), amount=amount,
        )
    _emit(s, events, "adjust", {"from": source, "to": target, "amount": amount, "reason": reason})
    _transfer(s, events, source, target, amount, "adjust")


def _decide_end(s: GameState, a: Mapping[str, Any], events: list[Event]) -> None:
    _fields(a, (), ("reason",))
    reason = _reason(a)
    _require_between_deals(s)
    _emit(s, events, "end", {"reason": reason})
    _end_game(s, events, "agreed")


# --- settlement (SPEC §3.3) ----------------------------------------------------------------------------
def _settle(s: GameState, events: list[Event]) -> None:
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

    def pay(seat: int, target: str, owed: int, reason: str) -> int:
        if owed > MAX_CHIPS:  # what was owed is kept in deal_ended, even when less was paid
            raise _amount_out_of_range(owed)
        balance = s.balances[seat]
        paid = owed if rules.shortfall == "negative" else max(0, min(owed, balance))
        if paid < owed:
            shortfalls.append({"seat": seat, "reason": reason, "owed": owed, "paid": paid})
        _transfer(s, events, f"seat:{seat}", target, paid, reason)
        return paid

    for seat in losers(s, winner):
        hand = deal.remaining_hand(seat)
        left = deal.hand_sizes[seat]
        points = sum(c.points for c in hand) if hand is not None else None
        if hand is not None:
            hands_left[str(seat)] = [str(c) for c in sorted(hand, key=lambda c: (c.rank, c.suit))]
        base = points if rules.payment == "points" else left
        owed = base * rules.point_value * double  # type: ignore[operator]
        if rules.wild_pays_double and hand is not None and rules.wild in hand:
            owed *= 2
        paid = pay(seat, f"seat:{winner}", owed, "payment")
        payments.append({"seat": seat, "cards_left": left, "points": points, "amount": owed, "paid": paid})
    if deal.grand_opera and rules.grand_opera.reward == "sweep":
        for card in rules.honours:
            _transfer(s, events, f"box:{card}", f"seat:{winner}", s.boxes[s.box_index(card)], "grand_opera")
    if rules.bete != "none":
        for seat in losers(s, winner):
            hand = deal.remaining_hand(seat) or frozenset()
            for index, card in enumerate(rules.honours):
                if card in hand:
                    owed = boxes_at_out[index] if rules.bete == "double" else rules.board[card] * rules.stake_unit
                    paid = pay(seat, f"box:{card}", owed, "bete")
                    betes.append({"seat": seat, "card": str(card), "amount": owed, "paid": paid})
    _emit(s, events, "deal_ended", {
        "number": deal.number,
        "winner": winner,
        "grand_opera": deal.grand_opera,
        "payments": payments,
        "betes": betes,
        "shortfalls": shortfalls,
        "hands_left": hands_left,
    })
    if shortfalls and rules.shortfall == "end":
        _end_game(s, events, "shortfall")
    elif rules.deals_limit(s.n) is not None and s.deals_played >= rules.deals_limit(s.n):  # type: ignore[operator]
        _end_game(s, events, "max_deals")  # the last deal was played: nobody has to ante again
    elif not can_ante(s, s.next_dealer()):
        _end_game(s, events, "cannot_ante")


def _end_game(s: GameState, events: list[Event], reason: str) -> None:
    _emit(s, events, "game_ended", {"reason": reason, "standings": s.standings(), "board_left": s.board()})


DECIDERS: dict[str, Decider] = {
    "deal": _decide_deal,
    "play": _decide_play,
    "pass": _decide_pass,
    "reveal": _decide_reveal,
    "undo": _decide_undo,
    "adjust": _decide_adjust,
    "end": _decide_end,
}


def _decide_into(s: GameState, action: Mapping[str, Any], events: list[Event]) -> None:
    if type(action) is not dict and not isinstance(action, Mapping):  # a dict, nearly always: skip the ABC check
        raise InvalidInput("invalid-action", "An action is an object with a \"type\".")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in DECIDERS:  # a list or an object as the type is no type
        raise InvalidInput(
            "invalid-action",
            "Unknown action type {kind!r}; the table actions are: {types}.",
            kind=kind, types=", ".join(TABLE_ACTIONS),
            field="type",
        )
    DECIDERS[kind](s, action, events)
    # past the bound: the deal's events, undos included; before the first deal (adjustments only) no replay
    # ever shows them, and nothing bounds them but the game
    if s.deal_number and s.version - s.deal_first_seq >= MAX_DEAL_EVENTS:
        raise RuleViolation(
            "deal-too-long",
            "Deal {deal} would hold {count} events, more than the {limit} a deal may hold: "
            "an undo adds events, it never removes any.",
            deal=s.deal_number, count=s.version - s.deal_first_seq + 1, limit=MAX_DEAL_EVENTS,
        )


def decide(state: GameState, action: Mapping[str, Any]) -> list[Event]:
    """The events one table action adds to the log; ``state`` is left untouched.

    Raises :class:`~nj_ledger.errors.LedgerError` (``InvalidInput`` for a malformed
    action, ``RuleViolation`` for a forbidden one) with a stable ``code``.
    """
    events: list[Event] = []
    _decide_into(state.copy(), action, events)
    return events


def execute(state: GameState, actions: Iterable[Mapping[str, Any]]) -> tuple[GameState, list[Event]]:
    """Apply a batch of table actions all-or-nothing: the new state and every event to append.

    The first refused action refuses the batch; its error carries ``index``
    (the action's position in the batch) in ``params``.
    """
    s = state.copy()
    events: list[Event] = []
    for index, action in enumerate(actions):
        try:
            _decide_into(s, action, events)
        except LedgerError as refusal:
            refusal.params.setdefault("index", index)
            raise
    return s, events
