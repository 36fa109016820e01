"""Exchange: a game as a JSON game document, out (export) and in (import)."""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from nj_ledger.exchange import FORMAT, VERSION
from nj_ledger.store.documents import export_document, import_document

from .auth import own_club, reader, writer
from .context import etag, game_view, store
from .problems import Problem
from .schemas import GameStateSchema, RecordSchema

blp = Blueprint("exchange", __name__, url_prefix="/api/v1", description="Export and import whole games.")

FORMATS = ("json", "njn")


class ExportQuerySchema(Schema):
    format = fields.String(load_default="json", validate=validate.OneOf(FORMATS))


class GameDocumentSchema(Schema):
    """A game document (``nj-ledger/game`` version 1): what a scorer recorded, in order."""

    format = fields.String(required=True, metadata={"example": FORMAT})
    version = fields.Integer(required=True, strict=True, metadata={"example": VERSION})
    title = fields.String()
    date = fields.String(metadata={"example": "2026-03-01"})
    table = fields.String()
    notes = fields.String()
    players = fields.List(fields.String(), required=True)
    rules = fields.Raw(required=True, metadata={"example": "classic"})
    starting_chips = fields.Integer(required=True, strict=True)
    dealer = fields.Integer(strict=True, allow_none=True)
    actions = fields.List(fields.Dict(), required=True, metadata={"description": "Table actions in order."})
    events = fields.List(fields.Nested(RecordSchema), metadata={"description": "Stored records; ignored on import."})


@blp.route("/games/<game>/export")
class Export(MethodView):
    @blp.arguments(ExportQuerySchema, location="query")
    @blp.response(200, GameDocumentSchema)
    def get(self, query: dict[str, Any], game: str) -> dict[str, Any]:
        """The game as a document: its table actions in order, and its stored records."""
        token = reader()
        store().game(token.club_id, game)  # 404 before 422: the game must be the caller's
        if query["format"] != "json":
            raise Problem(422, "unsupported-format",
                          f"This server does not write {query['format']} records yet; use format=json.")
        return export_document(store(), token.club_id, game)


@blp.route("/clubs/<club>/imports")
class Imports(MethodView):
    @blp.arguments(GameDocumentSchema(unknown="raise"))
    @blp.response(201, GameStateSchema)
    def post(self, document: dict[str, Any], club: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Import a game document: its actions are executed anew (validated and hash-chained) into a new game."""
        own_club(writer(), club)
        created = import_document(store(), club, document)
        headers = {**etag(created.game.version), "Location": url_for("games.Game", game=created.game.id)}
        return game_view(created.game, created.state), 201, headers
