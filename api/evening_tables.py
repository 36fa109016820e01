"""An evening's tables: another scorer link for a table (its token, its QR code), and a table read by its code on
the table's phone — its game of the round, who sits there next, its games — where a player confirms a result.

A table's ``code`` is not a secret (it names the table); its tokens reach that table's games only (role
``table``, enforced in :mod:`api.auth`): the scorer link ``/tables/{code}#token=…`` carries one in its fragment,
and its QR code is made by ``segno``.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import segno
from flask.views import MethodView
from marshmallow import fields

from nj_ledger import evenings as core
from nj_ledger.application import evenings
from nj_ledger.store import EveningRead, NewTableLink

from .addresses import link_base
from .auth import caller
from .context import store
from .dumping import ViewSchema
from .evening_decisions import ConfirmSchema
from .evening_view import NO_STORE, TOKEN_FRAGMENT, blp, by_whom, table_page
from .table_moves import MovesSchema, moves


class TableLinkSchema(ViewSchema):
    table = fields.Integer()
    code = fields.String()
    secret = fields.String(metadata={"description": "The table token: reaches this table's games only. Shown "
                                                    "once."})
    url = fields.String(metadata={"description": "The scorer link: the table's page, the token in the fragment."})
    qr_svg = fields.String(metadata={"description": "The link's QR code, an SVG document."})
    qr_png = fields.String(metadata={"description": "The link's QR code, a PNG image in base64."})


def _qr(url: str) -> dict[str, str]:
    code = segno.make(url, error="m")
    svg, png = io.BytesIO(), io.BytesIO()
    code.save(svg, kind="svg", scale=4, border=2, xmldecl=False)
    code.save(png, kind="png", scale=6, border=2)
    return {"qr_svg": svg.getvalue().decode(), "qr_png": base64.b64encode(png.getvalue()).decode()}


def link_view(link: NewTableLink) -> dict[str, Any]:
    url = f"{link_base()}{table_page(link.code)}#{TOKEN_FRAGMENT}={link.secret}"  # the address phones open
    return {"table": link.table, "code": link.code, "secret": link.secret, "url": url, **_qr(url)}


@blp.route("/clubs/<club>/evenings/<evening>/tables/<int(max=66):table>/links")
class TableLinks(MethodView):
    @blp.response(201, TableLinkSchema)
    def post(self, club: str, evening: str, table: int) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Another scorer link for a table, with its QR code (a scorer token): a new token, shown once; the
        table's earlier tokens keep working until the evening closes."""
        return link_view(evenings.table_link(store(), club, evening, table)), 201, NO_STORE


class TableGameSchema(ViewSchema):
    round = fields.Integer()
    game = fields.String()
    players = fields.List(fields.String())
    mark = fields.String()
    status = fields.String(allow_none=True)
    confirmed_by = fields.String(allow_none=True)


class TableViewSchema(ViewSchema):
    evening = fields.String()
    club = fields.String()
    name = fields.String()
    status = fields.String()
    table = fields.Integer()
    code = fields.String()
    confirmation = fields.Boolean()
    current_round = fields.Integer()
    current = fields.Nested(TableGameSchema, allow_none=True, metadata={
        "description": "The table's game in the latest round started (null if the table has none)."})
    next = fields.List(fields.String(), allow_none=True, metadata={
        "description": "Who is planned at this table in the next round (null: no such table or no round left)."})
    games = fields.List(fields.Nested(TableGameSchema), metadata={"description": "Every round's game, in order."})
    moves = fields.Nested(MovesSchema, allow_none=True, metadata={
        "description": "Where this table's players of the round before sit in the round just started (null before "
                       "round 2, or when the table had no game in the round before)."})


def table_view(read: EveningRead, table: int) -> dict[str, Any]:
    state = read.state
    games = []
    for tables in state.started:
        for seated in tables:
            if seated.table == table:
                outcome = read.outcomes.get(seated.game)
                kept = state.confirmations.get(seated.game)
                confirmed = kept["player"] if kept and outcome and kept["version"] == outcome.version else None
                games.append({"round": seated.round, "game": seated.game, "players": list(seated.players),
                              "mark": core.cell_mark(state, seated.game, outcome),
                              "status": outcome.status if outcome else None, "confirmed_by": confirmed})
    current = games[-1] if games and games[-1]["round"] == state.current_round else None
    upcoming = state.schedule[state.current_round] if state.current_round < len(state.schedule) else None
    return {"evening": read.info.id, "club": read.info.club_id, "name": read.info.name, "status": read.info.status,
            "table": table, "code": read.codes[table], "confirmation": state.confirmation,
            "current_round": state.current_round, "current": current,
            "next": list(upcoming[table - 1]) if upcoming is not None and table <= len(upcoming) else None,
            "games": games, "moves": moves(state, table, read.codes)}


@blp.route("/tables/<code>")
class Table(MethodView):
    @blp.response(200, TableViewSchema)
    def get(self, code: str) -> dict[str, Any]:
        """A table by its code: its game in the current round, who is planned there next, its games of the
        evening. Open to the table's token (which reaches nothing else) and to the club's tokens."""
        read, table = evenings.table_by_code(store(), caller().club_id, code)
        return table_view(read, table)


@blp.route("/tables/<code>/confirmations")
class TableConfirmations(MethodView):
    @blp.arguments(ConfirmSchema())
    @blp.response(201, TableViewSchema)
    def post(self, payload: dict[str, Any], code: str) -> tuple[dict[str, Any], int]:
        """A player of the table confirms its game's result, on the table's phone (the table's token, or a club
        scorer's); the answer is the table's view."""
        token = caller()
        read, table = evenings.confirm_at_table(store(), token.club_id, code, payload["game"], payload["player"],
                                                by_whom(token))
        return table_view(read, table), 201
