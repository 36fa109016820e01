"""An evening's grid (a row per table, a cell per round, each cell's mark) and its rounds: the started ones as
played, the plan, and the next round started by the director."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger import evenings as core
from nj_ledger.application import evenings
from nj_ledger.store import EveningRead

from .auth import caller
from .context import store
from .dumping import ViewSchema
from .evening_view import NAME, SIGNED_BY, CountsSchema, blp, by_whom, counts, now, read_evening
from .games import expected_version
from .schemas import name_field


class CellSchema(ViewSchema):
    round = fields.Integer()
    table = fields.Integer()
    players = fields.List(fields.String(), metadata={"description": "In seat order."})
    game = fields.String(allow_none=True, metadata={"description": "Null while the round is only planned."})
    mark = fields.String(metadata={"description": "planned, missing (not ended), unconfirmed, counted or voided."})
    status = fields.String(allow_none=True, metadata={"description": "The game's status."})
    version = fields.Integer(allow_none=True)
    deals_played = fields.Integer(allow_none=True)
    chips = fields.List(fields.Integer(), allow_none=True, metadata={"description": "By seat, as the game stands."})
    confirmed_by = fields.String(allow_none=True)


class GridRowSchema(ViewSchema):
    table = fields.Integer()
    code = fields.String(allow_none=True)
    cells = fields.List(fields.Nested(CellSchema, allow_none=True), metadata={
        "description": "One per round (1…); null where the round has no such table."})


class GridSchema(ViewSchema):
    evening = fields.String()
    version = fields.Integer()
    status = fields.String()
    rounds = fields.Integer()
    current_round = fields.Integer()
    tables = fields.List(fields.Nested(GridRowSchema))
    counts = fields.Nested(CountsSchema)


class RoundTableSchema(ViewSchema):
    table = fields.Integer()
    players = fields.List(fields.String())
    game = fields.String(allow_none=True)
    mark = fields.String()


class RoundSchema(ViewSchema):
    round = fields.Integer()
    status = fields.String(metadata={"description": "started or planned."})
    tables = fields.List(fields.Nested(RoundTableSchema))


class RoundsSchema(ViewSchema):
    evening = fields.String()
    version = fields.Integer()
    current_round = fields.Integer()
    rounds = fields.List(fields.Nested(RoundSchema))


class NewRoundSchema(Schema):
    tables = fields.List(fields.List(NAME, validate=validate.Length(min=3, max=8)),
                         validate=validate.Length(min=1, max=66), metadata={
                             "description": "The tables set by the director (players in seat order); default: the "
                                            "plan's."})
    force = fields.Boolean(load_default=False, metadata={
        "description": "Start it although games of the last round have not ended."})
    signed_by = name_field(80, metadata={"description": SIGNED_BY})


@blp.route("/clubs/<club>/evenings/<evening>/grid")
class Grid(MethodView):
    @blp.response(200, GridSchema)
    def get(self, club: str, evening: str) -> dict[str, Any]:
        """The director's grid: a row per table, a cell per round — players, game, and its mark: planned, missing
        (not ended), unconfirmed, counted or voided."""
        read = read_evening(club, evening)
        rows = core.grid(read.state, read.outcomes)
        return {"evening": read.info.id, "version": read.info.version, "status": read.info.status,
                "rounds": len(read.state.schedule), "current_round": read.state.current_round,
                "tables": [{"table": number, "code": read.codes.get(number), "cells": cells}
                           for number, cells in enumerate(rows, 1)], "counts": counts(read)}


def _rounds_view(read: EveningRead) -> dict[str, Any]:
    state = read.state
    grid = core.grid(state, read.outcomes)
    rounds = []
    for number in range(1, len(state.schedule) + 1):
        cells = [row[number - 1] for row in grid if row[number - 1] is not None]
        rounds.append({"round": number, "status": "started" if number <= state.current_round else "planned",
                       "tables": [{"table": c["table"], "players": c["players"], "game": c["game"],
                                   "mark": c["mark"]} for c in cells if c is not None]})
    return {"evening": read.info.id, "version": read.info.version, "current_round": state.current_round,
            "rounds": rounds}


@blp.route("/clubs/<club>/evenings/<evening>/rounds")
class Rounds(MethodView):
    @blp.response(200, RoundsSchema)
    def get(self, club: str, evening: str) -> dict[str, Any]:
        """Every round: the started ones as played (with their games), then the plan."""
        return _rounds_view(read_evening(club, evening))

    @blp.arguments(NewRoundSchema(), required=False)  # no body: the plan's tables
    @blp.response(201, RoundsSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int]:
        """Start the next round (a scorer token): a game for each table, made with the evening's rules and chips —
        the plan's tables, or those the director sets. Refused while games of the last round have not ended
        (`round-not-finished`, unless `force`), after the end time (`evening-time-up`), when every planned round
        has started and no tables are set (`no-round-left`), or once the evening is closed; with
        `If-Match: "<version>"`, when the evening moved on (409 `version-conflict`)."""
        read = evenings.start_round(store(), club, evening, by_whom(caller(), payload.get("signed_by")),
                                    tables=payload.get("tables"), force=payload["force"], now=now(),
                                    expected_version=expected_version())
        return _rounds_view(read), 201
