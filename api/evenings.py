"""Club evenings: several tables, rounds of games, a ranking across tables, the director's mends, the tables'
codes, tokens and QR codes (docs/EVENINGS.md). The big screen's routes (:mod:`api.evening_screen`), and the
season ladder and a player's evenings (:mod:`api.evening_ladder`), join this module's blueprint.

An evening adds no new kind of truth: its log (``GET …/decisions``) holds the
director's decisions, and every view — the evening, the table × round grid, the
ranking, the big screen's leaderboard, the ladder — is folded from it and from
the games' own logs (:mod:`nj_ledger.evenings`).

Each table has a short ``code`` (not a secret: it names the table) and tokens
that reach that table's games only (role ``table``, enforced in
:mod:`api.auth`): the scorer link ``/tables/{code}#token=…`` carries one in its
fragment, as a share link does, and its QR code is made by ``segno``.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar

import segno
from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from nj_ledger import evenings as core
from nj_ledger.evenings import EveningState, GameOutcome
from nj_ledger.store import EveningRead, NewTableLink, TableInfo, TokenInfo, iso

from .addresses import link_base
from .auth import caller, own_club, reader, reads_table_codes, writer
from .context import etag, next_page, store
from .evening_mends import MendSchema, mends_view
from .games import expected_version
from .i18n import N_, validation_templates
from .problems import PROBLEM_JSON, Problem
from .schemas import (
    MAX_INT,
    RULES_DESCRIPTION,
    STARTING_CHIPS_RANGE,
    PageQuerySchema,
    PageSchema,
    ProblemSchema,
    name_field,
)
from .spreadsheets import csv_answer
from .table_moves import MovesSchema, moves

blp = Blueprint("evenings", __name__, url_prefix="/api/v1",
                description="Club evenings: tables, rounds, the ranking, the director's mends, the season ladder.")

NO_STORE = {"Cache-Control": "no-store"}  # answers that carry a table's secret
TABLE_PAGE = "/tables/{code}"  # the table's scorer page; the token rides in the fragment (#token=…)
TOKEN_FRAGMENT = "token"
NOT_BLANK = validate.Regexp(r"[\s\S]*\S", error=N_("Must not be blank."))
NAME = name_field(80)  # a player's (api.schemas.Name: composed, nothing hidden)
REASON = fields.String(validate=[validate.Length(min=1, max=500), NOT_BLANK])
ISO_MOMENT = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?"
NOT_A_MOMENT = N_("Not a valid date and time: write it as 2026-11-26T23:30 (ISO 8601).")
validation_templates(NOT_A_MOMENT)
NO_SUCH_MOMENT = N_("ends_at: {moment} is not a date and time that exists.")
DECISION_TYPES = ("arrival", "departure", "adjustment", "void", "withdrawal", "award", "freeze", "reveal")
MEND_OF = {"adjustment": core.ADJUSTED, "void": core.VOIDED, "withdrawal": core.WITHDRAWN, "award": core.AWARDED}
ROUND_RANGE = validate.Range(0, core.MAX_ROUNDS)
SIGNED_BY = ("The name of the person who makes the decision (the evening's director), kept in the log entry's "
             "`by` as `signed_by` and shown with the decision (\"by Marie\"); optional.")
SCORE_RANGE = validate.Range(-10**9, 10**9)


# --- schemas -------------------------------------------------------------------------------------------------
class TableRuleSchema(Schema):
    smallest = fields.Integer(load_default=3, validate=validate.Range(3, 8))
    preferred = fields.Integer(load_default=4, validate=validate.Range(3, 8))
    largest = fields.Integer(load_default=8, validate=validate.Range(3, 8))


class NewEveningSchema(Schema):
    name = name_field(120, required=True)
    date = fields.Date(metadata={"description": "The day it is played (YYYY-MM-DD); today (UTC) when omitted."})
    players = fields.List(NAME, required=True, validate=validate.Length(min=3, max=core.MAX_PLAYERS),
                          metadata={"description": "The players present; new names become club members."})
    rounds = fields.Integer(required=True, strict=True, validate=validate.Range(1, core.MAX_ROUNDS),
                            metadata={"description": "Rounds planned (each a game at every table)."})
    ends_at = fields.String(allow_none=True, validate=validate.Regexp(ISO_MOMENT, error=NOT_A_MOMENT), metadata={
        "description": "The end by time: no round starts after it (ISO 8601, 2026-11-26T23:30:00+01:00; UTC when "
                       "no offset is given).", "format": "date-time"})
    tables = fields.Nested(TableRuleSchema, metadata={
        "description": "The table rule the planner follows: smallest, preferred and largest tables (3 to 8)."})
    sizes = fields.List(fields.Integer(strict=True, validate=validate.Range(3, 8)), validate=validate.Length(
        min=1, max=66), metadata={"description": "The split, set by the director (sizes adding up to the players)."})
    seating = fields.List(fields.List(fields.List(NAME, validate=validate.Length(min=3, max=8)),
                                      validate=validate.Length(min=1, max=66)),
                          validate=validate.Length(min=1, max=core.MAX_ROUNDS), metadata={
                              "description": "Every round's tables set by the director (rounds → tables → players "
                                             "in seat order), instead of the planner's draw."})
    rules = fields.Raw(load_default="classic", metadata={"description": "What every table plays. " +
                                                         RULES_DESCRIPTION})
    starting_chips = fields.Integer(required=True, strict=True, metadata={**STARTING_CHIPS_RANGE, "example": 60})
    ranking = fields.String(load_default="match_points", validate=validate.OneOf(core.RANKINGS), metadata={
        "description": "match_points (the default: 100 × (beaten + tied/2) / (players − 1) per game, summed) or "
                       "net_chips."})
    confirmation = fields.Boolean(load_default=False, metadata={
        "description": "true: a game counts once a player of its table confirmed its result."})
    seed = fields.Integer(load_default=0, strict=True, validate=validate.Range(0, MAX_INT),
                          metadata={"description": "The seating draw's seed (the same seed, the same plan)."})


class EveningListQuerySchema(PageQuerySchema):
    status = fields.String(validate=validate.OneOf(("open", "closed")))
    from_ = fields.Date(data_key="from", metadata={"description": "Evenings played on or after this day."})
    to = fields.Date(metadata={"description": "Evenings played on or before this day."})


class EveningSummarySchema(Schema):
    id = fields.String()
    club = fields.String()
    name = fields.String()
    date = fields.String()
    status = fields.String(metadata={"description": "open or closed."})
    version = fields.Integer(metadata={"description": "The seq of the evening's last decision."})
    created_at = fields.String()
    updated_at = fields.String()


class EveningPageSchema(PageSchema):
    evenings = fields.List(fields.Nested(EveningSummarySchema))


class PresentSchema(Schema):
    name = fields.String()
    present = fields.Boolean()
    withdrawn = fields.Boolean()


class TableCodeSchema(Schema):
    table = fields.Integer()
    code = fields.String(allow_none=True, metadata={
        "description": "The table's short code: it joins the table (POST /tables/{code}/join) while the evening is "
                       "open. Null for a results share (only a club token and the big screen's share read it)."})
    page = fields.String(allow_none=True, metadata={
        "description": "The table's scorer page (its token goes in the fragment); null for a results share."})


class CountsSchema(Schema):
    planned = fields.Integer()
    missing = fields.Integer()
    unconfirmed = fields.Integer()
    counted = fields.Integer()
    voided = fields.Integer()


class EveningSchema(EveningSummarySchema):
    rules = fields.Dict(metadata={"description": "The resolved rules every table plays."})
    starting_chips = fields.Integer()
    ranking = fields.String(metadata={"description": "match_points or net_chips."})
    confirmation = fields.Boolean()
    seed = fields.Integer()
    rounds = fields.Integer(metadata={"description": "Rounds planned (and started)."})
    current_round = fields.Integer(metadata={"description": "Rounds started; 0 before the first."})
    round_finished = fields.Boolean(metadata={
        "description": "Every game of the current round has ended or was voided (the next round may start)."})
    ends_at = fields.String(allow_none=True)
    time_up = fields.Boolean(metadata={"description": "The end time has passed."})
    table_rule = fields.Dict()
    players = fields.List(fields.Nested(PresentSchema), metadata={"description": "In order of arrival."})
    worst_pair = fields.Integer(allow_none=True, metadata={
        "description": "The plan's most times a pair of players share a table (null: tables set by the director)."})
    bound = fields.Integer(allow_none=True, metadata={"description": "A lower bound of worst_pair."})
    tables = fields.List(fields.Nested(TableCodeSchema))
    frozen_through = fields.Integer(allow_none=True, metadata={
        "description": "The big screen's leaderboard shows the rounds up to this one (null: not frozen)."})
    counts = fields.Nested(CountsSchema, metadata={"description": "The grid's cells by mark."})


class TableLinkSchema(Schema):
    table = fields.Integer()
    code = fields.String()
    secret = fields.String(metadata={"description": "The table token: reaches this table's games only. Shown "
                                                    "once."})
    url = fields.String(metadata={"description": "The scorer link: the table's page, the token in the fragment."})
    qr_svg = fields.String(metadata={"description": "The link's QR code, an SVG document."})
    qr_png = fields.String(metadata={"description": "The link's QR code, a PNG image in base64."})


class CreatedEveningSchema(EveningSchema):
    links = fields.List(fields.Nested(TableLinkSchema), metadata={"description": "A scorer link per table."})


class CellSchema(Schema):
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


class GridRowSchema(Schema):
    table = fields.Integer()
    code = fields.String(allow_none=True)
    cells = fields.List(fields.Nested(CellSchema, allow_none=True), metadata={
        "description": "One per round (1…); null where the round has no such table."})


class GridSchema(Schema):
    evening = fields.String()
    version = fields.Integer()
    status = fields.String()
    rounds = fields.Integer()
    current_round = fields.Integer()
    tables = fields.List(fields.Nested(GridRowSchema))
    counts = fields.Nested(CountsSchema)


class RankingQuerySchema(Schema):
    through_round = fields.Integer(validate=ROUND_RANGE, metadata={
        "description": "Count the rounds up to this one only (default: every round started)."})
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")))


class RoundScoreSchema(Schema):
    round = fields.Integer()
    table = fields.Integer(allow_none=True)
    game = fields.String(allow_none=True)
    score = fields.Float(allow_none=True, metadata={"description": "Null when the game does not count (yet)."})
    mark = fields.String(metadata={"description": "As the grid's, or awarded."})


class RankRowSchema(Schema):
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


class RankingSchema(Schema):
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


class RoundTableSchema(Schema):
    table = fields.Integer()
    players = fields.List(fields.String())
    game = fields.String(allow_none=True)
    mark = fields.String()


class RoundSchema(Schema):
    round = fields.Integer()
    status = fields.String(metadata={"description": "started or planned."})
    tables = fields.List(fields.Nested(RoundTableSchema))


class RoundsSchema(Schema):
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


class DecisionSchema(Schema):
    seq = fields.Integer()
    type = fields.String()
    data = fields.Dict()
    by = fields.Dict(metadata={"description": "Who made it: the token's role, id and label (a table: its number), "
                                              "and `signed_by`, the name the director signed it with, when given."})
    recorded_at = fields.String()
    hash = fields.String()
    mend = fields.Boolean(metadata={"description": "An adjustment, a game voided, a withdrawal or a score awarded."})


class ChainSchema(Schema):
    ok = fields.Boolean()
    first_bad_seq = fields.Integer(allow_none=True)


class DecisionsSchema(Schema):
    evening = fields.String()
    version = fields.Integer()
    chain = fields.Nested(ChainSchema)
    decisions = fields.List(fields.Nested(DecisionSchema))


class DecisionsQuerySchema(Schema):
    mends = fields.Boolean(metadata={"description": "true: the mends only (the audit of the director's changes)."})


class NewDecisionSchema(Schema):
    type = fields.String(required=True, validate=validate.OneOf(DECISION_TYPES), metadata={
        "description": "arrival, departure (players), adjustment (player, amount), void (game), withdrawal "
                       "(player), award (player, round, score), freeze (through_round), reveal."})
    players = fields.List(NAME, validate=validate.Length(min=1, max=core.MAX_PLAYERS))
    player = NAME
    game = fields.String(validate=validate.Length(min=1, max=64))
    amount = fields.Integer(strict=True, validate=SCORE_RANGE, metadata={
        "description": "Added to the player's score (negative: a penalty), in the evening's unit."})
    score = fields.Integer(strict=True, validate=SCORE_RANGE, metadata={
        "description": "The score awarded for the round, in the evening's unit (match points: 0 to 100)."})
    round = fields.Integer(strict=True, validate=validate.Range(1, core.MAX_ROUNDS))
    through_round = fields.Integer(strict=True, validate=ROUND_RANGE)
    reason = REASON
    signed_by = name_field(80, metadata={"description": SIGNED_BY})

    # What each type needs, checked by needed() and said in the OpenAPI document (api.schemas.ExactDocument).
    NEEDED: ClassVar[dict[str, tuple[str, ...]]] = {
        "arrival": ("players",), "departure": ("players",), "adjustment": ("player", "amount", "reason"),
        "void": ("game", "reason"), "withdrawal": ("player", "reason"), "award": ("player", "round", "score", "reason"),
        "freeze": ("through_round",), "reveal": ()}
    OPENAPI: ClassVar[dict[str, Any]] = {"oneOf": [
        {"properties": {"type": {"enum": [kind]}}, "required": ["type", *needed]} for kind, needed in NEEDED.items()]}

    @validates_schema
    def needed(self, data: dict[str, Any], **_: Any) -> None:
        for name in self.NEEDED.get(data.get("type", ""), ()):
            if name not in data:
                raise ValidationError(N_("Missing data for required field."), name)


class DecidedSchema(Schema):
    decision = fields.Nested(DecisionSchema)
    evening = fields.Nested(EveningSchema)


class ConfirmSchema(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    player = name_field(80, required=True, metadata={
        "description": "The player of the table who confirms the result."})


class CloseSchema(Schema):
    reason = fields.String(load_default="", validate=validate.Length(max=500))
    signed_by = name_field(80, metadata={"description": SIGNED_BY})


class TableGameSchema(Schema):
    round = fields.Integer()
    game = fields.String()
    players = fields.List(fields.String())
    mark = fields.String()
    status = fields.String(allow_none=True)
    confirmed_by = fields.String(allow_none=True)


class TableViewSchema(Schema):
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


# --- views ---------------------------------------------------------------------------------------------------
def by_whom(token: TokenInfo, signed_by: str | None = None) -> dict[str, Any]:
    """Who made a decision, as the log keeps it: the token, and the name the director signed with (if given)."""
    if isinstance(token, TableInfo):
        return {"role": token.role, "token": token.id, "table": token.table}
    by = {"role": token.role, "token": token.id, "label": token.label}
    return {**by, "signed_by": signed_by.strip()} if signed_by and signed_by.strip() else by


def _page(code: str) -> str:
    return TABLE_PAGE.format(code=code)


def _now() -> datetime:
    return datetime.now(UTC)


def _counts(read: EveningRead) -> dict[str, int]:
    counts = dict.fromkeys(core.CELL_MARKS, 0)
    for row in core.grid(read.state, read.outcomes):
        for cell in row:
            if cell is not None:
                counts[cell["mark"]] += 1
    return {("voided" if mark == core.VOID else mark): count for mark, count in counts.items()}


def _round_finished(state: EveningState, outcomes: dict[str, GameOutcome]) -> bool:
    if not state.started:
        return True
    return all(t.game in state.voided or (t.game in outcomes and outcomes[t.game].status == "ended")
               for t in state.started[-1])


def _summary(read: EveningRead) -> dict[str, Any]:
    info = read.info
    return {"id": info.id, "club": info.club_id, "name": info.name, "date": info.played_on.isoformat(),
            "status": info.status, "version": info.version, "created_at": iso(info.created_at),
            "updated_at": iso(info.updated_at)}


def evening_view(read: EveningRead, *, codes: bool = True) -> dict[str, Any]:
    """The evening as `GET …/evenings/{evening}` shows it; without ``codes`` (a results share), its tables'
    codes and pages are null."""
    state = read.state
    return {
        **_summary(read), "rules": state.rules, "starting_chips": state.starting_chips, "ranking": state.ranking,
        "confirmation": state.confirmation, "seed": state.seed, "rounds": state.rounds,
        "current_round": state.current_round, "round_finished": _round_finished(state, read.outcomes),
        "ends_at": state.ends_at,
        "time_up": state.ends_at is not None and _now() >= datetime.fromisoformat(state.ends_at),
        "table_rule": state.table_rule,
        "players": [{"name": name, "present": name in state.present, "withdrawn": name in state.withdrawn}
                    for name in state.players],
        "worst_pair": state.worst_pair, "bound": state.bound,
        "tables": [{"table": number, "code": code if codes else None, "page": _page(code) if codes else None}
                   for number, code in sorted(read.codes.items())],
        "frozen_through": state.frozen_through, "counts": _counts(read),
    }


def _qr(url: str) -> dict[str, str]:
    code = segno.make(url, error="m")
    svg, png = io.BytesIO(), io.BytesIO()
    code.save(svg, kind="svg", scale=4, border=2, xmldecl=False)
    code.save(png, kind="png", scale=6, border=2)
    return {"qr_svg": svg.getvalue().decode(), "qr_png": base64.b64encode(png.getvalue()).decode()}


def link_view(link: NewTableLink) -> dict[str, Any]:
    url = f"{link_base()}{_page(link.code)}#{TOKEN_FRAGMENT}={link.secret}"  # the address phones open
    return {"table": link.table, "code": link.code, "secret": link.secret, "url": url, **_qr(url)}


def _decision(item: dict[str, Any]) -> dict[str, Any]:
    return {**item, "mend": item["type"] in core.MENDS}


def _read(club: str, evening: str) -> EveningRead:
    own_club(reader(), club)
    return store().evening(club, evening)


def ranking_view(read: EveningRead, through_round: int | None, *, screen: bool = False) -> dict[str, Any]:
    state = read.state
    frozen = screen and not state.closed and state.frozen_through is not None
    if frozen:
        through_round = state.frozen_through if through_round is None else min(through_round,
                                                                               state.frozen_through or 0)
    last = state.current_round if through_round is None else min(through_round, state.current_round)
    rows = core.ranking(state, read.outcomes, last)
    complete = all(core.cell_mark(state, t.game, read.outcomes.get(t.game)) in (core.COUNTED, core.VOID)
                   for tables in state.started[:last] for t in tables)
    return {"evening": read.info.id, "name": read.info.name, "version": read.info.version,
            "status": read.info.status, "rule": state.ranking, "through_round": last,
            "current_round": state.current_round, "frozen": frozen, "complete": complete, "rows": rows,
            "mends": mends_view(state, read.entries, last)}


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


@blp.route("/clubs/<club>/evenings")
class Evenings(MethodView):
    @blp.arguments(EveningListQuerySchema(), location="query")
    @blp.response(200, EveningPageSchema)
    def get(self, query: dict[str, Any], club: str) -> dict[str, Any]:
        """The club's evenings, newest first, a page at a time (by status and days played)."""
        own_club(reader(), club)
        found = store().list_evenings(club, status=query.get("status"), played_from=query.get("from_"),
                                      played_to=query.get("to"), limit=query["limit"] + 1, offset=query["offset"])
        more = len(found) > query["limit"]
        return {
            "evenings": [{"id": e.id, "club": e.club_id, "name": e.name, "date": e.played_on.isoformat(),
                          "status": e.status, "version": e.version, "created_at": iso(e.created_at),
                          "updated_at": iso(e.updated_at)} for e in found[: query["limit"]]],
            "next": next_page("evenings.Evenings", more, limit=query["limit"],
                              offset=query["offset"] + query["limit"]),
        }

    @blp.arguments(NewEveningSchema())
    @blp.response(201, CreatedEveningSchema)
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Open an evening (a scorer token): the players present, the rules every table plays, the rounds (or an
        end time), the table rule (or the split, or every round's tables), the ranking, confirmation, the seed.

        The seats of every round are drawn at once (the plan); the answer holds
        a scorer link per table — its token reaches that table's games only,
        shown once — with the link's QR code (SVG and PNG)."""
        token = writer()
        own_club(token, club)
        played_on = payload.get("date") or _now().date()
        ends_at = _moment(payload.get("ends_at"))
        created = core.decide_creation(
            name=payload["name"], played_on=played_on.isoformat(), players=payload["players"],
            rounds=payload["rounds"], rules=payload["rules"], starting_chips=payload["starting_chips"],
            ranking=payload["ranking"], confirmation=payload["confirmation"], seed=payload["seed"],
            ends_at=None if ends_at is None else ends_at.isoformat(),
            tables=payload.get("tables"), sizes=payload.get("sizes"), seating=payload.get("seating"))
        _check_game_settings(created[1])
        read, links = store().create_evening(club, created, by_whom(token))
        return {**evening_view(read), "links": [link_view(link) for link in links]}, 201, NO_STORE


def _moment(text: str | None) -> datetime | None:
    """An end time as given (ISO 8601), in UTC (a time without an offset is taken as UTC)."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise Problem(422, "invalid-request", NO_SUCH_MOMENT, params={"moment": text}, field="ends_at") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)


def _check_game_settings(data: dict[str, Any]) -> None:
    """The evening's rules and chips make a game at every table size (the core's refusal, before anything is
    stored)."""
    from nj_ledger.decide import new_game

    sizes = {len(table) for tables in data["plan"] for table in tables} or {data["tables"]["smallest"]}
    for size in sorted(sizes):
        new_game([f"p{seat}" for seat in range(size)], data["rules"], data["starting_chips"])


@blp.route("/clubs/<club>/evenings/<evening>")
class Evening(MethodView):
    @blp.response(200, EveningSchema, headers={"ETag": {"description": "The evening's version (If-Match of its "
                                                                      "decisions).", "schema": {"type": "string"}}})
    def get(self, club: str, evening: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The evening: its settings, players present, rounds, tables and their codes, the grid's counts; its
        `ETag` is its version. An evening's share made for the big screen reads the tables' codes and pages; a
        results share reads them null (a code joins its table for writing)."""
        read = _read(club, evening)
        return evening_view(read, codes=reads_table_codes(reader())), 200, etag(read.info.version)


