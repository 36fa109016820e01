"""Club scoreboards, players' figures and history, seasons, and the audit of a club's games.

Periods: ``from`` and ``to`` (days, both included) and ``season`` (a club's
named range) select the games by the day they were played; with a season and
``from``/``to`` together the period is their overlap. Only ended games count
(see :mod:`nj_ledger.scoring` for every figure's definition).

Sorting: ``sort=field`` ranks the rows by a field ascending, ``sort=-field`` descending (default ``-net``: best
net first; ``rank``: the default order). Rows with equal values share a rank (1, 1, 3…) and are listed by name,
alphabetically whatever the accents ("Élise" before "Marcel": :func:`nj_ledger.names.sort_key`).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Response
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.application.members import erasures
from nj_ledger.names import sort_key
from nj_ledger.scoring import WIN_UNITS
from nj_ledger.store import GameInfo
from nj_ledger.store.projections import (
    GameLine,
    ScoreLine,
    SeasonInfo,
    create_season,
    find_season,
    player_stats,
    scoreboard,
    seasons,
    set_ladder,
)

from .audits import BUSY, RETRY_AFTER, audited_page, tallied, whole_log_read
from .auth import sees_members_data
from .context import next_page, store
from .dumping import ViewSchema
from .erasure_schemas import ErasuresSchema, erasure_view
from .i18n import translate_finding
from .inputs import Blueprint
from .problems import PROBLEM_JSON, Problem
from .schemas import PageQuerySchema, PageSchema, ProblemSchema, name_field
from .spreadsheets import csv_answer

blp = Blueprint("scoreboards", __name__, url_prefix="/api/v1",
                description="Club scoreboards, players' figures and history, seasons, and the club's audit.")

ROW_FIELDS = ("rank", "name", "games", "wins", "deals_played", "deals_won", "net", "net_per_game", "grand_operas",
              "honours_taken", "honour_chips", "betes_paid", "ruins", "rating")
SORTS = tuple(prefix + name for name in ROW_FIELDS for prefix in ("", "-"))
DEFAULT_SORT = "-net"
FIRST_FINDINGS = 3


# --- schemas -----------------------------------------------------------------------------------
class PeriodQuerySchema(Schema):
    from_ = fields.Date(data_key="from", metadata={"description": "Games played on or after this day (YYYY-MM-DD)."})
    to = fields.Date(metadata={"description": "Games played on or before this day (YYYY-MM-DD)."})
    season = fields.String(validate=validate.Length(min=1, max=40), metadata={"description": "A season's name."})


class ScoreboardQuerySchema(PeriodQuerySchema):
    min_games = fields.Integer(load_default=0, validate=validate.Range(0, 10**9),
                               metadata={"description": "Only players with at least this many games."})
    sort = fields.String(load_default=DEFAULT_SORT, validate=validate.OneOf(SORTS), metadata={
        "description": "A row field: ascending, or descending with a leading '-'. Equal values share a rank."})
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")),
                           metadata={"description": "csv: text/csv with a header row."})


class ScoreRowSchema(ViewSchema):
    rank = fields.Integer()
    name = fields.String()
    games = fields.Integer(metadata={"description": "Ended games."})
    wins = fields.Float(metadata={"description": "Games ranked first; a win shared by n tied players counts 1/n."})
    deals_played = fields.Integer()
    deals_won = fields.Integer()
    net = fields.Integer(metadata={"description": "Chips at the end of each game minus the starting chips, summed."})
    net_per_game = fields.Float()
    grand_operas = fields.Integer()
    honours_taken = fields.Integer(metadata={"description": "Boxes taken by announcing their honour."})
    honour_chips = fields.Integer(metadata={"description": "Chips those boxes held."})
    betes_paid = fields.Integer(metadata={"description": "Honours still held by a loser at settlement."})
    ruins = fields.Integer(metadata={"description": "Deals in which the player could not pay in full."})
    rating = fields.Float(metadata={"description": "openskill (Plackett-Luce) mu - 3 sigma after the player's "
                                                   "last game in the period."})


class ScoreboardSchema(ViewSchema):
    club = fields.String()
    from_ = fields.String(data_key="from", attribute="from", allow_none=True)
    to = fields.String(allow_none=True)
    rows = fields.List(fields.Nested(ScoreRowSchema))


class StatsQuerySchema(PeriodQuerySchema, PageQuerySchema):
    pass


class FiguresSchema(ScoreRowSchema):
    class Meta:
        exclude = ("rank", "name")

    rating = fields.Float(allow_none=True, metadata={"description": "Null without a game in the period."})
    rating_mu = fields.Float(allow_none=True)
    rating_sigma = fields.Float(allow_none=True)


class HistoryGameSchema(ViewSchema):
    game = fields.String()
    date = fields.String()
    players = fields.List(fields.String())
    seat = fields.Integer()
    rank = fields.Integer()
    chips = fields.Integer(metadata={"description": "At the end of the game."})
    net = fields.Integer()
    wins = fields.Float()
    deals_played = fields.Integer()
    deals_won = fields.Integer()
    reason = fields.String(metadata={"description": "Why the game ended."})
    chips_by_deal = fields.List(fields.Integer(), metadata={
        "description": "The starting chips, then the player's chips after each deal."})
    rating = fields.Float(metadata={"description": "The player's rating after this game."})


class MemberSchema(ViewSchema):
    id = fields.Integer()
    name = fields.String()


class PlayerStatsSchema(PageSchema):
    club = fields.String()
    player = fields.Nested(MemberSchema)
    from_ = fields.String(data_key="from", allow_none=True)
    to = fields.String(allow_none=True)
    figures = fields.Nested(FiguresSchema)
    history = fields.List(fields.Nested(HistoryGameSchema), metadata={"description": "Newest first, a page at a time."})


class SeasonSchema(ViewSchema):
    name = name_field(40, required=True)
    from_ = fields.Date(data_key="from", required=True)
    to = fields.Date(required=True)
    qualifying_evenings = fields.Integer(load_default=0, strict=True, validate=validate.Range(0, 1000), metadata={
        "description": "The evening ladder: evenings a player needs to be ranked (0: none)."})
    best_evenings = fields.Integer(load_default=None, allow_none=True, strict=True,
                                   validate=validate.Range(1, 1000), metadata={
        "description": "The evening ladder: how many of a player's best evenings count (null: every one)."})


class LadderSettingsSchema(Schema):
    qualifying_evenings = fields.Integer(strict=True, validate=validate.Range(0, 1000), metadata={
        "description": "Evenings a player needs to be ranked in the ladder."})
    best_evenings = fields.Integer(allow_none=True, strict=True, validate=validate.Range(1, 1000), metadata={
        "description": "How many of a player's best evenings count; null: every one."})


class SeasonListSchema(ViewSchema):
    seasons = fields.List(fields.Nested(SeasonSchema))


class AuditQuerySchema(PageQuerySchema):
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class GameAuditSchema(ViewSchema):
    game = fields.String()
    date = fields.String()
    status = fields.String()
    version = fields.Integer()
    ok = fields.Boolean()
    counts = fields.Dict(keys=fields.String(), values=fields.Integer(),
                         metadata={"description": "Findings by severity: error, warning, info."})
    findings = fields.List(fields.Dict(), metadata={"description": "The first findings, errors first."})


class ClubAuditSchema(PageSchema):
    club = fields.String()
    games = fields.List(fields.Nested(GameAuditSchema), metadata={"description": "Newest first."})
    erasures = fields.Nested(ErasuresSchema, metadata={
        "description": "The club's erasures of members (on every page), held to their chain and signatures: who "
                       "was erased (id, pseudonym), why, by which token, when, what each redacted."})


# --- periods and rows --------------------------------------------------------------------------
def period(club: str, query: dict[str, Any]) -> tuple[date | None, date | None]:
    """The days a query asks for: ``from``/``to``, within ``season`` if one is named."""
    start, end = query.get("from_"), query.get("to")
    if start is not None and end is not None and start > end:
        raise Problem(422, "invalid-period", "from ({start}) is after to ({end}).", params={"start": start, "end": end})
    name = query.get("season")
    if name is not None:
        season = find_season(store().db, club, name)
        if season is None:
            raise Problem(422, "unknown-season", "The club has no season called {name!r}.", params={"name": name})
        start = season.starts_on if start is None else max(start, season.starts_on)
        end = season.ends_on if end is None else min(end, season.ends_on)
    return start, end


def _day(value: date | None) -> str | None:
    return None if value is None else value.isoformat()


def score_row(line: ScoreLine) -> dict[str, Any]:
    """A scoreboard row without its rank (numbers rounded as shown)."""
    return {
        "name": line.name, "games": line.games, "wins": round(line.wins, 3), "deals_played": line.deals_played,
        "deals_won": line.deals_won, "net": line.net, "net_per_game": round(line.net_per_game, 2),
        "grand_operas": line.grand_operas, "honours_taken": line.honours_taken, "honour_chips": line.honour_chips,
        "betes_paid": line.betes_paid, "ruins": line.ruins, "rating": round(line.rating, 2),
    }


def ranked(rows: list[dict[str, Any]], sort: str) -> list[dict[str, Any]]:
    """The rows in ``sort`` order with their rank; equal values share a rank and go by name.

    ``rank`` is the default order (``-rank``: the same ranks, last first).

    >>> [(r["rank"], r["name"]) for r in ranked([{"name": "b", "net": 3}, {"name": "a", "net": 3},
    ...                                          {"name": "c", "net": 5}], "-net")]
    [(1, 'c'), (2, 'a'), (2, 'b')]
    """
    descending = sort.startswith("-")
    field = sort.lstrip("-")
    if field == "rank":
        default = ranked(rows, DEFAULT_SORT)
        return default[::-1] if descending else default

    def value(row: dict[str, Any]) -> Any:
        return sort_key(row[field])[0] if field == "name" else row[field]

    by_name = sorted(rows, key=lambda row: sort_key(row["name"]))
    ordered = sorted(by_name, key=value, reverse=descending)  # stable, also reversed: ties stay by name
    result: list[dict[str, Any]] = []
    for position, row in enumerate(ordered, start=1):
        tied = bool(result) and value(result[-1]) == value(row)
        result.append({"rank": result[-1]["rank"] if tied else position, **row})
    return result


def _csv(rows: list[dict[str, Any]], club: str) -> Response:
    """The rows as CSV under a header row, player names made safe to open in a spreadsheet."""
    return csv_answer(ROW_FIELDS, ([row[name] for name in ROW_FIELDS] for row in rows), f"scoreboard-{club}")


# --- routes ------------------------------------------------------------------------------------
@blp.route("/clubs/<club>/scoreboard")
class Scoreboard(MethodView):
    @blp.arguments(ScoreboardQuerySchema(), location="query")
    @blp.response(200, ScoreboardSchema)
    @blp.alt_response(200, content_type="text/csv", schema={"type": "string"},
                      description="The scoreboard as JSON; with format=csv, its rows as CSV under a header row.")
    @blp.alt_response(422, schema=None, description="A bad parameter (invalid-request, invalid-period, "
                                                    "unknown-season).")
    def get(self, query: dict[str, Any], club: str) -> dict[str, Any] | Response:
        """The club's players over a period: games, wins, deals, net chips, honours, bêtes, ruins and a rating."""
        start, end = period(club, query)
        lines = scoreboard(store().db, club, start, end, min_games=query["min_games"])
        rows = ranked([score_row(line) for line in lines], query["sort"])
        if query["format"] == "csv":
            return _csv(rows, club)
        return {"club": club, "from": _day(start), "to": _day(end), "rows": rows}


