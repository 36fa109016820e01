"""Table actions as values: what a scorer submits, parsed once at the boundary.

A game starts with :func:`new_game` (its players, rules and chips checked). A
table action arrives as JSON (``{"type": "play", "seat": 0, "cards": ["5H"]}``);
:func:`parse_action` checks its form against the table it is played at (the
seats, the boxes) and gives a frozen value — :class:`Deal`, :class:`Play`,
:class:`Pass`, :class:`Reveal` (or :class:`RevealCount`, settling by count), :class:`Undo`,
:class:`Adjust` or :class:`End` —
or refuses it with a :class:`~nj_ledger.errors.LedgerError`. Deciding
(:mod:`nj_ledger.decide`) works with the values only, as python-chess works with
a ``Move`` parsed once::

    >>> parse_action({"type": "play", "seat": 0, "cards": ["5h", "6♥"]}, seats=3, boxes=())
    Play(seat=0, cards=('5H', '6H'), announced=())
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from .bounds import REVEAL_COUNT, REVEAL_POINTS, STARTING_CHIPS, shown
from .cards import Card, parse_card, parse_cards
from .errors import InvalidInput, RuleViolation
from .events import TABLE_ACTIONS, Event
from .messages import Listed
from .names import code_point, hidden_character, name_key, normal_name
from .rules import Rules, check_bounds, resolve_rules


# --- accounts ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Account:
    """Where chips are held: a seat's purse or an honour's box, written ``seat:0`` or ``box:7D`` in events."""

    text: str
    seat: int | None
    box: Card | None

    def __str__(self) -> str:
        return self.text


@cache
def seat_account(seat: int) -> Account:
    return Account(f"seat:{seat}", seat, None)


@cache
def box_account(card: Card) -> Account:
    return Account(f"box:{card}", None, card)


@cache
def account(text: str) -> Account:
    """The account an event names (``seat:2``, ``box:7D``): events are facts, read without a check.

    >>> account("seat:2").seat, account("box:7D").box
    (2, '7D')
    """
    kind, _, key = text.partition(":")
    return seat_account(int(key)) if kind == "seat" else box_account(parse_card(key))


# --- the actions ---------------------------------------------------------------------------------------
class TableAction:
    """What every table action value is (:data:`Action` names them one by one): one class to tell a parsed
    action from its JSON, where a check against the eight would cost as much as deciding a pass."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Deal(TableAction):
    """A new deal; with full information, every hand (in seat order) and the talon."""

    dealer: int | None = None
    hands: tuple[tuple[Card, ...], ...] | None = None
    talon: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class Play(TableAction):
    """Cards laid by a seat in one turn, with the honours and hocs it announced."""

    seat: int
    cards: tuple[Card, ...]
    announced: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Pass(TableAction):
    seat: int


