"""An evening's log of decisions: reading it (and whether its hash chain and its signed checkpoints hold, held to
the receipts a member kept when they are sent: :mod:`api.evening_audit`), recording a director's decision, a
player confirming a game's result, and the evening closed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from nj_ledger import evenings as core
from nj_ledger.application import evenings
from nj_ledger.store import EveningRead

from .auth import caller
from .context import etag, store
from .dumping import ViewSchema
from .evening_audit import RECEIPT, EveningAuditSchema, EveningReceiptsBodySchema, EveningReceiptSchema, audited
from .evening_view import NAME, ROUND_RANGE, SIGNED_BY, EveningSchema, blp, by_whom, evening_view
from .games import expected_version
from .i18n import N_
from .problems import PROBLEM_JSON
from .receipts import ReceiptsReportSchema
from .schemas import ProblemSchema, name_field

NOT_BLANK = validate.Regexp(r"[\s\S]*\S", error=N_("Must not be blank."))
REASON = fields.String(validate=[validate.Length(min=1, max=500), NOT_BLANK])
SCORE_RANGE = validate.Range(-10**9, 10**9)


class DecisionSchema(ViewSchema):
    seq = fields.Integer()
    type = fields.String()
    data = fields.Dict()
    by = fields.Dict(metadata={"description": "Who made it: the token's role, id and label (a table: its number), "
                                              "and `signed_by`, the name the director signed it with, when given."})
    recorded_at = fields.String()
    hash = fields.String()
    mend = fields.Boolean(metadata={"description": "An adjustment, a game voided, a withdrawal or a score awarded."})


class ChainSchema(ViewSchema):
    ok = fields.Boolean()
    first_bad_seq = fields.Integer(allow_none=True)


class DecisionsSchema(EveningAuditSchema):
    evening = fields.String()
    version = fields.Integer()
    chain = fields.Nested(ChainSchema, metadata={"description": "The hash chain of the decisions."})
    decisions = fields.List(fields.Nested(DecisionSchema))


class ReceiptsDecisionsSchema(DecisionsSchema):
    receipts = fields.Nested(ReceiptsReportSchema)


class DecisionsQuerySchema(Schema):
    mends = fields.Boolean(metadata={"description": "true: the mends only (the audit of the director's changes)."})


class NewDecisionSchema(Schema):
    type = fields.String(required=True, validate=validate.OneOf(core.DECISION_KINDS), metadata={
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

    # What each type needs (the core's kinds: nj_ledger.evenings.kinds), checked by needed() and said in the
    # OpenAPI document (api.schemas.ExactDocument).
    NEEDED: ClassVar[dict[str, tuple[str, ...]]] = core.NEEDED
    OPENAPI: ClassVar[dict[str, Any]] = {"oneOf": [
        {"properties": {"type": {"enum": [kind]}}, "required": ["type", *needed]} for kind, needed in NEEDED.items()]}

    @validates_schema
    def needed(self, data: dict[str, Any], **_: Any) -> None:
        for name in self.NEEDED.get(data.get("type", ""), ()):
            if name not in data:
                raise ValidationError(N_("Missing data for required field."), name)


class DecidedSchema(ViewSchema):
    decision = fields.Nested(DecisionSchema)
    evening = fields.Nested(EveningSchema)
    receipt = fields.Nested(EveningReceiptSchema, metadata={"description": RECEIPT})


class ConfirmSchema(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    player = name_field(80, required=True, metadata={
        "description": "The player of the table who confirms the result."})


class CloseSchema(Schema):
    reason = fields.String(load_default="", validate=validate.Length(max=500))
    signed_by = name_field(80, metadata={"description": SIGNED_BY})


def decision_view(item: Mapping[str, Any]) -> dict[str, Any]:
    """A decision as the log shows it, and whether it is a mend."""
    return {**item, "mend": item["type"] in core.MENDS}


def decisions_view(club: str, evening: str, mends: bool | None = None,
                   receipts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The evening's log and its audit (:func:`api.evening_audit.audited`)."""
    read, audit = audited(club, evening, receipts)
    items = [decision_view(item) for item in read.entries]
    if mends is not None:
        items = [item for item in items if item["mend"] == mends]
    return {"evening": read.info.id, "version": read.info.version, **audit, "decisions": items}


def decided(read: EveningRead) -> dict[str, Any]:
    """The answer to a decision recorded: it, the evening as it stands and the receipt of its new head."""
    return {"decision": decision_view(read.entries[-1]), "evening": evening_view(read), "receipt": read.receipt}


@blp.route("/clubs/<club>/evenings/<evening>/decisions")
class Decisions(MethodView):
    @blp.arguments(DecisionsQuerySchema(), location="query")
    @blp.response(200, DecisionsSchema)
    def get(self, query: dict[str, Any], club: str, evening: str) -> dict[str, Any]:
        """The evening's log — every decision, who made it and when, hash-chained and signed — and whether the
        chain holds (`chain`) and the log matches the checkpoints the ledger signed of its head at each decision
        (`checkpoints`): the audit of the evening (`mends=true`: the mends only). A decision rewritten and every
        hash after it recomputed passes the chain but not the checkpoints: `first_bad_seq` names it, with a
        `checkpoint-mismatch` finding. An evening recorded before evenings were signed reads as not signed
        (`checkpoints.signed` false, a `not-signed` finding), not as altered."""
        return decisions_view(club, evening, query.get("mends"))

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
        decision = core.parse_decision(payload)  # a value of its kind (nj_ledger.evenings.kinds)
        read = evenings.decide(store(), club, evening, decision, by_whom(caller(), payload.get("signed_by")),
                               expected_version=expected_version())
        return decided(read), 201, etag(read.info.version)


@blp.route("/clubs/<club>/evenings/<evening>/confirmations")
class Confirmations(MethodView):
    @blp.arguments(ConfirmSchema())
    @blp.response(201, DecidedSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int]:
        """A player of the table confirms a game's result as it stands (when the evening asks for confirmation):
        refused before the game has ended (`game-not-ended`), from a player not at the table (`not-at-table`),
        twice for the same result (`already-confirmed`)."""
        read = evenings.confirm(store(), club, evening, payload["game"], payload["player"], by_whom(caller()))
        return decided(read), 201


@blp.route("/clubs/<club>/evenings/<evening>/close")
class Close(MethodView):
    @blp.arguments(CloseSchema(), required=False)  # no body: closed with no reason
    @blp.response(201, DecidedSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int]:
        """Close the evening (a scorer token): nothing more is recorded in it, its tables' tokens stop writing, the
        leaderboard shows every round, and it counts toward its season's ladder. `signed_by` (optional) names the
        director who closes it, kept in the entry's `by`."""
        read = evenings.close(store(), club, evening, payload["reason"], by_whom(caller(), payload.get("signed_by")),
                              expected_version=expected_version())
        return decided(read), 201


@blp.route("/clubs/<club>/evenings/<evening>/audit")
class EveningAudit(MethodView):
    reads_only = ("POST",)  # checking receipts writes nothing: a viewer may (api.auth)

    @blp.arguments(EveningReceiptsBodySchema())
    @blp.response(200, ReceiptsDecisionsSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> dict[str, Any]:
        """The audit of `GET …/decisions`, holding the log to the receipts of the evening a member kept (the
        `receipt` of a decision's answer, or of `GET …/receipt`): `receipts` reports each receipt past the log's
        end (the log was cut back), naming another head at its version (rewritten), or not validly signed, with
        the first decision in doubt. Receipts of other evenings are skipped. A viewer may ask."""
        return decisions_view(club, evening, receipts=payload["receipts"])