@blp.route("/clubs/<club>/evenings/<evening>/grid")
class Grid(MethodView):
    @blp.response(200, GridSchema)
    def get(self, club: str, evening: str) -> dict[str, Any]:
        """The director's grid: a row per table, a cell per round — players, game, and its mark: planned, missing
        (not ended), unconfirmed, counted or voided."""
        read = _read(club, evening)
        rows = core.grid(read.state, read.outcomes)
        return {"evening": read.info.id, "version": read.info.version, "status": read.info.status,
                "rounds": len(read.state.schedule), "current_round": read.state.current_round,
                "tables": [{"table": number, "code": read.codes.get(number), "cells": cells}
                           for number, cells in enumerate(rows, 1)], "counts": _counts(read)}


@blp.route("/clubs/<club>/evenings/<evening>/ranking")
class Ranking(MethodView):
    @blp.arguments(RankingQuerySchema(), location="query")
    @blp.response(200, RankingSchema)
    @blp.alt_response(200, content_type="text/csv", schema={"type": "string"}, description="With format=csv.")
    def get(self, query: dict[str, Any], club: str, evening: str) -> Any:
        """The evening's ranking under its rule, every round started counted (or up to `through_round`); the
        director's view: a frozen leaderboard does not hide anything here."""
        view = ranking_view(_read(club, evening), query.get("through_round"))
        return _ranking_csv(view) if query["format"] == "csv" else view