@dataclass(frozen=True, slots=True)
class Reveal(TableAction):
    """The cards a loser still holds when the deal is settled."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class RevealCount(TableAction):
    """A loser's hand as the table tells it, settling by count: how many cards are left, the points they make
    (A=1, 2-9 face, 10/J/Q/K=10) and the honours still held (none: an empty tuple)."""

    seat: int
    count: int
    points: int
    honours: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Undo(TableAction):
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Adjust(TableAction):
    """Chips moved by agreement between two accounts, between deals."""

    source: Account
    target: Account
    amount: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class End(TableAction):
    reason: str = ""


Action = Deal | Play | Pass | Reveal | RevealCount | Undo | Adjust | End
MAX_REASON: Final = 500  # characters of an undo's, an adjustment's or an end's reason


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
    names = [normal_name(p) for p in players]  # composed (NFC): one name however its accents were typed
    if any(not name or len(name) > 80 for name in names):
        raise InvalidInput("invalid-players", "Every player needs a name of 1 to 80 characters.")
    for seat, name in enumerate(names):
        found = hidden_character(name)
        if found is not None:
            raise InvalidInput("invalid-players", "The name of seat {seat} holds a character that shows nothing "
                               "({character}): type it again without it.", seat=seat, character=code_point(found),
                               field=f"players.{seat}")
    if len({name_key(name) for name in names}) != len(names):
        raise InvalidInput("invalid-players", "Two seats have the same player name.")
    if len(names) not in resolved.players:
        raise InvalidInput(
            "invalid-players",
            "These rules are played by {allowed} players, not {count}.",
            allowed=Listed(resolved.players), count=len(names),
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


# --- parsing -------------------------------------------------------------------------------------------
def parse_action(action: Any, seats: int, boxes: Collection[Card]) -> Action:
    """The table action ``action`` (JSON) as a value, at a table of ``seats`` seats with these ``boxes``.

    Refuses what is not well formed (``invalid-action``, ``invalid-account``, a card
    that is not one) and seats the table does not have (``unknown-seat``).
    """
    # JSON's objects are read as dicts, asked first: the Mapping ABC's check costs twenty times a plain one
    if not isinstance(action, (dict, Mapping)):
        raise InvalidInput("invalid-action", "An action is an object with a \"type\".")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _PARSERS:  # a list or an object as the type is no type
        raise InvalidInput(
            "invalid-action", "Unknown action type {kind!r}; the table actions are: {types}.",
            kind=kind, types=Listed(TABLE_ACTIONS),
            field="type",
        )
    required, optional, parse = _PARSERS[kind]
    _fields(action, required, optional)
    return parse(action, seats, boxes)


def _fields(action: Mapping[str, Any], required: frozenset[str], allowed: frozenset[str]) -> None:
    if allowed.issuperset(action) and required.issubset(action):  # the common case, in two set operations
        return
    unknown = sorted(set(action) - allowed)
    if unknown:
        others = sorted(allowed - {"type"})
        if others:
            raise InvalidInput(
                "invalid-action", "A {action} action has no field {field!r}; its fields are: {fields}.",
                action=action["type"], field=unknown[0], fields=Listed(tuple(others)),
            )
        raise InvalidInput(
            "invalid-action", "A {action} action has no field {field!r}; its fields are: none.",
            action=action["type"], field=unknown[0],
        )
    missing = sorted(required - set(action))
    raise InvalidInput("invalid-action", "A {action} action needs {field!r}.", action=action["type"], field=missing[0])


def whole_number(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput("invalid-action", "{field} must be a whole number, not {value!r}.", field=what, value=value)
    return value


def seat_number(value: Any, seats: int, what: str = "seat") -> int:
    seat = whole_number(value, what)
    if not 0 <= seat < seats:
        raise RuleViolation(
            "unknown-seat", "There is no seat {seat}: this table has seats 0 to {last}.", seat=shown(seat),
            last=seats - 1,
            field=what,
        )
    return seat


def card_list(value: Any, what: str, allow_empty: bool = False) -> tuple[Card, ...]:
    if not isinstance(value, (list, tuple)) or (not value and not allow_empty):
        raise InvalidInput("invalid-action", "{field} must be a list of cards, like [\"9H\", \"10D\"].", field=what)
    return parse_cards(value)


def _reason(action: Mapping[str, Any]) -> str:
    reason = action.get("reason", "")
    if not isinstance(reason, str) or len(reason) > MAX_REASON:
        raise InvalidInput("invalid-action", "reason must be a short text.", field="reason")
    return reason


def _account(value: Any, what: str, seats: int, boxes: Collection[Card]) -> Account:
    if isinstance(value, int) and not isinstance(value, bool):
        value = f"seat:{value}"
    if isinstance(value, str):
        kind, _, key = value.partition(":")
        if kind == "seat" and key.isascii() and key.isdigit() and int(key) < seats:  # not "¹": a digit int() refuses
            return seat_account(int(key))
        if kind == "box":
            try:
                card = parse_card(key)
            except InvalidInput:
                card = None
            if card is not None and card in boxes:
                return box_account(card)
    raise InvalidInput(
        "invalid-account",
        "{field} must be a seat (\"seat:0\" to \"seat:{last}\") or a box (\"box:7D\"…), not {value!r}.",
        last=seats - 1, value=value,
        field=what,
    )


def _deal(a: Mapping[str, Any], seats: int, boxes: Collection[Card]) -> Deal:
    dealer = None if a.get("dealer") is None else seat_number(a["dealer"], seats, "dealer")
    hands = None
    if a.get("hands") is not None:
        given = a["hands"]
        if not isinstance(given, (list, tuple)) or len(given) != seats:
            raise InvalidInput("invalid-hands", "hands lists one hand per seat: {count} hands.", count=seats)
        hands = tuple(card_list(hand, f"hands[{seat}]") for seat, hand in enumerate(given))
    talon = None if a.get("talon") is None else card_list(a["talon"], "talon", allow_empty=True)
    return Deal(dealer, hands, talon)


def _play(a: Mapping[str, Any], seats: int, boxes: Collection[Card]) -> Play:
    seat = seat_number(a["seat"], seats)
    return Play(seat, card_list(a["cards"], "cards"), card_list(a.get("announced", []), "announced", True))


def _pass(a: Mapping[str, Any], seats: int, boxes: Collection[Card]) -> Pass:
    return Pass(seat_number(a["seat"], seats))


def _bounded(value: Any, what: str, bounds: tuple[int, int]) -> int:
    number = whole_number(value, what)
    least, most = bounds
    if not least <= number <= most:
        raise InvalidInput(
            "invalid-action", "{field} must be a whole number from {least} to {most}, not {value}.",
            least=least, most=most, value=shown(number),
            field=what,
        )
    return number


def _reveal(a: Mapping[str, Any], seats: int, boxes: Collection[Card]) -> Reveal | RevealCount:
    """The card form (``cards``) or the count form (``count``, ``points``, ``honours``?), never both."""
    seat = seat_number(a["seat"], seats)
    if "cards" in a:
        counted = sorted(set(_COUNT_FIELDS).intersection(a))
        if counted:
            raise InvalidInput(
                "invalid-action",
                "A reveal gives the cards left in hand, or their count ({field!r}…), not both.",
                field=counted[0],
            )
        return Reveal(seat, card_list(a["cards"], "cards", allow_empty=True))
    if "count" not in a:
        field = "count" if "points" in a or "honours" in a else "cards"  # the count form without its count
        raise InvalidInput("invalid-action", "A {action} action needs {field!r}.", action="reveal", field=field)
    if "points" not in a:
        raise InvalidInput("invalid-action", "A {action} action needs {field!r}.", action="reveal", field="points")
    count = _bounded(a["count"], "count", REVEAL_COUNT)
    points = _bounded(a["points"], "points", REVEAL_POINTS)
    return RevealCount(seat, count, points, card_list(a.get("honours", []), "honours", allow_empty=True))


def _undo(a: Mapping[str, Any], seats: int, boxes: Collection[Card]) -> Undo:
    return Undo(_reason(a))


def _adjust(a: Mapping[str, Any], seats: int, boxes: Collection[Card]) -> Adjust:
    source, target = _account(a["from"], "from", seats, boxes), _account(a["to"], "to", seats, boxes)
    return Adjust(source, target, whole_number(a["amount"], "amount"), _reason(a))


def _end(a: Mapping[str, Any], seats: int, boxes: Collection[Card]) -> End:
    return End(_reason(a))


_COUNT_FIELDS = ("count", "points", "honours")  # a reveal's count form (settling by count)


def _shape(required: tuple[str, ...], optional: tuple[str, ...] = ()) -> tuple[frozenset[str], frozenset[str]]:
    """An action's required fields and every field it may have."""
    return frozenset(required), frozenset(required) | frozenset(optional) | {"type"}


Parser = Callable[[Mapping[str, Any], int, Collection[Card]], Action]
_PARSERS: dict[str, tuple[frozenset[str], frozenset[str], Parser]] = {
    "deal": (*_shape((), ("dealer", "hands", "talon")), _deal),
    "play": (*_shape(("seat", "cards"), ("announced",)), _play),
    "pass": (*_shape(("seat",)), _pass),
    "reveal": (*_shape(("seat",), ("cards", *_COUNT_FIELDS)), _reveal),
    "undo": (*_shape((), ("reason",)), _undo),
    "adjust": (*_shape(("from", "to", "amount"), ("reason",)), _adjust),
    "end": (*_shape((), ("reason",)), _end),
}
