"""The season ladder and a player's evenings, read from the club's evenings (docs/EVENINGS.md).

``GET /clubs/{club}/seasons/{season}/ladder`` sums each player's best evening
scores over the season's closed evenings (:func:`nj_ledger.evenings.ladder`);
``GET /clubs/{club}/players/{player}/evenings`` lists a player's evenings with
their rank, score and games. Both take who has a result from each evening's
ranking (:func:`nj_ledger.evenings.ranking`): a row with a ``rank`` counts, a
row without one (no result yet, or withdrawn) does not.

The routes belong to the evenings' blueprint (:mod:`api.evenings`).
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.application import evenings

from .context import store
from .dumping import ViewSchema
from .evenings import blp
from .problems import Problem
from .scoreboards import period
from .spreadsheets import csv_answer


class LadderQuerySchema(Schema):
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")))


class LadderNightSchema(ViewSchema):
    evening = fields.String()
    name = fields.String()
    date = fields.String()
    score = fields.Float()
    rank = fields.Integer(allow_none=True, metadata={
        "description": "The player's rank that evening: an evening counts for the players its ranking ranks "
                       "(a result, and not withdrawn), as `GET …/evenings/{evening}/ranking` gives it."})
    kept = fields.Boolean(metadata={"description": "Among the player's best evenings, which count."})


class LadderRowSchema(ViewSchema):
    rank = fields.Integer(allow_none=True, metadata={"description": "Null: not qualified (too few evenings)."})
    name = fields.String()
    evenings = fields.Integer()
    kept = fields.Integer()
    total = fields.Float()
    qualified = fields.Boolean()
    history = fields.List(fields.Nested(LadderNightSchema))


class LadderEveningSchema(ViewSchema):
    id = fields.String()
    name = fields.String()
    date = fields.String()
    rule = fields.String()


class LadderSchema(ViewSchema):
    club = fields.String()
    season = fields.String()
    from_ = fields.String(data_key="from")
    to = fields.String()
    qualifying_evenings = fields.Integer()
    best_evenings = fields.Integer(allow_none=True)
    evenings = fields.List(fields.Nested(LadderEveningSchema))
    rows = fields.List(fields.Nested(LadderRowSchema))


class HistoryQuerySchema(Schema):
    from_ = fields.Date(data_key="from")
    to = fields.Date()
    season = fields.String(validate=validate.Length(min=1, max=40))
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")))


class HistoryNightSchema(ViewSchema):
    evening = fields.String()
    name = fields.String()
    date = fields.String()
    status = fields.String()
    rule = fields.String()
    rank = fields.Integer(allow_none=True, metadata={
        "description": "The player's rank in the evening's ranking; null: no result that evening (yet), or "
                       "withdrawn."})
    players = fields.Integer(metadata={"description": "Players ranked that evening (a rank not null)."})
    score = fields.Float()
    games = fields.Integer()
    average = fields.Float(allow_none=True)


class PlayerEveningsSchema(ViewSchema):
    club = fields.String()
    player = fields.String()
    from_ = fields.String(data_key="from", allow_none=True)
    to = fields.String(allow_none=True)
    evenings = fields.List(fields.Nested(HistoryNightSchema), metadata={"description": "Newest first."})


@blp.route("/clubs/<club>/seasons/<season>/ladder")
class Ladder(MethodView):
    @blp.arguments(LadderQuerySchema(), location="query")
    @blp.response(200, LadderSchema)
    @blp.alt_response(200, content_type="text/csv", schema={"type": "string"}, description="With format=csv.")
    def get(self, query: dict[str, Any], club: str, season: str) -> Any:
        """The season's ladder over its closed evenings: each player's best `best_evenings` evening scores summed
        (every one when the season keeps them all); players with fewer than `qualifying_evenings` evenings are
        listed after the others, unranked."""
        ladder = evenings.season_ladder(store(), club, season)
        if ladder is None:
            raise Problem(404, "not-found", "The club has no season called {name!r}.", params={"name": season})
        found, reads, rows = ladder.season, ladder.evenings, ladder.rows
        if query["format"] == "csv":
            return csv_answer(["rank", "name", "evenings", "kept", "total", "qualified"],
                              [[row["rank"] if row["rank"] is not None else "", row["name"], row["evenings"],
                                row["kept"], row["total"], "yes" if row["qualified"] else "no"] for row in rows],
                              f"ladder-{club}")
        return {"club": club, "season": found.name, "from_": found.starts_on.isoformat(),
                "to": found.ends_on.isoformat(), "qualifying_evenings": found.qualifying_evenings,
                "best_evenings": found.best_evenings,
                "evenings": [{"id": r.info.id, "name": r.info.name, "date": r.info.played_on.isoformat(),
                              "rule": r.state.ranking} for r in reads], "rows": rows}


@blp.route("/clubs/<club>/players/<player>/evenings")
class PlayerEvenings(MethodView):
    @blp.arguments(HistoryQuerySchema(), location="query")
    @blp.response(200, PlayerEveningsSchema)
    @blp.alt_response(200, content_type="text/csv", schema={"type": "string"}, description="With format=csv.")
    def get(self, query: dict[str, Any], club: str, player: str) -> Any:
        """A player's evenings, newest first: each evening's rank, score, games and average (open evenings as
        they stand)."""
        start, end = period(club, query)
        shown, nights = evenings.player_evenings(store(), club, player, start, end)
        if query["format"] == "csv":
            fields_ = ["date", "name", "status", "rule", "rank", "players", "score", "games", "average"]
            return csv_answer(fields_, [[night[f] if night[f] is not None else "" for f in fields_]
                                        for night in nights], "evenings")
        return {"club": club, "player": shown, "from_": None if start is None else start.isoformat(),
                "to": None if end is None else end.isoformat(), "evenings": nights}

