"""Replay of a deal, step by step, and the audit of a whole game."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from nj_ledger.reducer import fold
from nj_ledger.state import state_view
from nj_ledger.store.checkpoints import audit_game
from nj_ledger.store.log import event_of

from .auth import reader
from .context import store
from .i18n import translate_audit
from .problems import Problem, json_response
from .schemas import MAX_INT, GameStateSchema, RecordSchema

blp = Blueprint("replay", __name__, url_prefix="/api/v1", description="Replay and audit.")


class ReplayQuerySchema(Schema):
    at = fields.Integer(validate=validate.Range(0, MAX_INT),
                        metadata={"description": "Only the step of this seq."})


class StepSchema(Schema):
    seq = fields.Integer(metadata={"description": "The event's seq (the first step: the seq before the deal)."})
    event = fields.Nested(RecordSchema, allow_none=True, metadata={"description": "Null for the deal's start."})
    state = fields.Nested(GameStateSchema, metadata={"description": "The state after the event."})


class ReplaySchema(Schema):
    game = fields.String()
    deal = fields.Integer()
    steps = fields.List(fields.Nested(StepSchema))


class FindingSchema(Schema):
    severity = fields.String(validate=validate.OneOf(["info", "warning", "error"]))
    seq = fields.Integer(allow_none=True)
    code = fields.String()
    message = fields.String()


class AuditSchema(Schema):
    ok = fields.Boolean(metadata={"description": "False when any part of the audit fails."})
    events = fields.Integer()
    transfers = fields.List(fields.Dict())
    totals = fields.Dict(keys=fields.String(), values=fields.Dict())
    conservation = fields.Dict()
    chain = fields.Dict()
    checkpoints = fields.Dict()
    recomputation = fields.Dict()
    corrections = fields.List(fields.Dict())
    findings = fields.List(fields.Nested(FindingSchema))


@blp.route(f"/games/<game>/deals/<int(max={MAX_INT}):number>/replay")
class Replay(MethodView):
    @blp.arguments(ReplayQuerySchema(), location="query")
    @blp.response(200, ReplaySchema)
    def get(self, query: dict[str, Any], game: str, number: int) -> Response:
        """Every step of deal `number`: each event and the state after it (`?at=seq`: one step).

        The first step is the state at the deal's start (`event` null). Only the
        deal's own segment of the log is replayed on top of that state.
        """
        token = reader()
        segment = store().deal_segment(token.club_id, game, number)
        if segment is None:
            raise Problem(404, "not-found", "Game {game!r} has no deal {number}.",
                          params={"game": game, "number": number})
        state, records = segment
        at = query.get("at")
        first_seq = records[0]["seq"] - 1
        if at is not None and not first_seq <= at <= records[-1]["seq"]:
            raise Problem(404, "not-found", "Deal {number} runs from event {first} to {last}, not {at}.",
                          params={"number": number, "first": first_seq, "last": records[-1]["seq"], "at": at})
        view = {"id": game, "club": token.club_id}
        steps = []
        if at is None or at == first_seq:
            steps.append({"seq": first_seq, "event": None, "state": {**view, **state_view(state)}})
        for record in records:
            fold(state, event_of(record))  # the state here is this request's own: folding in place is safe
            if at is None or at == record["seq"]:
                steps.append({"seq": record["seq"], "event": record, "state": {**view, **state_view(state)}})
        # Written directly (as the append's answer is): the schema documents it, dumping it would double the time.
        return json_response({"game": game, "deal": number, "steps": steps}, 200)


@blp.route("/games/<game>/audit")
class Audit(MethodView):
    @blp.response(200, AuditSchema)
    def get(self, game: str) -> dict[str, Any]:
        """Transfers, totals, conservation, hash chain, signed checkpoints, re-computation and findings."""
        token = reader()
        return translate_audit(audit_game(store(), token.club_id, game))