@blp.route("/clubs/<club>/evenings/<evening>/leaderboard")
class Leaderboard(MethodView):
    @blp.arguments(RankingQuerySchema(), location="query")
    @blp.response(200, RankingSchema)
    @blp.alt_response(200, content_type="text/csv", schema={"type": "string"}, description="With format=csv.")
    def get(self, query: dict[str, Any], club: str, evening: str) -> Any:
        """The big screen's leaderboard: the ranking, but while the director keeps it frozen, only the rounds up
        to the frozen one (`frozen` true); revealed, or once the evening is closed, every round."""
        view = ranking_view(_read(club, evening), query.get("through_round"), screen=True)
        return _ranking_csv(view) if query["format"] == "csv" else view


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
        return _rounds_view(_read(club, evening))

    @blp.arguments(NewRoundSchema(), required=False)  # no body: the plan's tables
    @blp.response(201, RoundsSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int]:
        """Start the next round (a scorer token): a game for each table, made with the evening's rules and chips —
        the plan's tables, or those the director sets. Refused while games of the last round have not ended
        (`round-not-finished`, unless `force`), after the end time (`evening-time-up`), when every planned round
        has started and no tables are set (`no-round-left`), or once the evening is closed; with
        `If-Match: "<version>"`, when the evening moved on (409 `version-conflict`)."""
        token = writer()
        own_club(token, club)
        read = store().start_round(club, evening, by_whom(token, payload.get("signed_by")),
                                   tables=payload.get("tables"),
                                   force=payload["force"], now=_now(), expected_version=expected_version())
        return _rounds_view(read), 201


