"""Clubs, their tokens and their members."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.application import clubs
from nj_ledger.store import ROLES, NewToken, PlayerInfo, iso

from .auth import caller, require_admin
from .context import next_page, store
from .dumping import ViewSchema
from .inputs import Blueprint
from .lookalikes import look_alikes
from .schemas import MAX_INT, PageQuerySchema, PageSchema, name_field
from .views import token_view

blp = Blueprint("clubs", __name__, url_prefix="/api/v1", description="Clubs, tokens and members.")

NO_STORE = {"Cache-Control": "no-store"}  # answers that carry a token secret


class NewClubSchema(Schema):
    name = name_field(120, required=True)


class ClubSchema(ViewSchema):
    id = fields.String()
    name = fields.String()
    created_at = fields.String()
    players = fields.Integer(metadata={"description": "Number of members."})
    games = fields.Integer(metadata={"description": "Number of games."})


class CreatedClubSchema(ViewSchema):
    id = fields.String()
    name = fields.String()
    created_at = fields.String()
    token = fields.String(metadata={"description": "A scorer token; shown once, keep it."})


class NewTokenSchema(Schema):
    role = fields.String(load_default="viewer", validate=validate.OneOf(ROLES))
    label = fields.String(load_default="", validate=validate.Length(max=120))


class TokenSchema(ViewSchema):
    id = fields.Integer()
    role = fields.String()
    label = fields.String()
    created_at = fields.String()
    token = fields.String(metadata={"description": "The secret; shown once, keep it."})


class TokenListedSchema(ViewSchema):
    id = fields.Integer()
    role = fields.String()
    label = fields.String()
    created_at = fields.String()
    last_used_at = fields.String(allow_none=True, metadata={"description": "To the minute; null if never used."})
    revoked_at = fields.String(allow_none=True, metadata={"description": "Null while the token is in use."})


class TokenPageSchema(PageSchema):
    tokens = fields.List(fields.Nested(TokenListedSchema))


class NewPlayerSchema(Schema):
    name = name_field(80, required=True)


class PlayerSchema(ViewSchema):
    id = fields.Integer()
    name = fields.String()
    created_at = fields.String()


class PlayerPageSchema(PageSchema):
    players = fields.List(fields.Nested(PlayerSchema))


class SeatedNamesSchema(Schema):
    players = fields.List(name_field(80), required=True, validate=validate.Length(min=1, max=16),
                          metadata={"description": "The names about to be seated, as a new game takes them."})


class LookAlikeSchema(ViewSchema):
    name = fields.String(metadata={"description": "One of the names asked about.", "example": "\u0410na"})
    looks_like = fields.String(metadata={"description": "A member's name, or another name asked about before it, "
                                                        "that it looks like without being it.", "example": "Ana"})


class LookAlikesSchema(ViewSchema):
    look_alikes = fields.List(fields.Nested(LookAlikeSchema))


def _made(token: NewToken) -> dict[str, Any]:
    return {"id": token.id, "role": token.role, "label": token.label, "created_at": iso(token.created_at),
            "token": token.secret}


def player_view(player: PlayerInfo) -> dict[str, Any]:
    return {"id": player.id, "name": player.name, "created_at": iso(player.created_at)}


@blp.route("/clubs")
class Clubs(MethodView):
    @blp.arguments(NewClubSchema())
    @blp.response(201, CreatedClubSchema)
    def post(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Create a club and its first scorer token (admin token)."""
        require_admin()
        club, token = clubs.create_club(store(), payload["name"])
        body = {"id": club.id, "name": club.name, "created_at": iso(club.created_at), "token": token.secret}
        return body, 201, NO_STORE


@blp.route("/clubs/<club>")
class Club(MethodView):
    @blp.response(200, ClubSchema)
    def get(self, club: str) -> dict[str, Any]:
        """A club, with how many members and games it has."""
        info, counts = clubs.club_with_counts(store(), club)
        return {"id": info.id, "name": info.name, "created_at": iso(info.created_at), **counts}


