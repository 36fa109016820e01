"""Games: create and list a club's games, read one, record table actions, read its log."""

from __future__ import annotations

import re
from typing import Any

from flask import Response, request, url_for
from flask.views import MethodView
from marshmallow import Schema, fields, validate
from webargs.fields import DelimitedList

from nj_ledger.application import (
    GameFilter,
    current_game,
    idempotent_request,
    list_games,
    receipt_of,
    record_actions,
    records_page,
    start_game,
    what_may_be_tapped,
)
from nj_ledger.exchange import META_FIELDS
from nj_ledger.state import STATUSES
from nj_ledger.store import IdempotentRequest, StoredResponse

from . import metrics
from .auth import caller
from .context import actions_body, etag, game_view, next_page, store, summary_view
from .dumping import ViewSchema
from .inputs import Blueprint
from .problems import PROBLEM_JSON, Problem, json_response, refusal_body
from .receipts import ReceiptedGameSchema, ReceiptSchema
from .schemas import (
    ACTIONS_DESCRIPTION,
    MAX_INT,
    RULES_DESCRIPTION,
    SEAT_RANGE,
    STARTING_CHIPS_RANGE,
    GameStateSchema,
    GameSummarySchema,
    PageQuerySchema,
    PageSchema,
    ProblemSchema,
    RecordSchema,
    name_field,
)

blp = Blueprint("games", __name__, url_prefix="/api/v1", description="Games, table actions and the event log.")

IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,200}")  # visible ASCII, like the header itself
VERSION_TAG = re.compile(r'(?:W/)?"?(\d{1,12})"?')
MAX_TITLE = META_FIELDS["title"]  # as long as an imported document's


class NewGameSchema(Schema):
    players = fields.List(name_field(80), required=True,
                          validate=validate.Length(min=1, max=16),
                          metadata={"description": "Names in seat order; new names become club members."})
    rules = fields.Raw(load_default="classic", metadata={"description": RULES_DESCRIPTION, "example": "classic"})
    # Ranges documented here and checked by the core, which answers with its own codes (invalid-chips…)
    starting_chips = fields.Integer(required=True, strict=True, metadata={**STARTING_CHIPS_RANGE, "example": 60})
    dealer = fields.Integer(allow_none=True, strict=True, metadata={
        **SEAT_RANGE, "description": "First dealer's seat (0 to players − 1)."})
    title = name_field(MAX_TITLE, blank=True, allow_none=True, metadata={
        "description": f"A name for the game, at most {MAX_TITLE} characters (blank: none).",
        "example": "Jeudi chez Ana"})
    date = fields.Date(allow_none=True, metadata={
        "description": "The day the game is played (YYYY-MM-DD); today (UTC) when omitted.",
        "example": "2026-11-24"})


class GameListQuerySchema(PageQuerySchema):
    status = fields.String(validate=validate.OneOf(STATUSES))
    player = fields.String(validate=validate.Length(min=1, max=80))
    date = fields.Date(metadata={"description": "Games played on this day (YYYY-MM-DD)."})
    from_ = fields.Date(data_key="from", metadata={"description": "Games played on or after this day."})
    to = fields.Date(metadata={"description": "Games played on or before this day."})
    title = fields.String(validate=validate.Length(min=1, max=MAX_TITLE), metadata={
        "description": "Games whose title holds this text, whatever its case."})


class GamePageSchema(PageSchema):
    games = fields.List(fields.Nested(GameSummarySchema))


class ActionsSchema(Schema):
    actions = fields.List(fields.Dict(), required=True, validate=validate.Length(min=1, max=1000),
                          metadata={"description": ACTIONS_DESCRIPTION, "example": [{"type": "deal"}]})


class AppendedSchema(ViewSchema):
    state = fields.Nested(GameStateSchema)
    events = fields.List(fields.Nested(RecordSchema), metadata={"description": "The records appended."})
    receipt = fields.Nested(ReceiptSchema, metadata={
        "description": "The signed receipt of the new head: keep it, an audit can be held to it."})


APPENDED = AppendedSchema()


class EventsQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(0, MAX_INT),
                           metadata={"description": "Events with seq > after."})
    limit = fields.Integer(load_default=200, validate=validate.Range(1, 1000))


class EventPageSchema(PageSchema):
    version = fields.Integer(metadata={"description": "The game's version when the page was read."})
    events = fields.List(fields.Nested(RecordSchema))


