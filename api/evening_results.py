"""An evening's ranking under its rule, for the director, and the big screen's leaderboard (frozen after a round
while the director keeps it so), in JSON or as a CSV sheet."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from .dumping import ViewSchema
from .evening_json import ranking_view as ranking_view  # the JSON of a ranking: api/evening_json.py
from .evening_mends import MendSchema
from .evening_view import ROUND_RANGE, blp, read_evening
from .spreadsheets import csv_answer


class RankingQuerySchema(Schema):
    through_round = fields.Integer(validate=ROUND_RANGE, metadata={
        "description": "Count the rounds up to this one only (default: every round started)."})
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")))


class RoundScoreSchema(ViewSchema):
    round = fields.Integer()
    table = fields.Integer(allow_none=True)
    game = fields.String(allow_none=True)
    score = fields.Float(allow_none=True, metadata={"description": "Null when the game does not count (yet)."})
    mark = fields.String(metadata={"description": "As the grid's, or awarded."})


class RankRowSchema(ViewSchema):
    rank = fields.Integer(allow_none=True, metadata={
        "description": "Equal scores share a rank; null: withdrawn, or no result yet (no game counted, no score "
                       "awarded, no adjustment: listed after the ranked players, `withdrawn` false). An adjustment "
                       "of any amount is a result, even adjustments that cancel out. The ladder and a player's "
                       "evenings count the rows with a rank."})
    name = fields.String()
    score = fields.Float(metadata={"description": "Games' scores, awards and adjustments."})
    games = fields.Integer(metadata={"description": "Games counted, and scores awarded."})
    average = fields.Float(allow_none=True, metadata={"description": "Per game counted, without adjustments."})
    adjustments = fields.Float()
    withdrawn = fields.Boolean()
    present = fields.Boolean()
    rounds = fields.List(fields.Nested(RoundScoreSchema))


class RankingSchema(ViewSchema):
    evening = fields.String()
    name = fields.String()
    version = fields.Integer()
    status = fields.String()
    rule = fields.String()
    through_round = fields.Integer(metadata={"description": "The last round counted."})
    current_round = fields.Integer()
    frozen = fields.Boolean(metadata={"description": "The leaderboard is frozen: later rounds are not shown."})
    complete = fields.Boolean(metadata={"description": "Every game of the rounds counted counts."})
    rows = fields.List(fields.Nested(RankRowSchema))
    mends = fields.List(fields.Nested(MendSchema), metadata={
        "description": "The director's mends of the rounds counted, in the order they were made: each with its "
                       "reason and the name it was signed with."})


def _ranking_csv(view: dict[str, Any]) -> Response:
    rounds = list(range(1, view["through_round"] + 1))
    header = ["rank", "name", "score", "games", "average", "adjustments", "withdrawn",
              *[f"round {number}" for number in rounds]]
    rows = []
    for row in view["rows"]:
        by_round: dict[int, Any] = {}
        for cell in row["rounds"]:
            if cell["score"] is not None:
                by_round[cell["round"]] = by_round.get(cell["round"], 0) + cell["score"]
        rows.append([row["rank"] if row["rank"] is not None else "", row["name"], row["score"], row["games"],
                     row["average"] if row["average"] is not None else "", row["adjustments"],
                     "yes" if row["withdrawn"] else "", *[by_round.get(number, "") for number in rounds]])
    return csv_answer(header, rows, f"evening-{view['evening']}")


@blp.route("/clubs/<club>/evenings/<evening>/ranking")
class Ranking(MethodView):
    @blp.arguments(RankingQuerySchema(), location="query")
    @blp.response(200, RankingSchema)
    @blp.alt_response(200, content_type="text/csv", schema={"type": "string"}, description="With format=csv.")
    def get(self, query: dict[str, Any], club: str, evening: str) -> Any:
        """The evening's ranking under its rule, every round started counted (or up to `through_round`); the
        director's view: a frozen leaderboard does not hide anything here."""
        view = ranking_view(read_evening(club, evening), query.get("through_round"))
        return _ranking_csv(view) if query["format"] == "csv" else view


@blp.route("/clubs/<club>/evenings/<evening>/leaderboard")
class Leaderboard(MethodView):
    @blp.arguments(RankingQuerySchema(), location="query")
    @blp.response(200, RankingSchema)
    @blp.alt_response(200, content_type="text/csv", schema={"type": "string"}, description="With format=csv.")
    def get(self, query: dict[str, Any], club: str, evening: str) -> Any:
        """The big screen's leaderboard: the ranking, but while the director keeps it frozen, only the rounds up
        to the frozen one (`frozen` true); revealed, or once the evening is closed, every round."""
        view = ranking_view(read_evening(club, evening), query.get("through_round"), screen=True)
        return _ranking_csv(view) if query["format"] == "csv" else view
