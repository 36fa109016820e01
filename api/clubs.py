"""Clubs, their tokens and their members."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from nj_ledger.store import ROLES, PlayerInfo, iso

from .auth import own_club, reader, require_admin, writer
from .context import next_page, store
from .i18n import N_
from .schemas import PageQuerySchema, PageSchema

blp = Blueprint("clubs", __name__, url_prefix="/api/v1", description="Clubs, tokens and members.")

NOT_BLANK = validate.Regexp(r"[\s\S]*\S", error=N_("Must not be blank."))
NAME = [validate.Length(min=1, max=120), NOT_BLANK]
NO_STORE = {"Cache-Control": "no-store"}  # answers that carry a token secret


class NewClubSchema(Schema):
    name = fields.String(required=True, validate=NAME)


class ClubSchema(Schema):
    id = fields.String()
    name = fields.String()
    created_at = fields.String()
    players = fields.Integer(metadata={"description": "Number of members."})
    games = fields.Integer(metadata={"description": "Number of games."})


class CreatedClubSchema(Schema):
    id = fields.String()
    name = fields.String()
    created_at = fields.String()
    token = fields.String(metadata={"description": "A scorer token; shown once, keep it."})


class NewTokenSchema(Schema):
    role = fields.String(load_default="viewer", validate=validate.OneOf(ROLES))
    label = fields.String(load_default="", validate=validate.Length(max=120))


class TokenSchema(Schema):
    id = fields.Integer()
    role = fields.String()
    label = fields.String()
    created_at = fields.String()
    token = fields.String(metadata={"description": "The secret; shown once, keep it."})


class NewPlayerSchema(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=80), NOT_BLANK])


class PlayerSchema(Schema):
    id = fields.Integer()
    name = fields.String()
    created_at = fields.String()


class PlayerPageSchema(PageSchema):
    players = fields.List(fields.Nested(PlayerSchema))


def _player(player: PlayerInfo) -> dict[str, Any]:
    return {"id": player.id, "name": player.name, "created_at": iso(player.created_at)}


@blp.route("/clubs")
class Clubs(MethodView):
    @blp.arguments(NewClubSchema())
    @blp.response(201, CreatedClubSchema)
    def post(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Create a club and its first scorer token (admin token)."""
        require_admin()
        club, token = store().create_club(payload["name"])
        body = {"id": club.id, "name": club.name, "created_at": iso(club.created_at), "token": token.secret}
        return body, 201, NO_STORE


@blp.route("/clubs/<club>")
class Club(MethodView):
    @blp.response(200, ClubSchema)
    def get(self, club: str) -> dict[str, Any]:
        """A club, with how many members and games it has."""
        own_club(reader(), club)
        info = store().club(club)
        return {"id": info.id, "name": info.name, "created_at": iso(info.created_at), **store().club_counts(club)}


@blp.route("/clubs/<club>/tokens")
class Tokens(MethodView):
    @blp.arguments(NewTokenSchema())
    @blp.response(201, TokenSchema)
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """A new token for the club: role `scorer` (read and write) or `viewer` (read only)."""
        own_club(writer(), club)
        token = store().create_token(club, payload["role"], payload["label"])
        body = {"id": token.id, "role": token.role, "label": token.label, "created_at": iso(token.created_at),
                "token": token.secret}
        return body, 201, NO_STORE


@blp.route("/clubs/<club>/players")
class Players(MethodView):
    @blp.arguments(PageQuerySchema(), location="query")
    @blp.response(200, PlayerPageSchema)
    def get(self, page: dict[str, Any], club: str) -> dict[str, Any]:
        """The club's members, by name."""
        own_club(reader(), club)
        found = store().players(club, page["limit"] + 1, page["offset"])
        more = len(found) > page["limit"]
        return {
            "players": [_player(p) for p in found[: page["limit"]]],
            "next": next_page("clubs.Players", more, limit=page["limit"], offset=page["offset"] + page["limit"]),
        }

    @blp.arguments(NewPlayerSchema())
    @blp.response(201, PlayerSchema)
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int]:
        """Register a member (409 `player-exists` when the name is taken, whatever its case)."""
        own_club(writer(), club)
        return _player(store().add_player(club, payload["name"])), 201
