"""Shares: read-only links to one game (its replay and audit) or to the club's scoreboard, opened without signing in.

One collection under the club, ``/clubs/{club}/shares``, holds both kinds, the
way ``/clubs/{club}/tokens`` holds the club's tokens: a share is a credential of
the club, listed and revoked in one place, and the club in the path is checked
before anything else like every club route (another club's token finds
nothing). The body names what is shared: ``{"game": id}`` or
``{"scoreboard": true}``.

The answer gives the secret once, and ``url``: the page that opens it, the
secret in the URL's fragment (``/games/{game}/replay#share=…``). A browser never
sends a fragment to a server, so the secret reaches no access log, no proxy and
no Referer; the page's script reads it there and sends it as
``Authorization: Bearer``. What a share reaches is enforced in :mod:`api.auth`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from flask import Response, url_for
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from nj_ledger.store import RESOURCES, NewShare, ShareRecord, iso

from .context import next_page, store
from .dumping import ViewSchema
from .i18n import N_
from .inputs import Blueprint
from .schemas import MAX_INT, PageQuerySchema, PageSchema

blp = Blueprint("shares", __name__, url_prefix="/api/v1",
                description="Read-only links to one game or to the club's scoreboard.")

NO_STORE = {"Cache-Control": "no-store"}  # answers that carry a share's secret
ONE_RESOURCE = N_("Name one thing to share: a game (game: its id), the scoreboard (scoreboard: true) or an evening's "
                  "results (evening: its id).")
SHARE_FRAGMENT = "share"  # the page reads the secret from #share=…
EVENING_RESULTS = "/clubs/{club}/evenings/{evening}/results"  # the published results page of an evening


class NewShareSchema(Schema):
    game = fields.String(validate=validate.Length(min=1, max=64),
                         metadata={"description": "The game to share (its replay, audit, events and export)."})
    scoreboard = fields.Boolean(metadata={"description": "true: share the club's scoreboard (any period, CSV too)."})
    evening = fields.String(validate=validate.Length(min=1, max=64), metadata={
        "description": "The evening whose results to share (the evening, its rounds, ranking and leaderboard)."})
    label = fields.String(load_default="", validate=validate.Length(max=120),
                          metadata={"description": "Who the link is for, as the club lists it."})
    # one_resource, as the OpenAPI document says it (api.schemas.ExactDocument)
    OPENAPI: ClassVar[dict[str, Any]] = {"oneOf": [{"required": ["game"]}, {"required": ["evening"]},
                         {"required": ["scoreboard"], "properties": {"scoreboard": {"enum": [True]}}}]}

    @validates_schema
    def one_resource(self, data: dict[str, Any], **_: Any) -> None:
        if ("game" in data) + bool(data.get("scoreboard")) + ("evening" in data) != 1:
            raise ValidationError(ONE_RESOURCE)


class ShareListedSchema(ViewSchema):
    id = fields.Integer()
    resource = fields.String(metadata={"description": "game, scoreboard or evening."})
    game = fields.String(allow_none=True, metadata={"description": "The shared game; null for the scoreboard."})
    evening = fields.String(allow_none=True, metadata={"description": "The shared evening; null for the others."})
    label = fields.String()
    created_at = fields.String()
    last_used_at = fields.String(allow_none=True, metadata={"description": "To the minute; null if never opened."})
    revoked_at = fields.String(allow_none=True, metadata={"description": "Null while the link works."})
    screen = fields.Boolean(metadata={
        "description": "true: an evening's big-screen link (POST /clubs/{club}/evenings/{evening}/screen/links), which "
                       "reads the tables' codes and so lets whoever has it join the evening's tables while it is "
                       "open; false: every other share (a results link reads no code)."})


class ShareSchema(ViewSchema):
    id = fields.Integer()
    resource = fields.String(metadata={"description": "game, scoreboard or evening."})
    game = fields.String(allow_none=True)
    evening = fields.String(allow_none=True)
    label = fields.String()
    created_at = fields.String()
    secret = fields.String(metadata={"description": "The share's secret, a bearer token for what it shares; shown "
                                                    "once, keep it."})
    screen = fields.Boolean(metadata={"description": "Always false here: only the big screen's link is one "
                                                    "(`ShareListed.screen`)."})
    url = fields.String(metadata={"description": "The page that opens the share on this server, the secret in the "
                                                 "fragment: /games/{game}/replay#share=…, "
                                                 "/clubs/{club}/scoreboard#share=… or "
                                                 "/clubs/{club}/evenings/{evening}/results#share=…"})


class ShareQuerySchema(PageQuerySchema):
    game = fields.String(validate=validate.Length(min=1, max=64), metadata={"description": "Shares of this game."})
    evening = fields.String(validate=validate.Length(min=1, max=64),
                            metadata={"description": "Shares of this evening."})
    resource = fields.String(validate=validate.OneOf(RESOURCES),
                             metadata={"description": "game, scoreboard or evening."})
    in_use = fields.Boolean(metadata={"description": "true: the links that work; false: the revoked ones."})


class SharePageSchema(PageSchema):
    shares = fields.List(fields.Nested(ShareListedSchema))


def _when(moment: datetime | None) -> str | None:
    return None if moment is None else iso(moment)


def _listed(share: ShareRecord) -> dict[str, Any]:
    return {"id": share.id, "resource": share.resource, "game": share.game_id, "evening": share.evening_id,
            "label": share.label, "created_at": iso(share.created_at), "last_used_at": _when(share.last_used_at),
            "revoked_at": _when(share.revoked_at), "screen": share.screen}


def share_url(share: NewShare) -> str:
    """The page that opens ``share``, its secret in the fragment (never in the path or the query)."""
    if share.evening_id is not None:
        page = EVENING_RESULTS.format(club=share.club_id, evening=share.evening_id)
    else:
        page = (url_for("pages.replay", game=share.game_id) if share.game_id is not None
                else url_for("pages.scoreboard", club=share.club_id))
    return f"{page}#{SHARE_FRAGMENT}={share.secret}"


def _made(share: NewShare) -> dict[str, Any]:
    return {"id": share.id, "resource": share.resource, "game": share.game_id, "evening": share.evening_id,
            "label": share.label, "created_at": iso(share.created_at), "secret": share.secret, "url": share_url(share),
            "screen": share.screen}


@blp.route("/clubs/<club>/shares")
class Shares(MethodView):
    @blp.arguments(ShareQuerySchema(), location="query")
    @blp.response(200, SharePageSchema)
    def get(self, query: dict[str, Any], club: str) -> dict[str, Any]:
        """The club's shares, oldest first, revoked ones too (`in_use` to choose): what each shares, its label,
        when made, last opened (to the minute) and revoked. Never a secret."""
        found = store().shares.shares(club, game_id=query.get("game"), resource=query.get("resource"),
                               in_use=query.get("in_use"), limit=query["limit"] + 1, offset=query["offset"],
                               evening_id=query.get("evening"))
        more = len(found) > query["limit"]
        return {
            "shares": [_listed(share) for share in found[: query["limit"]]],
            "next": next_page("shares.Shares", more, limit=query["limit"], offset=query["offset"] + query["limit"]),
        }

    @blp.arguments(NewShareSchema())
    @blp.response(201, ShareSchema)
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Share one game, the club's scoreboard or an evening's results, read only, with anyone (a scorer token).

        `{"game": id}` shares the game's state, events, replays, audit and export;
        `{"scoreboard": true}` the club's scoreboard over any period, and its CSV;
        `{"evening": id}` the evening, its rounds, ranking and leaderboard (and their CSV).
        The answer holds the share's secret (shown once) and `url`, the page that
        opens it without signing in, the secret in the URL's fragment so that it
        never reaches a server's log. The secret is a bearer token that reaches
        that resource only: every other route answers it 404 (403 for a write).
        A game or an evening of another club is 404."""
        share = store().shares.create_share(club, payload.get("game"), payload["label"],
                                            evening_id=payload.get("evening"))
        return _made(share), 201, NO_STORE


SHARE_ID = f"<int(max={MAX_INT}):share>"


@blp.route(f"/clubs/<club>/shares/{SHARE_ID}")
class ClubShare(MethodView):
    @blp.response(204)
    def delete(self, club: str, share: int) -> Response:
        """Revoke a share: from now on its secret is refused with 401 by every worker, and the streams it opened
        end within a second. Revoking it again changes nothing."""
        store().shares.revoke_share(club, share)
        return Response(status=204)
