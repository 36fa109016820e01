"""Rule profiles as data.

Every option a rule book varies on is a field of :class:`Rules`; the named
profiles are sets of overrides of ``classic``. A game stores the fully resolved
options (``Rules.to_dict()``), so a later change of a profile never changes an
old game::

    >>> rules = resolve_rules({"profile": "classic", "payment": "cards", "max_deals": 5})
    >>> rules.payment, rules.max_deals, rules.board["7D"]
    ('cards', 5, 5)

A new game's whole-number options are also held to :data:`~nj_ledger.bounds.RULE_RANGES`
(:func:`check_bounds`); the rules stored in an old game resolve whatever they hold.

The profiles themselves, and how the 1760 one reads its source, are in
:mod:`nj_ledger.profiles`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

from .bounds import RULE_RANGES, shown
from .cards import Card, parse_card
from .errors import InvalidInput
from .messages import Listed, Message, phrase
from .profiles import PROFILES as PROFILES

CLASSIC_BOARD = {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 5}
CLASSIC_DEAL_TABLE = {2: (22, 8), 3: (15, 7), 4: (12, 4), 5: (9, 7), 6: (8, 4), 7: (7, 3), 8: (6, 4)}

_CHOICES: dict[str, tuple[str, ...]] = {
    "sequence": ("rank", "suit"),
    "opening": ("any", "lowest"),
    "blocked": ("restart", "skip"),
    "restarter": ("last_player", "first_passer"),
    "payment": ("points", "cards"),
    "bete": ("double", "face", "none"),
    "ante": ("all", "dealer"),
    "shortfall": ("end", "negative"),
    "dealer_rotation": ("next", "previous"),
}
GRAND_OPERA_CONDITIONS = ("first_turn", "no_other_plays")
GRAND_OPERA_REWARDS = ("sweep", "double", "none")


@dataclass(frozen=True)
class GrandOpera:
    condition: str = "first_turn"
    reward: str = "sweep"


@dataclass(frozen=True)
class Rules:
    """The fully resolved options of a game (SPEC §3.1)."""

    profile: str = "classic"
    board: Mapping[Card, int] = field(default_factory=lambda: {parse_card(c): s for c, s in CLASSIC_BOARD.items()})
    players: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8)
    deal_table: Mapping[int, tuple[int, int]] = field(default_factory=lambda: dict(CLASSIC_DEAL_TABLE))
    sequence: str = "rank"
    opening: str = "any"
    may_stop: bool = True
    blocked: str = "restart"
    restarter: str = "last_player"
    payment: str = "points"
    bete: str = "double"
    grand_opera: GrandOpera = GrandOpera()
    ante: str = "all"
    stake_unit: int = 1
    point_value: int = 1
    shortfall: str = "end"
    max_deals: int | Mapping[int, int] | None = None
    dealer_rotation: str = "next"
    # The hocs of the 1760 rules (SPEC §3.4); classic play has none of them.
    stops: tuple[Card, ...] = ()  # permanent hocs: like a King, they end the run
    wild: Card | None = None  # the chief hoc: playable at any time in its holder's turn
    hoc_reward: int = 0  # chips each other player pays for a hoc played and announced
    wild_pays_double: bool = False  # a loser still holding the wild card pays double

    # --- derived facts the reducer asks often -------------------------------------------------
    @cached_property
    def honours(self) -> tuple[Card, ...]:
        """The board's honour cards, in board order (kept: the reducer asks at every transfer)."""
        return tuple(self.board)

    @cached_property
    def box_positions(self) -> Mapping[str, int]:
        """Each honour's position on the board."""
        return {card: position for position, card in enumerate(self.board)}

    @property
    def ante_total(self) -> int:
        """Chips one player stakes on the whole board for a deal."""
        return sum(self.board.values()) * self.stake_unit

    def needs_losers_hands(self) -> bool:
        """Whether settling a deal needs the cards the losers still hold (not just how many)."""
        return self.payment == "points" or self.bete != "none" or self.wild_pays_double

    def ends_run(self, card: Card) -> bool:
        """A King, and in the 1760 rules every hoc, ends the run: its player starts a new one."""
        return card.rank == 13 or card in self.stops or card == self.wild

    def wanted_after(self, card: Card) -> tuple[int | None, str | None]:
        """What the run wants after ``card`` (its rank, and its suit in suit play): nothing after a card that ends
        the run (its player starts a new one), else the next rank."""
        if self.ends_run(card):
            return None, None
        return card.rank + 1, (card.suit if self.sequence == "suit" else None)

    def is_hoc(self, card: Card) -> bool:
        return self.hoc_reward > 0 and self.ends_run(card)

    def announceable(self, card: Card) -> bool:
        """Cards a player calls when laying them: the honours, and hocs when they earn chips."""
        return card in self.board or self.is_hoc(card)

    def deals_limit(self, players: int) -> int | None:
        """How many deals a game of ``players`` lasts, when the rules fix it."""
        if isinstance(self.max_deals, Mapping):
            return self.max_deals.get(players)
        return self.max_deals

    def view(self) -> Mapping[str, Any]:
        """:meth:`to_dict`, written once per rules and shared by every state view: read it, never change it."""
        written = self.__dict__.get("_view")
        if written is None:
            written = self.to_dict()
            object.__setattr__(self, "_view", written)
        return written

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored in ``game_started``."""
        return {
            "profile": self.profile,
            "board": {str(card): stake for card, stake in self.board.items()},
            "players": list(self.players),
            "deal_table": {str(n): list(split) for n, split in sorted(self.deal_table.items())},
            "sequence": self.sequence,
            "opening": self.opening,
            "may_stop": self.may_stop,
            "blocked": self.blocked,
            "restarter": self.restarter,
            "payment": self.payment,
            "bete": self.bete,
            "grand_opera": {"condition": self.grand_opera.condition, "reward": self.grand_opera.reward},
            "ante": self.ante,
            "stake_unit": self.stake_unit,
            "point_value": self.point_value,
            "shortfall": self.shortfall,
            "max_deals": (
                {str(n): d for n, d in sorted(self.max_deals.items())}
                if isinstance(self.max_deals, Mapping) else self.max_deals
            ),
            "dealer_rotation": self.dealer_rotation,
            "stops": [str(card) for card in self.stops],
            "wild": None if self.wild is None else str(self.wild),
            "hoc_reward": self.hoc_reward,
            "wild_pays_double": self.wild_pays_double,
        }


OPTION_NAMES = tuple(f.name for f in fields(Rules) if f.name != "profile")


def _bad(option: str, value: Any, expected: str | Message | Listed, **named: Any) -> InvalidInput:
    """``expected`` is a phrase of the catalog ("true or false"), or values of which one was expected."""
    return InvalidInput(
        "invalid-rules", "Rule option {option!r} cannot be {value!r}: expected {expected}.",
        option=option, value=value, expected=phrase(expected) if isinstance(expected, str) else expected, **named,
    )


def _int(option: str, value: Any, minimum: int, field: str | None = None) -> int:
    """A whole-number option of at least ``minimum``; a refusal names it (``field``, ``"rules.<option>"``)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _bad(option, value, phrase("a whole number of at least {minimum}", minimum=minimum),
                   field=field or f"rules.{option}")
    return value


