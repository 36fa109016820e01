"""The evenings' blueprint, and what its routes share: one evening as the API shows it (its schema and
:func:`evening_view`), the evening read for the caller, and who made a decision as its log keeps it.

The routes are in :mod:`api.evenings` (the evenings and one evening), :mod:`api.evening_rounds` (the grid and the
rounds), :mod:`api.evening_decisions` (the log, the confirmations, the close), :mod:`api.evening_results` (the
ranking and the leaderboard), :mod:`api.evening_tables` (a table's links, its view by code), and the big screen's
and the ladder's modules (:mod:`api.evening_screen`, :mod:`api.evening_ladder`).
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from nj_ledger import evenings as core
from nj_ledger.application import evenings
from nj_ledger.store import EveningRead, TableInfo, TokenInfo

from .context import store
from .dumping import ViewSchema
from .evening_json import TABLE_PAGE as TABLE_PAGE  # the JSON of an evening: api/evening_json.py
from .evening_json import TOKEN_FRAGMENT as TOKEN_FRAGMENT
from .evening_json import counts as counts
from .evening_json import evening_view as evening_view
from .evening_json import now as now
from .evening_json import summary as summary
from .evening_json import table_page as table_page
from .inputs import Blueprint
from .schemas import name_field

blp = Blueprint("evenings", __name__, url_prefix="/api/v1",
                description="Club evenings: tables, rounds, the ranking, the director's mends, the season ladder.")

NO_STORE = {"Cache-Control": "no-store"}  # answers that carry a table's secret
NAME = name_field(80)  # a player's (api.schemas.Name: composed, nothing hidden)
ROUND_RANGE = validate.Range(0, core.MAX_ROUNDS)
SIGNED_BY = ("The name of the person who makes the decision (the evening's director), kept in the log entry's "
             "`by` as `signed_by` and shown with the decision (\"by Marie\"); optional.")


class EveningSummarySchema(ViewSchema):
    id = fields.String()
    club = fields.String()
    name = fields.String()
    date = fields.String()
    status = fields.String(metadata={"description": "open or closed."})
    version = fields.Integer(metadata={"description": "The seq of the evening's last decision."})
    created_at = fields.String()
    updated_at = fields.String()


class PresentSchema(ViewSchema):
    name = fields.String()
    present = fields.Boolean()
    withdrawn = fields.Boolean()


class TableCodeSchema(ViewSchema):
    table = fields.Integer()
    code = fields.String(allow_none=True, metadata={
        "description": "The table's short code: it joins the table (POST /tables/{code}/join) while the evening is "
                       "open. Null for a results share (only a club token and the big screen's share read it)."})
    page = fields.String(allow_none=True, metadata={
        "description": "The table's scorer page (its token goes in the fragment); null for a results share."})


class CountsSchema(ViewSchema):
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


def by_whom(token: TokenInfo, signed_by: str | None = None) -> dict[str, Any]:
    """Who made a decision, as the log keeps it: the token, and the name the director signed with (if given)."""
    if isinstance(token, TableInfo):
        return {"role": token.role, "token": token.id, "table": token.table}
    by = {"role": token.role, "token": token.id, "label": token.label}
    return {**by, "signed_by": signed_by.strip()} if signed_by and signed_by.strip() else by


def read_evening(club: str, evening: str) -> EveningRead:
    """The evening, for a caller that reads its club (:func:`api.auth.guard` checked it)."""
    return evenings.evening(store(), club, evening)
