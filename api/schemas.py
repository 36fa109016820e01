"""Schemas shared by several resources: problems, stored events, the game state, list pages.

Responses are dumped through these schemas, so the OpenAPI document shows what
the API really sends.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from nj_ledger.bounds import ADJUSTMENT, MAX_CHIPS, MAX_DEAL_EVENTS, RULE_RANGES, STARTING_CHIPS
from nj_ledger.state import STATUSES

from .dumping import ViewSchema

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
    f"undos included (deal-too-long), and no balance, box or transfer goes past ±{MAX_CHIPS:,} chips "
    "(chips-out-of-range)."
)


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