def _board(value: Any) -> dict[Card, int]:
    if not isinstance(value, Mapping) or len(value) != 5:
        raise _bad("board", value, "five honour cards with their stakes, like {\"10D\": 1, …}")
    board: dict[Card, int] = {}
    for text, stake in value.items():
        try:
            card = parse_card(text)
        except InvalidInput:
            raise _bad("board", text, "a card like 10D, JC, QS, KH or 7D") from None
        if card in board:
            raise _bad("board", text, "five different cards")
        board[card] = _int("board", stake, 1, f"rules.board.{card}")
    # One order for the boxes whatever order the JSON keys arrive in (a JSONB column or any tool may
    # reorder them): by stake, then by card.
    return dict(sorted(board.items(), key=lambda item: (item[1], item[0].rank, item[0].suit)))


def _players(value: Any) -> tuple[int, ...]:
    if isinstance(value, Mapping):
        least, most = _int("players", value.get("min"), 2), _int("players", value.get("max"), 2)
        if most > 8:  # before the range is built: {"max": 10**12} would fill the memory
            raise _bad("players", most, "player counts between 2 and 8", field="rules.players.max")
        value = list(range(least, most + 1))
    if not isinstance(value, (list, tuple)) or not value:
        raise _bad("players", value, "a list of allowed player counts between 2 and 8")
    counts = sorted({_int("players", v, 2) for v in value})
    if counts[-1] > 8:
        raise _bad("players", value, "player counts between 2 and 8", field="rules.players")
    return tuple(counts)