@blp.route("/clubs/<club>/evenings/<evening>/decisions")
class Decisions(MethodView):
    @blp.arguments(DecisionsQuerySchema(), location="query")
    @blp.response(200, DecisionsSchema)
    def get(self, query: dict[str, Any], club: str, evening: str) -> dict[str, Any]:
        """The evening's log — every decision, who made it and when, hash-chained — and whether the chain holds:
        the audit of the evening (`mends=true`: the mends only)."""
        read = _read(club, evening)
        bad = core.first_bad_entry(read.entries)
        items = [_decision(item) for item in read.entries]
        if query.get("mends") is not None:
            items = [item for item in items if item["mend"] == query["mends"]]
        return {"evening": read.info.id, "version": read.info.version,
                "chain": {"ok": bad is None, "first_bad_seq": bad}, "decisions": items}

    @blp.arguments(NewDecisionSchema())
    @blp.response(201, DecidedSchema)
    @blp.alt_response(409, schema=ProblemSchema, content_type=PROBLEM_JSON,
                      description="If-Match names another version of the evening (version-conflict).")
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Record a director's decision (a scorer token): players arriving or leaving (the rounds not yet started
        are planned again), a mend with its reason — an adjustment, a game voided, a withdrawal, a score awarded —
        or the big screen's leaderboard frozen after a round, or revealed. `signed_by` (optional) names the director
        who decides: the log keeps it in the entry's `by`, the pages and the published results show it.

        `If-Match: "<version>"` (the evening's `version`, its `ETag`) refuses the decision (409
        `version-conflict`) when another was recorded since: a tap sent twice records once."""
        token = writer()
        own_club(token, club)
        kind = payload["type"]
        reason = payload.get("reason", "")

        def decision(state: EveningState, outcomes: Any) -> tuple[str, dict[str, Any]]:
            if kind == "arrival":
                return core.decide_presence(state, payload["players"], [], reason)
            if kind == "departure":
                return core.decide_presence(state, [], payload["players"], reason)
            if kind == "freeze":
                return core.decide_freeze(state, payload["through_round"])
            if kind == "reveal":
                return core.decide_freeze(state, None)
            return core.decide_mend(state, MEND_OF[kind], payload)

        read = store().decide(club, evening, decision, by_whom(token, payload.get("signed_by")),
                              expected_version=expected_version())
        return {"decision": _decision(read.entries[-1]), "evening": evening_view(read)}, 201, etag(read.info.version)


def _confirm(club: str, evening: str, payload: dict[str, Any], token: TokenInfo,
             table: int | None = None) -> dict[str, Any]:
    def decision(state: EveningState, outcomes: Mapping[str, GameOutcome]) -> tuple[str, dict[str, Any]]:
        return core.decide_confirmation(state, payload["game"], payload["player"], outcomes.get(payload["game"]),
                                        table)

    read = store().decide(club, evening, decision, by_whom(token))
    return {"decision": _decision(read.entries[-1]), "evening": evening_view(read)}


@blp.route("/clubs/<club>/evenings/<evening>/confirmations")
class Confirmations(MethodView):
    @blp.arguments(ConfirmSchema())
    @blp.response(201, DecidedSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int]:
        """A player of the table confirms a game's result as it stands (when the evening asks for confirmation):
        refused before the game has ended (`game-not-ended`), from a player not at the table (`not-at-table`),
        twice for the same result (`already-confirmed`)."""
        token = writer()
        own_club(token, club)
        return _confirm(club, evening, payload, token), 201


@blp.route("/clubs/<club>/evenings/<evening>/close")
class Close(MethodView):
    @blp.arguments(CloseSchema(), required=False)  # no body: closed with no reason
    @blp.response(201, DecidedSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int]:
        """Close the evening (a scorer token): nothing more is recorded in it, its tables' tokens stop writing, the
        leaderboard shows every round, and it counts toward its season's ladder. `signed_by` (optional) names the
        director who closes it, kept in the entry's `by`."""
        token = writer()
        own_club(token, club)
        read = store().decide(club, evening, lambda state, _: core.decide_close(state, payload["reason"]),
                              by_whom(token, payload.get("signed_by")), expected_version=expected_version())
        return {"decision": _decision(read.entries[-1]), "evening": evening_view(read)}, 201


