"""An evening's log of decisions: reading it (and whether its hash chain holds), recording a director's decision,
a player confirming a game's result, and the evening closed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from nj_ledger import evenings as core
from nj_ledger.evenings import EveningState, GameOutcome
from nj_ledger.store import TokenInfo

from .auth import own_club, writer
from .context import etag, store
from .evening_kinds import DECIDE, DECISION_TYPES
from .evening_view import NAME, ROUND_RANGE, SIGNED_BY, EveningSchema, blp, by_whom, evening_view, read_evening
from .games import expected_version
from .i18n import N_
from .problems import PROBLEM_JSON
from .schemas import ProblemSchema, name_field

NOT_BLANK = validate.Regexp(r"[\s\S]*\S", error=N_("Must not be blank."))
REASON = fields.String(validate=[validate.Length(min=1, max=500), NOT_BLANK])
SCORE_RANGE = validate.Range(-10**9, 10**9)


class DecisionSchema(Schema):
    seq = fields.Integer()
    type = fields.String()
    data = fields.Dict()
    by = fields.Dict(metadata={"description": "Who made it: the token's role, id and label (a table: its number), "
                                              "and `signed_by`, the name the director signed it with, when given."})
    recorded_at = fields.String()
    hash = fields.String()
    mend = fields.Boolean(metadata={"description": "An adjustment, a game voided, a withdrawal or a score awarded."})


class ChainSchema(Schema):
    ok = fields.Boolean()
    first_bad_seq = fields.Integer(allow_none=True)


class DecisionsSchema(Schema):
    evening = fields.String()
    version = fields.Integer()
    chain = fields.Nested(ChainSchema)
    decisions = fields.List(fields.Nested(DecisionSchema))


class DecisionsQuerySchema(Schema):
    mends = fields.Boolean(metadata={"description": "true: the mends only (the audit of the director's changes)."})


class NewDecisionSchema(Schema):
    type = fields.String(required=True, validate=validate.OneOf(DECISION_TYPES), metadata={
        "description": "arrival, departure (players), adjustment (player, amount), void (game), withdrawal "
                       "(player), award (player, round, score), freeze (through_round), reveal."})
    players = fields.List(NAME, validate=validate.Length(min=1, max=core.MAX_PLAYERS))
    player = NAME
    game = fields.String(validate=validate.Length(min=1, max=64))
    amount = fields.Integer(strict=True, validate=SCORE_RANGE, metadata={
        "description": "Added to the player's score (negative: a penalty), in the evening's unit."})
    score = fields.Integer(strict=True, validate=SCORE_RANGE, metadata={
        "description": "The score awarded for the round, in the evening's unit (match points: 0 to 100)."})
    round = fields.Integer(strict=True, validate=validate.Range(1, core.MAX_ROUNDS))
    through_round = fields.Integer(strict=True, validate=ROUND_RANGE)
    reason = REASON
    signed_by = name_field(80, metadata={"description": SIGNED_BY})

    # What each type needs, checked by needed() and said in the OpenAPI document (api.schemas.ExactDocument).
    NEEDED: ClassVar[dict[str, tuple[str, ...]]] = {
        "arrival": ("players",), "departure": ("players",), "adjustment": ("player", "amount", "reason"),
        "void": ("game", "reason"), "withdrawal": ("player", "reason"), "award": ("player", "round", "score", "reason"),
        "freeze": ("through_round",), "reveal": ()}
    OPENAPI: ClassVar[dict[str, Any]] = {"oneOf": [
        {"properties": {"type": {"enum": [kind]}}, "required": ["type", *needed]} for kind, needed in NEEDED.items()]}

    @validates_schema
    def needed(self, data: dict[str, Any], **_: Any) -> None:
        for name in self.NEEDED.get(data.get("type", ""), ()):
            if name not in data:
                raise ValidationError(N_("Missing data for required field."), name)


class DecidedSchema(Schema):
    decision = fields.Nested(DecisionSchema)
    evening = fields.Nested(EveningSchema)


class ConfirmSchema(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    player = name_field(80, required=True, metadata={
        "description": "The player of the table who confirms the result."})


class CloseSchema(Schema):
    reason = fields.String(load_default="", validate=validate.Length(max=500))
    signed_by = name_field(80, metadata={"description": SIGNED_BY})


def decision_view(item: dict[str, Any]) -> dict[str, Any]:
    """A decision as the log shows it, and whether it is a mend."""
    return {**item, "mend": item["type"] in core.MENDS}


@blp.route("/clubs/<club>/evenings/<evening>/decisions")
class Decisions(MethodView):
    @blp.arguments(DecisionsQuerySchema(), location="query")
    @blp.response(200, DecisionsSchema)
    def get(self, query: dict[str, Any], club: str, evening: str) -> dict[str, Any]:
        """The evening's log — every decision, who made it and when, hash-chained — and whether the chain holds:
        the audit of the evening (`mends=true`: the mends only)."""
        read = read_evening(club, evening)
        bad = core.first_bad_entry(read.entries)
        items = [decision_view(item) for item in read.entries]
        if query.get("mends") is not None:
            items = [item for item in items if item["mend"] == query["mends"]]
        return {"evening": read.info.id, "version": read.info.version,
                "chain": {"ok": bad is None, "first_bad_seq": bad}, "decisions": items}

    @blp.arguments(NewDecisionSchema())
    @blp.response(201, DecidedSchema)
    @blp.alt_response(409, schema=ProblemSchema, content_type=PROBLEM_JSON,
                      description="If-Match names another version of the evening (version-conflict).")
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Record a director's decision (a scorer token): players arriving or leaving (the rounds not yet started
        are planned again), a mend with its reason — an adjustment, a game voided, a withdrawal, a score awarded —
        or the big screen's leaderboard frozen after a round, or revealed. `signed_by` (optional) names the director
        who decides: the log keeps it in the entry's `by`, the pages and the published results show it.

        `If-Match: "<version>"` (the evening's `version`, its `ETag`) refuses the decision (409
        `version-conflict`) when another was recorded since: a tap sent twice records once."""
        token = writer()
        own_club(token, club)
        decide = DECIDE[payload["type"]]  # one kind of decision (api.evening_kinds), checked by NewDecisionSchema
        read = store().decide(club, evening, lambda state, _outcomes: decide(state, payload),
                              by_whom(token, payload.get("signed_by")), expected_version=expected_version())
        answer = {"decision": decision_view(read.entries[-1]), "evening": evening_view(read)}
        return answer, 201, etag(read.info.version)