def _deal_table(value: Any) -> dict[int, tuple[int, int]]:
    if not isinstance(value, Mapping) or not value:
        raise _bad("deal_table", value, "cards per player and talon by player count, like {\"3\": [15, 7]}")
    table: dict[int, tuple[int, int]] = {}
    for count, split in value.items():
        try:
            n = int(count)
        except (TypeError, ValueError):
            raise _bad("deal_table", count, "a player count between 2 and 8") from None
        if not 2 <= n <= 8:
            raise _bad("deal_table", count, "a player count between 2 and 8")
        if not isinstance(split, (list, tuple)) or len(split) != 2:
            raise _bad("deal_table", split, "[cards per player, cards in the talon]")
        hand, talon = _int("deal_table", split[0], 1), _int("deal_table", split[1], 0)
        if hand * n + talon != 52:
            raise _bad("deal_table", split, "hands and a talon that use the 52 cards exactly")
        table[n] = (hand, talon)
    return table


def _grand_opera(value: Any, base: GrandOpera) -> GrandOpera:
    if not isinstance(value, Mapping) or set(value) - {"condition", "reward"}:
        raise _bad("grand_opera", value, "{\"condition\": …, \"reward\": …}")
    condition = value.get("condition", base.condition)
    reward = value.get("reward", base.reward)
    if condition not in GRAND_OPERA_CONDITIONS:
        raise _bad("grand_opera.condition", condition, Listed(GRAND_OPERA_CONDITIONS, alternatives=True))
    if reward not in GRAND_OPERA_REWARDS:
        raise _bad("grand_opera.reward", reward, Listed(GRAND_OPERA_REWARDS, alternatives=True))
    return GrandOpera(condition, reward)


def _option(name: str, value: Any, base: Rules) -> Any:
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise _bad(name, value, Listed(tuple(repr(c) for c in _CHOICES[name]), alternatives=True))
        return value
    if name == "board":
        return _board(value)
    if name == "players":
        return _players(value)
    if name == "deal_table":
        return _deal_table(value)
    if name == "grand_opera":
        return _grand_opera(value, base.grand_opera)
    if name in ("may_stop", "wild_pays_double"):
        if not isinstance(value, bool):
            raise _bad(name, value, "true or false")
        return value
    if name in ("stake_unit", "point_value"):
        return _int(name, value, 1)
    if name == "hoc_reward":
        return _int(name, value, 0)
    if name == "max_deals":
        if isinstance(value, Mapping):
            limits = {}
            for count, deals in value.items():
                if not (str(count).isascii() and str(count).isdigit()) or not 2 <= int(count) <= 8:
                    raise _bad(name, count, "a player count between 2 and 8")
                limits[int(count)] = _int(name, deals, 1, f"rules.max_deals.{count}")
            return limits
        return None if value is None else _int(name, value, 1)
    if name == "stops":
        if not isinstance(value, (list, tuple)):
            raise _bad(name, value, "a list of cards that end a run, like [\"10D\", \"JC\"]")
        try:
            return tuple(dict.fromkeys(parse_card(card) for card in value))
        except InvalidInput:
            raise _bad(name, value, "a list of cards like 10D, JC, QS") from None
    if name == "wild":
        if value is None:
            return None
        try:
            return parse_card(value)
        except InvalidInput:
            raise _bad(name, value, "a card like 7D, or null") from None
    raise InvalidInput("invalid-rules", "Unknown rule option {option!r}.", option=name)