@blp.route("/clubs/<club>/evenings/<evening>/tables/<int(max=66):table>/links")
class TableLinks(MethodView):
    @blp.response(201, TableLinkSchema)
    def post(self, club: str, evening: str, table: int) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Another scorer link for a table, with its QR code (a scorer token): a new token, shown once; the
        table's earlier tokens keep working until the evening closes."""
        own_club(writer(), club)
        return link_view(store().table_link(club, evening, table)), 201, NO_STORE


def _table_read(code: str) -> tuple[EveningRead, int]:
    token = caller()
    evening, table = store().table_by_code(token.club_id, code)
    return store().evening(token.club_id, evening), table


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
        read, table = _table_read(code)
        return table_view(read, table)


@blp.route("/tables/<code>/confirmations")
class TableConfirmations(MethodView):
    @blp.arguments(ConfirmSchema())
    @blp.response(201, TableViewSchema)
    def post(self, payload: dict[str, Any], code: str) -> tuple[dict[str, Any], int]:
        """A player of the table confirms its game's result, on the table's phone (the table's token, or a club
        scorer's); the answer is the table's view."""
        token = writer()
        evening, table = store().table_by_code(token.club_id, code)
        _confirm(token.club_id, evening, payload, token, table)
        read = store().evening(token.club_id, evening)
        return table_view(read, table), 201