def confirm(club: str, evening: str, payload: dict[str, Any], token: TokenInfo,
            table: int | None = None) -> dict[str, Any]:
    """A player's confirmation of a game's result, recorded in the evening's log (``table``: from that table's
    page, which must hold the game)."""
    def decision(state: EveningState, outcomes: Mapping[str, GameOutcome]) -> tuple[str, dict[str, Any]]:
        return core.decide_confirmation(state, payload["game"], payload["player"], outcomes.get(payload["game"]),
                                        table)

    read = store().decide(club, evening, decision, by_whom(token))
    return {"decision": decision_view(read.entries[-1]), "evening": evening_view(read)}


@blp.route("/clubs/<club>/evenings/<evening>/confirmations")
class Confirmations(MethodView):
    @blp.arguments(ConfirmSchema())
    @blp.response(201, DecidedSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int]:
        """A player of the table confirms a game's result as it stands (when the evening asks for confirmation):
        refused before the game has ended (`game-not-ended`), from a player not at the table (`not-at-table`),
        twice for the same result (`already-confirmed`)."""
        token = writer()
        own_club(token, club)
        return confirm(club, evening, payload, token), 201


@blp.route("/clubs/<club>/evenings/<evening>/close")
class Close(MethodView):
    @blp.arguments(CloseSchema(), required=False)  # no body: closed with no reason
    @blp.response(201, DecidedSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int]:
        """Close the evening (a scorer token): nothing more is recorded in it, its tables' tokens stop writing, the
        leaderboard shows every round, and it counts toward its season's ladder. `signed_by` (optional) names the
        director who closes it, kept in the entry's `by`."""
        token = writer()
        own_club(token, club)
        read = store().decide(club, evening, lambda state, _: core.decide_close(state, payload["reason"]),
                              by_whom(token, payload.get("signed_by")), expected_version=expected_version())
        return {"decision": decision_view(read.entries[-1]), "evening": evening_view(read)}, 201