def _apply_overrides(base: Rules, overrides: Mapping[str, Any]) -> Rules:
    values = {f.name: getattr(base, f.name) for f in fields(Rules)}
    for name, value in overrides.items():
        if name not in OPTION_NAMES:
            raise InvalidInput(
                "invalid-rules",
                "Unknown rule option {option!r}; the options are: {options}.",
                options=Listed(OPTION_NAMES),
                option=name,
            )
        values[name] = _option(name, value, base)
    rules = Rules(**values)
    missing = [n for n in rules.players if n not in rules.deal_table]
    if missing:
        raise InvalidInput(
            "invalid-rules",
            "The deal table has no line for {counts} players.",
            counts=Listed(tuple(missing)),
            option="deal_table",
        )
    return rules


def resolve_rules(spec: str | Mapping[str, Any] | Rules | None = None) -> Rules:
    """Resolve a profile name or ``{"profile": name, …overrides}`` into full :class:`Rules`.

    A stored rules dict (``Rules.to_dict()``) resolves to the same rules, whatever
    the profile's definition is today, because every option is written out.
    """
    if isinstance(spec, Rules):
        return spec
    if spec is None:
        spec = "classic"
    if isinstance(spec, str):
        spec = {"profile": spec}
    if not isinstance(spec, Mapping):
        raise InvalidInput("invalid-rules", "Rules are a profile name or an object with a \"profile\" and overrides.")
    overrides = dict(spec)
    name = overrides.pop("profile", "classic")
    if not isinstance(name, str) or name not in PROFILES:  # a list or an object names no profile
        raise InvalidInput(
            "invalid-rules",
            "Unknown rule profile {profile!r}; the profiles are: {profiles}.",
            profile=name, profiles=Listed(tuple(PROFILES)),
            option="profile",
        )
    base = _apply_overrides(Rules(profile=name), PROFILES[name])
    return _apply_overrides(base, overrides)


def _out_of_range(option: str, field: str, value: int) -> InvalidInput:
    least, most = RULE_RANGES[option]
    return InvalidInput(
        "invalid-rules", "Rule option {option!r} must be a whole number from {least} to {most}, not {value}.",
        option=option, value=shown(value), least=least, most=most,
        field=field,
    )


def check_bounds(rules: Rules) -> Rules:
    """``rules`` if every whole-number option is within :data:`~nj_ledger.bounds.RULE_RANGES`, else an
    ``invalid-rules`` refusal naming the option (``params["field"]``: ``"rules.stake_unit"``).

    Only a new game is checked (:func:`nj_ledger.decide.new_game`): the rules stored in
    a game's first event are a fact, and resolve as they were recorded.

    >>> check_bounds(resolve_rules("classic")).stake_unit
    1
    >>> try:
    ...     check_bounds(resolve_rules({"profile": "classic", "stake_unit": 10**18}))
    ... except InvalidInput as refusal:
    ...     print(refusal.params["field"], refusal.params["most"])
    rules.stake_unit 1000
    """
    for card, stake in rules.board.items():
        if not RULE_RANGES["board"][0] <= stake <= RULE_RANGES["board"][1]:
            raise _out_of_range("board", f"rules.board.{card}", stake)
    for option in ("stake_unit", "point_value", "hoc_reward"):
        value = getattr(rules, option)
        if not RULE_RANGES[option][0] <= value <= RULE_RANGES[option][1]:
            raise _out_of_range(option, f"rules.{option}", value)
    limits = rules.max_deals if isinstance(rules.max_deals, Mapping) else {None: rules.max_deals}
    least, most = RULE_RANGES["max_deals"]
    for count, deals in limits.items():
        if deals is not None and not least <= deals <= most:
            field = "rules.max_deals" if count is None else f"rules.max_deals.{count}"
            raise _out_of_range("max_deals", field, deals)
    return rules
