"""Club evenings: several tables, rounds of games, a ranking across tables, the director's mends, the tables'
codes, tokens and QR codes (docs/EVENINGS.md). This module holds the club's evenings and one evening; the
other routes join the same blueprint (:mod:`api.evening_view`) from their own modules: the grid and the rounds
(:mod:`api.evening_rounds`), the log of decisions (:mod:`api.evening_decisions`), the ranking and the
leaderboard (:mod:`api.evening_results`), the tables (:mod:`api.evening_tables`), the big screen
(:mod:`api.evening_screen`), the season ladder and a player's evenings (:mod:`api.evening_ladder`).

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

from datetime import UTC, datetime
from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger import evenings as core
from nj_ledger.application import evenings
from nj_ledger.store import iso

from . import evening_rounds  # noqa: F401 - its routes join the blueprint, as the modules below do
from .auth import caller, reads_table_codes
from .context import etag, next_page, store
from .evening_results import ranking_view
from .evening_tables import TableLinkSchema, TableViewSchema, link_view, table_view
from .evening_view import (
    NAME,
    NO_STORE,
    TABLE_PAGE,
    TOKEN_FRAGMENT,
    EveningSchema,
    EveningSummarySchema,
    blp,
    by_whom,
    evening_view,
    now,
    read_evening,
)
from .i18n import N_, validation_templates
from .problems import Problem
from .schemas import MAX_INT, RULES_DESCRIPTION, STARTING_CHIPS_RANGE, PageQuerySchema, PageSchema, name_field

# What the other modules read here: the blueprint (api/__init__.py registers it), and the views the CLI prints.
__all__ = ["NO_STORE", "TABLE_PAGE", "TOKEN_FRAGMENT", "TableViewSchema", "blp", "evening_view", "ranking_view",
           "table_view"]

ISO_MOMENT = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?"
NOT_A_MOMENT = N_("Not a valid date and time: write it as 2026-11-26T23:30 (ISO 8601).")
validation_templates(NOT_A_MOMENT)
NO_SUCH_MOMENT = N_("ends_at: {moment} is not a date and time that exists.")


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


class EveningPageSchema(PageSchema):
    evenings = fields.List(fields.Nested(EveningSummarySchema))


class CreatedEveningSchema(EveningSchema):
    links = fields.List(fields.Nested(TableLinkSchema), metadata={"description": "A scorer link per table."})


@blp.route("/clubs/<club>/evenings")
class Evenings(MethodView):
    @blp.arguments(EveningListQuerySchema(), location="query")
    @blp.response(200, EveningPageSchema)
    def get(self, query: dict[str, Any], club: str) -> dict[str, Any]:
        """The club's evenings, newest first, a page at a time (by status and days played)."""
        found = evenings.evenings_page(store(), club, status=query.get("status"), played_from=query.get("from_"),
                                       played_to=query.get("to"), limit=query["limit"], offset=query["offset"])
        return {
            "evenings": [{"id": e.id, "club": e.club_id, "name": e.name, "date": e.played_on.isoformat(),
                          "status": e.status, "version": e.version, "created_at": iso(e.created_at),
                          "updated_at": iso(e.updated_at)} for e in found.items],
            "next": next_page("evenings.Evenings", found.more, limit=query["limit"],
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
        read, links = evenings.create_evening(
            store(), club, by_whom(caller()), name=payload["name"], played_on=payload.get("date") or now().date(),
            players=payload["players"], rounds=payload["rounds"], rules=payload["rules"],
            starting_chips=payload["starting_chips"], ranking=payload["ranking"], confirmation=payload["confirmation"],
            seed=payload["seed"], ends_at=_moment(payload.get("ends_at")), tables=payload.get("tables"),
            sizes=payload.get("sizes"), seating=payload.get("seating"))
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


@blp.route("/clubs/<club>/evenings/<evening>")
class Evening(MethodView):
    @blp.response(200, EveningSchema, headers={"ETag": {"description": "The evening's version (If-Match of its "
                                                                      "decisions).", "schema": {"type": "string"}}})
    def get(self, club: str, evening: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The evening: its settings, players present, rounds, tables and their codes, the grid's counts; its
        `ETag` is its version. An evening's share made for the big screen reads the tables' codes and pages; a
        results share reads them null (a code joins its table for writing)."""
        read = read_evening(club, evening)
        return evening_view(read, codes=reads_table_codes(caller())), 200, etag(read.info.version)