@blp.route("/clubs/<club>/tokens")
class Tokens(MethodView):
    @blp.arguments(PageQuerySchema(), location="query")
    @blp.response(200, TokenPageSchema)
    def get(self, page: dict[str, Any], club: str) -> dict[str, Any]:
        """The club's tokens, oldest first, revoked ones too: id, label, role, when made, last used (to the minute)
        and revoked. Never a secret."""
        found = clubs.tokens_page(store(), club, page["limit"], page["offset"])
        return {
            "tokens": [token_view(token) for token in found.items],
            "next": next_page("clubs.Tokens", found.more, limit=page["limit"], offset=page["offset"] + page["limit"]),
        }

    @blp.arguments(NewTokenSchema(), required=False)  # no body: a viewer token with no label
    @blp.response(201, TokenSchema)
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """A new token for the club: role `scorer` (read and write), `viewer` (read only) or `director` (what a
        scorer may do, and the decisions only the club's director takes; made by a director only: 403
        `forbidden` for a scorer, or on the server with `nj-ledger tokens create CLUB --role director`)."""
        made = clubs.new_token(store(), club, payload["role"], payload["label"], by=caller().role)
        return _made(made), 201, NO_STORE


TOKEN_ID = f"<int(max={MAX_INT}):token>"


@blp.route(f"/clubs/<club>/tokens/{TOKEN_ID}")
class ClubToken(MethodView):
    @blp.response(204)
    @blp.alt_response(409, description="The club's last scorer token (last-scorer-token): make another first.")
    def delete(self, club: str, token: int) -> Response:
        """Revoke a token: from now on it is refused with 401 by every worker, and the streams it opened end
        within a second. Revoking it again changes nothing; the club's last token that may write (a scorer's or
        the director's) is kept (409 `last-scorer-token`); a director's token is revoked by a director only (403
        `forbidden`)."""
        clubs.revoke_token(store(), club, token, by=caller().role)
        return Response(status=204)


@blp.route(f"/clubs/<club>/tokens/{TOKEN_ID}/rotate")
class RotateToken(MethodView):
    @blp.response(201, TokenSchema)
    def post(self, club: str, token: int) -> tuple[dict[str, Any], int, dict[str, str]]:
        """A new secret for a token: a new token with its role and label (shown once), the old one revoked; a
        director's token is rotated by a director only (403 `forbidden`)."""
        return _made(clubs.rotate_token(store(), club, token, by=caller().role)), 201, NO_STORE


@blp.route("/clubs/<club>/players")
class Players(MethodView):
    @blp.arguments(PageQuerySchema(), location="query")
    @blp.response(200, PlayerPageSchema)
    def get(self, page: dict[str, Any], club: str) -> dict[str, Any]:
        """The club's members, by name: alphabetically whatever the accents and the case ("Élise" before "Marcel")."""
        found = clubs.players_page(store(), club, page["limit"], page["offset"])
        return {
            "players": [player_view(p) for p in found.items],
            "next": next_page("clubs.Players", found.more, limit=page["limit"], offset=page["offset"] + page["limit"]),
        }

    @blp.arguments(NewPlayerSchema())
    @blp.response(201, PlayerSchema)
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int]:
        """Register a member (409 `player-exists` when the name is taken, whatever its case)."""
        return player_view(clubs.add_player(store(), club, payload["name"])), 201


@blp.route("/clubs/<club>/players/look-alikes")
class LookAlikes(MethodView):
    reads_only = ("POST",)  # asking writes nothing: a viewer may (api.auth)

    @blp.arguments(SeatedNamesSchema())
    @blp.response(200, LookAlikesSchema)
    def post(self, payload: dict[str, Any], club: str) -> dict[str, Any]:
        """Which of these names look like a member's, or like another of them, without being the same name
        ("\u0410na", its first letter Cyrillic, and "Ana"): such a name is allowed, and the page that starts a game
        asks "the same person?" before it does. Names are compared as a new game keeps them (composed, NFC)."""
        names = [name.strip() for name in payload["players"]]
        return {"look_alikes": look_alikes(names, clubs.member_names(store(), club))}

