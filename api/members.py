"""What the club holds about one member, given whole when they ask for it (``GET /clubs/{club}/members/{member}/
data``): a scorer's token only, as personal data; and a member's erasure (``POST /clubs/{club}/members/{member}/
erasure``), decided by the club's director, with the club's erasures (``GET /clubs/{club}/erasures``). Their routes
join the scoreboards' blueprint (:mod:`api.scoreboards`), beside the member's figures."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.application.members import erase_member, erasures, member_data

from .audits import BUSY, RETRY_AFTER, whole_log_read
from .auth import caller
from .clubs import PlayerSchema, player_view
from .context import store
from .dumping import ViewSchema
from .erasure_schemas import ErasureSchema, ErasuresSchema, erasure_view
from .evening_ladder import HistoryNightSchema
from .problems import PROBLEM_JSON
from .schemas import ProblemSchema, Visible
from .scoreboards import FiguresSchema, blp, figures_view


class MemberGameSchema(ViewSchema):
    game = fields.String()
    date = fields.String()
    title = fields.String(allow_none=True)
    status = fields.String()
    seat = fields.Integer()
    players = fields.List(fields.String(), metadata={"description": "Every seat's name, in seat order."})
    rank = fields.Integer(allow_none=True, metadata={"description": "Null until the game has ended."})
    chips = fields.Integer(allow_none=True, metadata={"description": "At the end of the game; null before."})
    net = fields.Integer(allow_none=True)


class NamedInSchema(ViewSchema):
    evening = fields.String()
    seq = fields.Integer(metadata={"description": "The decision's place in the evening's log."})
    type = fields.String()
    recorded_at = fields.String()
    data = fields.Dict(metadata={"description": "The decision as it was recorded (what it says of the member)."})


class MemberDataSchema(ViewSchema):
    club = fields.String()
    member = fields.Nested(PlayerSchema, metadata={"description": "The member as the club registered them."})
    figures = fields.Nested(FiguresSchema, metadata={"description": "Over every ended game."})
    games = fields.List(fields.Nested(MemberGameSchema), metadata={
        "description": "Every game the member sat in, ended or not, oldest first."})
    evenings = fields.List(fields.Nested(HistoryNightSchema), metadata={"description": "Newest first."})
    named_in = fields.List(fields.Nested(NamedInSchema), metadata={
        "description": "Every decision of an evening whose data names the member (presence, rounds, mends…)."})


@blp.route("/clubs/<club>/members/<member>/data")
class MemberData(MethodView):
    for_scorers = ("GET",)  # personal data: a scorer's token, not a viewer's (api.auth)

    @blp.response(200, MemberDataSchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=RETRY_AFTER, description=BUSY)
    def get(self, club: str, member: str) -> dict[str, Any]:
        """Everything the club holds about one member (by name, any case, or id), for the member who asks for
        it: who they are to the club, every game they sat in with its result once ended, their figures, their
        evenings, and every evening decision that names them. A scorer's or the director's token only (403 for a
        viewer's)."""
        with whole_log_read():  # every evening of the club is read: a few such reads at once, as audits
            found = member_data(store(), club, member)
        return {"club": club, "member": player_view(found.member),
                "figures": figures_view(found.figures), "games": found.games, "evenings": found.evenings,
                "named_in": found.named_in}


class ErasureBodySchema(Schema):
    reason = fields.String(required=True, validate=[validate.Length(max=500), Visible()], metadata={
        "description": "Why the member is erased (their request, the club's rule…): kept in the club's audit. "
                       "Write no one's name here: the reason is kept as written."})


@blp.route("/clubs/<club>/members/<member>/erasure")
class MemberErasure(MethodView):
    @blp.arguments(ErasureBodySchema())
    @blp.response(201, ErasureSchema)
    def post(self, payload: dict[str, Any], club: str, member: str) -> tuple[dict[str, Any], int]:
        """Erase a member (by name, any case, or id), for a reason: their name leaves every answer, page, export,
        share, stream, scoreboard and CSV for a stable pseudonym ("Joueur 3"); their games, chips and ratings
        stay, so every other member's figures are what they were. Every log that named them is redacted, each
        record keeping its hash: the audits verify the chains through the erasure, which is recorded (who, when,
        why, what it redacted), chained and signed, and holds no name. The club's director's token only (403
        `forbidden`); 404 for an unknown member; 409 `already-erased` for a member erased before,
        `member-ambiguous` for a text that is one member's name and another's id, `erasure-refused` where a game's
        facts or another seat's name would change, `log-damaged` where a log to redact does not verify."""
        token = caller()
        info = erase_member(store(), club, member, payload["reason"], {"role": token.role, "token": token.id})
        return erasure_view(info), 201


@blp.route("/clubs/<club>/erasures")
class Erasures(MethodView):
    for_scorers = ("GET",)

    @blp.response(200, ErasuresSchema)
    def get(self, club: str) -> dict[str, Any]:
        """The club's erasures of members, oldest first, and their chain's check: who was erased (their id and
        pseudonym), why, by which token, when, and how many records each redacted. A scorer's or the director's
        token."""
        found, chain = erasures(store(), club)
        return {"erasures": [erasure_view(info) for info in found], "chain": chain}