def _history(line: GameLine) -> dict[str, Any]:
    return {
        "game": line.game_id, "date": line.played_on.isoformat(), "players": line.players, "seat": line.seat,
        "rank": line.rank, "chips": line.chips, "net": line.net, "wins": round(line.win_units / WIN_UNITS, 3),
        "deals_played": line.deals, "deals_won": line.deals_won, "reason": line.reason,
        "chips_by_deal": line.chips_by_deal, "rating": round(line.rating, 2),
    }


def figures_view(line: ScoreLine | None) -> dict[str, Any]:
    """A member's figures as the API shows them (zeros before a first ended game)."""
    if line is None:
        empty = dict.fromkeys(("games", "deals_played", "deals_won", "net", "grand_operas", "honours_taken",
                               "honour_chips", "betes_paid", "ruins"), 0)
        return {**empty, "wins": 0.0, "net_per_game": 0.0, "rating": None, "rating_mu": None, "rating_sigma": None}
    row = score_row(line)
    del row["name"]
    return {**row, "rating_mu": line.rating_mu, "rating_sigma": line.rating_sigma}


@blp.route("/clubs/<club>/players/<player>/stats")
class PlayerStats(MethodView):
    @blp.arguments(StatsQuerySchema(), location="query")
    @blp.response(200, PlayerStatsSchema)
    def get(self, query: dict[str, Any], club: str, player: str) -> dict[str, Any]:
        """One member's figures over a period and their games in it, newest first (the member by name or id)."""
        start, end = period(club, query)
        stats = player_stats(store().db, club, player, start, end, limit=query["limit"], offset=query["offset"])
        return {
            "club": club, "player": {"id": stats.player_id, "name": stats.name},
            "from_": _day(start), "to": _day(end), "figures": figures_view(stats.line),
            "history": [_history(line) for line in stats.history],
            "next": next_page("scoreboards.PlayerStats", stats.more, limit=query["limit"],
                              offset=query["offset"] + query["limit"]),
        }