class TapsQuerySchema(Schema):
    cards = DelimitedList(fields.String(validate=validate.Length(1, 3)), load_default=list,
                          validate=validate.Length(1, 52), metadata={
                              "description": "The cards tapped so far, in order, comma-separated (`5H,6H`); "
                                             "left out when none is.",
                              "example": ["5H", "6H"]})
    seat = fields.Integer(load_default=None, validate=validate.Range(0, MAX_INT), metadata={
        "description": "The seat that lays them; absent: any seat."})


class TapsSchema(ViewSchema):
    version = fields.Integer(metadata={"description": "The game's version this answer is for."})
    cards = fields.Dict(keys=fields.String(), values=fields.List(fields.Integer()), metadata={
        "description": "For each card of the deck, the seats that may lay the cards tapped then it (none while no "
                       "deal is in play)."})
    recordable = fields.List(fields.Integer(), metadata={
        "description": "The seats that may lay the cards tapped, as they are."})
    starts = fields.List(fields.Integer(), metadata={
        "description": "The seats that may start a play with them (a play its player may not stop yet may go on)."})
    seen = fields.List(fields.String(), metadata={
        "description": "The cards seen this deal (played or shown): a hand told card by card cannot hold them."})
    next = fields.String(allow_none=True, metadata={
        "description": "What the run wants after the cards tapped, as `expected` writes it (`8`, `8H` in suit "
                       "play); null: a new run. With nothing tapped, the deal's `expected`."})
    honours = fields.List(fields.String(), metadata={
        "description": "The cards tapped that their player may announce (the board's honours, the hocs that "
                       "earn chips)."})


def expected_version() -> int | None:
    """The version named by `If-Match` (`"12"`), or None when absent or `*`."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    match = VERSION_TAG.fullmatch(header.strip())
    if match is None:
        raise Problem(400, "invalid-header", 'If-Match must be a game version in quotes, like "12", not {header!r}.',
                      params={"header": header})
    return int(match.group(1))


def idempotency(game: str, payload: dict[str, Any]) -> IdempotentRequest | None:
    """The batch's ``Idempotency-Key`` (400 for one that is not 1 to 200 visible ASCII characters), or None."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not IDEMPOTENCY_KEY.fullmatch(key):
        raise Problem(400, "invalid-header", "Idempotency-Key must be 1 to 200 visible ASCII characters.")
    return idempotent_request(key, game, payload)


def _replayed(stored: StoredResponse) -> Response:
    headers = {"Idempotent-Replayed": "true"}
    if stored.status < 400:
        headers.update(etag(stored.body["state"]["version"]))
    mimetype = PROBLEM_JSON if stored.status >= 400 else "application/json"
    return json_response(stored.body, stored.status, headers, mimetype)


@blp.route("/clubs/<club>/games")
class ClubGames(MethodView):
    @blp.arguments(GameListQuerySchema(), location="query")
    @blp.response(200, GamePageSchema)
    def get(self, query: dict[str, Any], club: str) -> dict[str, Any]:
        """The club's games, newest first (by the day played, then by when each was recorded), a page at a time;
        filter by status, player, the day played and a part of the title (whatever its case)."""
        played_from, played_to = query.get("from_"), query.get("to")
        if query.get("date"):
            played_from = played_to = query["date"]
        filters = GameFilter(status=query.get("status"), player=query.get("player"), title=query.get("title"),
                             played_from=played_from, played_to=played_to)
        page = list_games(store(), club, filters, query["limit"], query["offset"])
        return {
            "games": [summary_view(game) for game in page.items],
            "next": next_page("games.ClubGames", page.more, limit=query["limit"],
                              offset=query["offset"] + query["limit"]),
        }

    @blp.arguments(NewGameSchema())
    @blp.response(201, ReceiptedGameSchema)
    @blp.alt_response(409, schema=ProblemSchema, content_type=PROBLEM_JSON,
                      description="`name-erased`: a player is named as an erased member's pseudonym.")
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Start a game: players in seat order, rules, starting chips, and the first dealer if not the last seat;
        optionally a `title` and the `date` it is played (today by default), which its state and the club's list
        show. A player named as an erased member's pseudonym ("Joueur 1") is refused (409 `name-erased`): a new
        player is not the member erased.

        The answer carries the signed `receipt` of the game's first event."""
        created = start_game(store(), club, payload["players"], payload["rules"], payload["starting_chips"],
                             payload.get("dealer"), title=payload.get("title"), played_on=payload.get("date"))
        metrics.recorded("new-game", created.game.version)
        headers = {**etag(created.game.version), "Location": url_for("games.Game", game=created.game.id)}
        return {**game_view(created.game, created.state), "receipt": created.receipt}, 201, headers


