"""Schemas shared by several resources: problems, stored events, the game state, list pages, the names people
type (:class:`Name`), and what the OpenAPI document says beyond the fields (:class:`ExactDocument`).

Responses are dumped through these schemas, so the OpenAPI document shows what
the API really sends; requests are read through them, and the document says
exactly what the server takes.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

from apispec import BasePlugin
from marshmallow import Schema, ValidationError, fields, validate

from nj_ledger.bounds import ADJUSTMENT, MAX_CHIPS, MAX_DEAL_EVENTS, MAX_GAME_EVENTS, RULE_RANGES, STARTING_CHIPS
from nj_ledger.names import code_point, hidden_character, hidden_ranges
from nj_ledger.state import STATUSES

from .dumping import ViewSchema
from .i18n import N_, validation_templates

# Bodies the API reads refuse unknown fields (marshmallow's default: RAISE).

MAX_INT = 2**31 - 1  # the largest number every integer column holds (PostgreSQL's integer): bounds the inputs

# The ranges of the numbers a game is made of (nj_ledger.bounds), as the OpenAPI document declares them. The
# core checks them, so that a number outside keeps the refusal's own code (invalid-chips, invalid-rules…) and
# names its field (`field`: "starting_chips", "rules.stake_unit"); the schemas only declare them.
STARTING_CHIPS_RANGE = {"minimum": STARTING_CHIPS[0], "maximum": STARTING_CHIPS[1]}
SEAT_RANGE = {"minimum": 0, "maximum": 7}  # and below the number of players
RULES_DESCRIPTION = (
    'A profile name ("classic", "cards", "skip", "hearts", "avantcoureur-1760") '
    'or {"profile": …, overrides…}. Whole-number options and their ranges: '
    + ", ".join(f"{'board stakes' if name == 'board' else name} {least:,}–{most:,}"
                for name, (least, most) in RULE_RANGES.items())
    + ' (max_deals also by player count, {"3": 12}); a number outside is refused with 422 invalid-rules, '
      'its `field` naming the option ("rules.stake_unit").'
)
ACTIONS_DESCRIPTION = (
    "Table actions (SPEC §4), applied all or nothing: "
    '{"type": "deal", "dealer"?, "hands"?, "talon"?}, '
    '{"type": "play", "seat", "cards", "announced"?}, {"type": "pass", "seat"}, '
    '{"type": "reveal", "seat", "cards"} or, settling by count, {"type": "reveal", "seat", "count", "points", '
    '"honours"?} (cards left 1–52, their points 0–520, the honours still held; checked against the deal: '
    'reveal-mismatch, not-an-honour), {"type": "undo", "reason"?}, '
    '{"type": "adjust", "from", "to", "amount", "reason"?}, {"type": "end", "reason"?}. '
    "Seats and the dealer are 0 to players − 1 (unknown-seat); an adjustment's amount is "
    f"{ADJUSTMENT[0]:,}–{ADJUSTMENT[1]:,} (invalid-amount). A deal holds at most {MAX_DEAL_EVENTS:,} events, "
    f"undos included (deal-too-long), a game at most {MAX_GAME_EVENTS:,} (game-too-long; a deal starts only "
    f"with room for a whole deal, ending the game is always possible), and no balance, box or transfer goes "
    f"past ±{MAX_CHIPS:,} chips (chips-out-of-range)."
)


BLANK = N_("Must not be blank.")
HIDDEN = N_("Holds a character that shows nothing ({character}): type it again without it.")
validation_templates(HIDDEN)


@cache
def _visible_pattern(blank: bool) -> re.Pattern[str]:
    """The pattern the OpenAPI document gives a name: no character that shows nothing, and (unless ``blank``)
    one that shows something. Characters of the first plane are written as escapes, the others as themselves:
    the one way both Python's patterns and ECMAScript's (given the unicode flag) read them."""
    def written(number: int) -> str:
        return f"\\u{number:04x}" if number <= 0xFFFF else chr(number)

    hidden = "".join(written(first) + ("" if last == first else "-" + written(last)) for first, last in hidden_ranges())
    return re.compile(("^" if blank else r"^(?=[\s\S]*\S)") + f"[^{hidden}]*" + r"(?![\s\S])")


class Visible(validate.Validator):
    """A name shows all it holds (:mod:`nj_ledger.names`): no character that shows nothing, and not blank unless
    ``blank``. Its ``regex`` is only what the OpenAPI document shows (apispec reads it), built when asked."""

    messages = (BLANK, HIDDEN)  # every message it gives, as templates (the catalog holds their French)

    def __init__(self, blank: bool = False) -> None:
        self.blank = blank

    @property
    def regex(self) -> re.Pattern[str]:
        return _visible_pattern(self.blank)

    def __call__(self, value: str) -> str:
        if not self.blank and not value.strip():
            raise ValidationError(BLANK)
        found = hidden_character(value)
        if found is not None:
            raise ValidationError(HIDDEN.format(character=code_point(found)))
        return value


class Name(fields.String):
    """A name a person types (a player's, a club's, an evening's, a season's, a game's title): read in Unicode's
    composed form (NFC), so that "Chloé" is one name however its é was typed, and refused when it holds a
    character that shows nothing (422 ``invalid-request``, naming the field)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return unicodedata.normalize("NFC", super()._deserialize(value, attr, data, **kwargs))


def name_field(longest: int, *, blank: bool = False, **options: Any) -> Name:
    """A :class:`Name` of at most ``longest`` characters, not blank unless ``blank`` (an empty one is refused as
    blank: :class:`Visible`)."""
    return Name(validate=[validate.Length(max=longest), Visible(blank)], **options)


# Every text the server reads holds no NUL (api.inputs refuses it in any body, query or path, as PostgreSQL's text
# cannot keep it): a string field of the document with no pattern of its own says so with this one.
NO_NUL = r"^[^\u0000]*(?![\s\S])"


def _not_above(limit: int) -> str:
    """A pattern of the whole numbers from 0 to ``limit`` written without leading zeros.

    >>> [bool(re.fullmatch(_not_above(2147483647), n)) for n in ("0", "2147483647", "2147483648", "9999999999")]
    [True, True, False, False]
    """
    digits = str(limit)
    below = [f"[0-9]{{1,{len(digits) - 1}}}"] if len(digits) > 1 else []
    below += [digits[:place] + f"[0-{int(digit) - 1}]" + (f"[0-9]{{{len(digits) - place - 1}}}"
                                                          if place < len(digits) - 1 else "")
              for place, digit in enumerate(digits) if digit != "0"]
    return "(?:" + "|".join([*below, digits]) + ")"


def whole_number_header(longest: int, limit: int) -> str:
    """The pattern of a header the server reads as a whole number (``Last-Event-ID``): blank (none), or at most
    ``longest`` digits between spaces, leading zeros allowed, worth at most ``limit``."""
    number = rf"(?=[0-9]{{1,{longest}}}\s*(?![\s\S]))0*{_not_above(limit)}"
    return rf"^\s*(?:{number})?\s*(?![\s\S])"


NOT_NULL = {"anyOf": [{"type": kind} for kind in ("string", "number", "boolean", "array", "object")]}


def _exact_attributes(self: Any, field: fields.Field, **_: Any) -> dict[str, Any]:
    """The apispec attribute function that says what marshmallow checks and apispec leaves out: a string field
    with no pattern (nor choice) of its own gets :data:`NO_NUL`; a field of any JSON that may not be null (the
    rules of a game: a profile's name or an object) says so (:data:`NOT_NULL`), where apispec gives ``{}``."""
    if type(field) is fields.Raw and not field.allow_none:
        return dict(NOT_NULL)
    if not isinstance(field, fields.String) or any(
            isinstance(getattr(rule, "regex", None), re.Pattern) or isinstance(rule, validate.OneOf)
            for rule in field.validators):
        return {}
    return {"pattern": NO_NUL}


class ExactDocument(BasePlugin):
    """What a request schema's fields cannot say on their own, said in the OpenAPI document: a rule across its
    fields, given by the schema class as ``OPENAPI`` (``oneOf``…), no NUL in any text (:data:`NO_NUL`), no null
    where none is taken (:data:`NOT_NULL`), so that the document calls valid exactly what the server takes
    (tests/reliability/test_openapi_fuzz.py)."""

    def init_spec(self, spec: Any) -> None:
        for plugin in spec.plugins:
            converter = getattr(plugin, "converter", None)
            if converter is not None:
                converter.add_attribute_function(_exact_attributes)

    def schema_helper(self, name: str, definition: dict[str, Any], **kwargs: Any) -> dict[str, Any] | None:
        schema = kwargs.get("schema")
        extra = getattr(schema if isinstance(schema, type) else type(schema), "OPENAPI", None)
        return dict(extra) if extra else None


class ProblemSchema(ViewSchema):
    """RFC 9457 problem details, with the ledger's stable ``code``."""

    type = fields.String(metadata={"example": "urn:nj-ledger:problem:not-your-turn"})
    title = fields.String()
    status = fields.Integer()
    detail = fields.String(metadata={"description": "A sentence a scorer understands."})
    code = fields.String(metadata={"description": "Stable code to branch on, e.g. not-your-turn."})
    index = fields.Integer(metadata={"description": "Position of the refused action in a batch."})
    field = fields.String(metadata={"description": 'The refused field, when one is: "starting_chips", '
                                    '"rules.stake_unit", or an action\'s "amount" (with its index).'})
    errors = fields.Raw(metadata={"description": "Field-by-field messages of an invalid request."})
    current_version = fields.Integer(metadata={"description": "With version-conflict: the game's version."})


class RecordSchema(ViewSchema):
    """One stored event of a game's log."""

    seq = fields.Integer(required=True, validate=validate.Range(1, MAX_INT))
    deal = fields.Integer(required=True, validate=validate.Range(0, MAX_INT))
    type = fields.String(required=True)
    data = fields.Dict(required=True)
    v = fields.Integer(required=True, validate=validate.Range(1, MAX_INT))
    recorded_at = fields.String(required=True, metadata={"example": "2026-11-22T07:00:35.123456Z"})
    hash = fields.String(required=True)


class SeatSchema(ViewSchema):
    seat = fields.Integer()
    name = fields.String()
    chips = fields.Integer()


class StandingSchema(SeatSchema):
    rank = fields.Integer()


class ResultSchema(ViewSchema):
    reason = fields.String(metadata={"description": "cannot_ante, shortfall, max_deals or agreed."})
    standings = fields.List(fields.Nested(StandingSchema))
    board_left = fields.Dict(keys=fields.String(), values=fields.Integer())


class DealViewSchema(ViewSchema):
    number = fields.Integer()
    dealer = fields.Integer()
    first_hand = fields.Integer()
    turn = fields.Integer(allow_none=True, metadata={"description": "The seat to act."})
    expected = fields.String(allow_none=True, metadata={"description": "The rank that continues the run."})
    run = fields.List(fields.String())
    hand_sizes = fields.List(fields.Integer())
    hands = fields.List(fields.List(fields.String()), allow_none=True)
    passed = fields.List(fields.Integer())
    winner = fields.Integer(allow_none=True)
    grand_opera = fields.Boolean()
    awaiting_reveal = fields.List(fields.Integer())
    can_undo = fields.Boolean(metadata={"description": "An undo would withdraw something (the game's `undo`)."})


class UndoViewSchema(ViewSchema):
    """What an `undo` would withdraw now."""

    type = fields.String(validate=validate.OneOf(["play", "pass", "reveal"]))
    seat = fields.Integer()
    withdraws_settlement = fields.Boolean(metadata={
        "description": "The deal is settled (and perhaps the game ended by it): the undo withdraws the "
                       "settlement with the action that caused it."})


class GameStateSchema(ViewSchema):
    """A game as it stands (SPEC §5)."""

    id = fields.String()
    club = fields.String()
    title = fields.String(allow_none=True, metadata={"description": "The game's title, if it was given one."})
    date = fields.String(metadata={"description": "The day the game was played (YYYY-MM-DD)."})
    version = fields.Integer(metadata={"description": "The seq of the game's last event; also its ETag."})
    status = fields.String(validate=validate.OneOf(STATUSES))
    rules = fields.Dict(metadata={"description": "The fully resolved rule options."})
    starting_chips = fields.Integer()
    players = fields.List(fields.Nested(SeatSchema))
    board = fields.Dict(keys=fields.String(), values=fields.Integer())
    deals_played = fields.Integer()
    next_dealer = fields.Integer(allow_none=True)
    deal = fields.Nested(DealViewSchema, allow_none=True)
    result = fields.Nested(ResultSchema, allow_none=True)
    undo = fields.Nested(UndoViewSchema, allow_none=True, metadata={
        "description": "What an undo would withdraw now (null: an undo is refused): the latest play, pass or "
                       "reveal, within the deal and past its settlement until the next deal starts; never after "
                       "an `end` or an adjustment."})
    redo = fields.Dict(allow_none=True, metadata={
        "description": 'The table action the latest undo withdrew, exactly as it is sent again to redo it '
                       '(e.g. {"type": "play", "seat": 1, "cards": ["9S"], "announced": []}); null when there '
                       "is nothing to redo. Recording it takes it off (undo, undo, redo, redo); any other "
                       "action empties the redos."})


class GameSummarySchema(ViewSchema):
    """A game in a club's list."""

    id = fields.String()
    club = fields.String()
    created_at = fields.String()
    updated_at = fields.String()
    date = fields.String(metadata={"description": "The day the game was played (YYYY-MM-DD)."})
    title = fields.String(allow_none=True)
    version = fields.Integer()
    status = fields.String()
    profile = fields.String()
    players = fields.List(fields.String())
    starting_chips = fields.Integer()
    deals_played = fields.Integer()


class PageQuerySchema(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 500))
    offset = fields.Integer(load_default=0, validate=validate.Range(0, MAX_INT))


class PageSchema(ViewSchema):
    next = fields.String(allow_none=True, metadata={"description": "The next page's URL, or null on the last."})