def _season(season: SeasonInfo) -> dict[str, Any]:
    return {"name": season.name, "from_": season.starts_on, "to": season.ends_on,
            "qualifying_evenings": season.qualifying_evenings, "best_evenings": season.best_evenings}


@blp.route("/clubs/<club>/seasons")
class Seasons(MethodView):
    @blp.response(200, SeasonListSchema)
    def get(self, club: str) -> dict[str, Any]:
        """The club's seasons, the most recent first."""
        return {"seasons": [_season(season) for season in seasons(store().db, club)]}

    @blp.arguments(SeasonSchema())
    @blp.response(201, SeasonSchema)
    @blp.alt_response(409, schema=None, description="The club has a season of that name (season-exists).")
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int]:
        """Name a date range of the club (scorer token); its name is then usable as `season=`. Its evening ladder
        (`GET …/seasons/{season}/ladder`) ranks players with `qualifying_evenings` evenings at least, by the sum of
        their best `best_evenings` evenings (null: every one)."""
        if payload["from_"] > payload["to"]:
            raise Problem(422, "invalid-period", "from ({start}) is after to ({end}).",
                          params={"start": payload["from_"], "end": payload["to"]})
        season = create_season(store().db, club, payload["name"], payload["from_"], payload["to"],  # 409 season-exists
                               qualifying_evenings=payload["qualifying_evenings"],
                               best_evenings=payload["best_evenings"])
        return _season(season), 201