@blp.route("/games/<game>")
class Game(MethodView):
    @blp.response(200, ReceiptedGameSchema)
    @blp.alt_response(304, description="Not modified (If-None-Match names the current version).")
    def get(self, game: str) -> tuple[dict[str, Any], int, dict[str, str]] | Response:
        """The game as it stands, with the signed `receipt` of its head; its `ETag` is its version."""
        club = caller().club_id
        current = current_game(store(), club, game)
        tag = etag(current.game.version)
        if request.headers.get("If-None-Match", "").strip() == tag["ETag"]:
            return Response(status=304, headers=tag)
        return {**game_view(current.game, current.state), "receipt": receipt_of(store(), club, current)}, 200, tag


@blp.route("/games/<game>/actions")
class Actions(MethodView):
    @blp.arguments(ActionsSchema())
    @blp.response(201, AppendedSchema, headers={"ETag": {"description": "The new version.",
                                                         "schema": {"type": "string"}}})
    @blp.alt_response(409, schema=ProblemSchema, content_type=PROBLEM_JSON,
                      description="If-Match names another version (version-conflict).")
    @blp.alt_response(422, schema=ProblemSchema, content_type=PROBLEM_JSON,
                      description="A refused action: nothing is stored.")
    def post(self, payload: dict[str, Any], game: str) -> tuple[dict[str, Any], int, dict[str, str]] | Response:
        """Record a batch of table actions, all or nothing: 201 with the new state, the events appended and the
        signed `receipt` of the new head.

        `If-Match: "<version>"` refuses the batch (409 `version-conflict`) if the
        game moved on. With an `Idempotency-Key` (scoped to the club), a retry
        returns the first response and appends nothing; the same key with another
        body is refused (422 `idempotency-mismatch`).

        An `undo` withdraws the latest play, pass or reveal; until the next deal
        starts it reaches past the deal's settlement (and the game's end it caused),
        withdrawing it with the action that caused it. The state's `undo` says what
        it would withdraw; its `redo` is the action the latest undo withdrew, which
        sent again here redoes it.
        """
        retried = idempotency(game, payload)
        result = record_actions(
            store(), caller().club_id, game, payload["actions"], expected_version=expected_version(),
            idempotency=retried,
            respond=lambda info, state, records, receipt: (201, APPENDED.dump(
                actions_body(info, state, records, receipt))),  # kept as answered, for a retry
            refused=lambda refusal: (422, refusal_body(refusal)),
        )
        if isinstance(result, StoredResponse):
            return _replayed(result)
        metrics.recorded("actions", len(result.records), len(payload["actions"]))
        return actions_body(result.game, result.state, result.records, result.receipt), 201, etag(result.game.version)


@blp.route("/games/<game>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.response(200, EventPageSchema)
    def get(self, query: dict[str, Any], game: str) -> dict[str, Any]:
        """The game's log with hashes, in seq order, a page at a time (`after` the last seq seen)."""
        page = records_page(store(), caller().club_id, game, query["after"], query["limit"])
        # The records as they are stored: the schema's dump takes its fields without formatting them again, so a
        # row changed outside the ledger is shown as it stands, for the audit to name (api.dumping).
        return {"version": page.version, "events": page.records,
                "next": next_page("games.Events", page.more, after=page.last, limit=query["limit"])}


@blp.route("/games/<game>/taps")
class Taps(MethodView):
    @blp.arguments(TapsQuerySchema(), location="query")
    @blp.response(200, TapsSchema)
    def get(self, query: dict[str, Any], game: str) -> dict[str, Any]:
        """What the scorer may tap on the game as it stands: the rules' own answer, asked by the scorer page
        before each tap (the page asks the core in the page instead once it has loaded it). A card that is not one
        or a seat the table does not have is refused (422 `invalid-card`, `unknown-seat`); nothing is recorded."""
        return what_may_be_tapped(store(), caller().club_id, game, query["cards"], query["seat"])