@blp.route("/clubs/<club>/seasons/<season>")
class Season(MethodView):
    @blp.arguments(LadderSettingsSchema(), required=False)  # no body: nothing changes
    @blp.response(200, SeasonSchema)
    def patch(self, payload: dict[str, Any], club: str, season: str) -> dict[str, Any]:
        """Change a season's evening ladder (scorer token): `qualifying_evenings`, `best_evenings` (null: every
        evening counts). What is not sent stays; its name and days do not change."""
        changed = set_ladder(store().db, club, season, qualifying_evenings=payload.get("qualifying_evenings"),
                             best_evenings=payload.get("best_evenings"),
                             keep_all="best_evenings" in payload and payload["best_evenings"] is None)
        return _season(changed)


def game_audit(club: str, game: GameInfo) -> dict[str, Any]:
    """A game's audit in a line: its verdict, findings by severity, and the first findings (errors first)."""
    summary, tally = tallied(club, game.id, FIRST_FINDINGS)
    return {"game": game.id, "date": game.played_on.isoformat(), "status": game.status, "version": game.version,
            "ok": summary.report["ok"], "counts": tally.all_counts(summary),
            "findings": [translate_finding(finding) for finding in tally.first(summary)]}


@blp.route("/clubs/<club>/audit")
class ClubAudit(MethodView):
    @blp.arguments(AuditQuerySchema(), location="query")
    @blp.response(200, ClubAuditSchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=RETRY_AFTER,
                      description=BUSY)
    def get(self, query: dict[str, Any], club: str) -> dict[str, Any]:
        """Every game's audit, summarised (newest first, a page at a time): is its record sound, and what was found.

        A page reads at most as many events as the longest game holds: it holds fewer games than `limit` when
        their logs are long (`next` goes on from there). A server reads a few whole logs at once (audits,
        exports): past them it answers 503 `busy` with `Retry-After`."""
        games = store().games.list_games(club, limit=query["limit"] + 1, offset=query["offset"])
        page = audited_page(games[: query["limit"]])
        with whole_log_read():
            lines = [game_audit(club, game) for game in page]
        found, chain = erasures(store(), club)
        reasons = sees_members_data()
        return {
            "club": club, "games": lines,
            "erasures": {"erasures": [erasure_view(e, reason=reasons) for e in found], "chain": chain},
            "next": next_page("scoreboards.ClubAudit", len(games) > len(page), limit=query["limit"],
                              offset=query["offset"] + len(page)),
        }
