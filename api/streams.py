"""Following a game, or a club's games, as they are played: Server-Sent Events read from the database.

``GET /api/v1/games/{game}/stream`` sends the game's events, each as an SSE
event whose ``id`` is the event's ``seq`` and whose ``data`` is the event as
``GET /api/v1/games/{game}/events`` shows it. A client that reconnects sends the
last ``id`` it received in ``Last-Event-ID`` (a browser's ``EventSource`` does
it by itself) and the stream goes on exactly after it: the events are read
from the log, never from a buffer in memory, so nothing is skipped or sent
twice, whichever process the client reconnects to. A client that cannot set the
header (a first connection of ``EventSource``) says ``?after=<seq>``; the header
wins when both are there. With neither, the stream starts at the log's start.

``GET /api/v1/clubs/{club}/stream`` tells of the club's games: each game
created (``game_started``), deal ended and game ended, and each end an undo
withdrew (``deal_undone``, ``game_reopened``), at its position in the
club's feed (``club_feed``, written in the same transaction as the events,
gap-free and in commit order: see ``nj_ledger.store.writes.insert_feed``); the SSE
``id`` is that position and ``Last-Event-ID`` resumes after it, the same way.

A comment line (``: heartbeat``) is sent every ``STREAM_HEARTBEAT`` seconds
while nothing happens, so that proxies keep an idle stream open, and the log is
read again then (a lost wake-up delays an event by a heartbeat at most). A
stream ends after ``STREAM_LIFETIME`` seconds (an hour by default), once caught
up; the client reconnects with ``Last-Event-ID``, perhaps to another worker.

A token or a share revoked ends the streams it opened, within a second, in
every process: the stream follows its credential as it follows its log, and
before it sends anything it asks the database again whether the credential is in
use when it last found it so more than ``CHECK_EVERY`` (a second) ago; once it is
not, the stream sends a comment ``: revoked`` and ends, and the client's
reconnection is answered 401 (:mod:`api.channels`). A client address, and a
credential, may hold only so many streams open in a worker (429
``too-many-streams``: :mod:`api.stream_limits`).

How a stream runs (its follower, what wakes it, its hand-over to the server's event loop) is
:mod:`api.stream_engine`'s: the views below only check the caller and hand the stream over.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from apispec import APISpec
from flask import Response, current_app, request
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.store import ShareInfo, TableInfo, TokenInfo
from nj_ledger.store.followers import EVENING_PREFIX, credential_key
from nj_ledger.store.writes import club_key

from .auth import caller
from .channels import HEARTBEAT, PAGE, frame
from .context import store
from .inputs import Blueprint
from .problems import PROBLEM_JSON, Problem
from .proxies import counted_as
from .schemas import MAX_INT, ProblemSchema, whole_number_header
from .stream_engine import (
    HANDOFF_ENVIRON,
    HANDOFF_HEADER,
    ClubFollow,
    EveningFollow,
    Follow,
    GameFollow,
    TableFollow,
    hand_over,
    take_handed,
)
from .stream_limits import admit
from .writers_first import writers

blp = Blueprint("streams", __name__, url_prefix="/api/v1",
                description="Following a game as it is played (Server-Sent Events read from the log).")

# What the server (api.asgi) reads here, from the streams' engine and their channels.
__all__ = ["HANDOFF_ENVIRON", "HANDOFF_HEADER", "HEARTBEAT", "PAGE", "Follow", "GameFollow", "frame", "take_handed",
           "writers"]

EVENT_STREAM = "text/event-stream"
_DIGITS = re.compile(r"[0-9]{1,18}")


def sse_event(follow: type[Follow]) -> dict[str, Any]:
    """What each event of a stream is (the OpenAPI way to describe text/event-stream: one event's fields), its
    ``data`` the JSON of an item dumped through the follower's schema, which :func:`document_items` puts in the
    document's components."""
    name = item_name(follow)
    return {"type": "object", "required": ["id", "data"], "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$",
               "description": "The position: a game's seq, the club feed's, or an evening's decision's seq."},
        "event": {"type": "string", "enum": ["message"]},
        "data": {"type": "string", "description": f"The item, JSON: a {name} (#/components/schemas/{name})."},
        "retry": {"type": "integer"}}}


def item_name(follow: type[Follow]) -> str:
    """The name of a follower's item schema in the OpenAPI document (as flask-smorest names schemas)."""
    return type(follow.schema).__name__.removesuffix("Schema")


def document_items(spec: APISpec) -> None:
    """Every stream's item schema in the document's components (those no other answer has put there)."""
    for follow in (GameFollow, ClubFollow, EveningFollow, TableFollow):
        if item_name(follow) not in spec.components.schemas:
            spec.components.schema(item_name(follow), schema=type(follow.schema))


class StreamQuerySchema(Schema):
    after = fields.Integer(validate=validate.Range(0, MAX_INT), metadata={"description": (
        "Start after this seq, for a client that cannot send the `Last-Event-ID` header (which wins when both "
        "are sent).")})


def start_position(query: dict[str, Any]) -> int:
    """Where the stream starts: after ``Last-Event-ID``, else after ``?after=``, else at the log's start."""
    header = request.headers.get("Last-Event-ID")
    if header is not None and header.strip():
        if _DIGITS.fullmatch(header.strip()) is None or int(header) > MAX_INT:
            raise Problem(400, "invalid-header", "Last-Event-ID must be the id of an event of this stream "
                          "(a whole number), not {header!r}.", params={"header": header})
        return int(header)
    return int(query.get("after", 0))


# How every stream ends besides its lifetime, as its OpenAPI description tells it.
ENDS = ("A comment `: revoked` ends the stream when the token or share link it was opened with is revoked (a "
        "second at most; its reconnection is answered 401).")


def limited() -> Callable[[Any], Any]:
    """The 429 of a stream past its client's or its credential's limit, as its OpenAPI description tells it."""
    return blp.alt_response(429, schema=ProblemSchema, content_type=PROBLEM_JSON, headers={"Retry-After": {
        "description": "Seconds before a place is worth asking for again.", "schema": {"type": "integer"}}},
        description=("Too many streams open in this server process from this client's address "
                     "(STREAMS_PER_ADDRESS, 64 by default) or with this token or share link "
                     "(STREAMS_PER_CREDENTIAL, 128 by default): too-many-streams."))


def last_event_id(what: str, id_is: str) -> dict[str, Any]:
    """The ``Last-Event-ID`` header of a stream's OpenAPI description: where a reconnecting follower goes on."""
    return {"in": "header", "name": "Last-Event-ID", "required": False,
            "schema": {"type": "string", "pattern": whole_number_header(18, MAX_INT)},  # as start_position reads it
            "description": f"The id ({id_is}) of the last {what} received: the stream goes on after it."}


@blp.route("/games/<game>/stream")
class GameStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @limited()
    @blp.doc(parameters=[last_event_id("event", "seq")],
             responses={"200": {"description": (
                 "Server-Sent Events, one per event of the log: `id` the event's seq, `data` the event as "
                 "`GET /games/{game}/events` shows it (JSON). A comment `: heartbeat` every "
                 "STREAM_HEARTBEAT seconds (15 by default) while nothing happens. " + ENDS),
                 "content": {EVENT_STREAM: {"schema": sse_event(GameFollow),
                                            "example": 'id: 12\ndata: {"seq": 12, "type": "play", ...}\n\n'}}}})
    def get(self, query: dict[str, Any], game: str) -> Response:
        """Follow the game's log as it grows (Server-Sent Events): every event after `Last-Event-ID` (or
        `after`), then each new one as it is appended, by any server process. A game share may follow its game."""
        token = caller()
        after = start_position(query)
        the_store = store()
        the_store.games.game(token.club_id, game)  # another club's game, or none: 404 now, before the stream starts
        return streamed(GameFollow(the_store, token.club_id, game, after, *_timing()), token)


@blp.route("/clubs/<club>/stream")
class ClubStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @limited()
    @blp.doc(parameters=[last_event_id("item", "position")],
             responses={"200": {"description": (
                 "Server-Sent Events, one per item of the club's feed: `id` the item's position in the feed "
                 "(1, 2, 3… in the order they were recorded), `data` `{position, game, seq, deal, type, "
                 "recorded_at}` where `type` is `game_started` (a game created or imported), `deal_ended`, "
                 "`game_ended`, `deal_undone` (an undo withdrew the deal's settlement: the deal is being played "
                 "again) or `game_reopened` (that settlement had ended the game: it is no longer ended; told "
                 "right after its `deal_undone`, at the same seq), and `seq` the event's seq in its game (the "
                 "undo's, for the last two). A comment `: heartbeat` every STREAM_HEARTBEAT seconds while "
                 "nothing happens. " + ENDS),
                 "content": {EVENT_STREAM: {"schema": sse_event(ClubFollow), "example": (
                     'id: 7\ndata: {"deal": 3, "game": "aB7DUYcmEB4B", "position": 7, "recorded_at": '
                     '"2026-11-24T05:16:41.059597Z", "seq": 58, "type": "deal_ended"}\n\n')}}}})
    def get(self, query: dict[str, Any], club: str) -> Response:
        """Follow the club's games (Server-Sent Events): every game created, deal ended and game ended, and every
        deal's or game's end an undo withdrew, after `Last-Event-ID` (or `after`), then each new one as it is
        recorded, by any server process."""
        token = caller()
        after = start_position(query)
        return streamed(ClubFollow(store(), token.club_id, club_key(token.club_id), after, *_timing()), token)


@blp.route("/clubs/<club>/evenings/<evening>/stream")
class EveningStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @limited()
    @blp.doc(parameters=[last_event_id("decision", "seq")],
             responses={"200": {"description": (
                 "Server-Sent Events, one per decision of the evening's log: `id` its seq, `data` the decision as "
                 "`GET /clubs/{club}/evenings/{evening}/decisions` shows it (`{seq, type, data, by, recorded_at, "
                 "hash}`). A comment `: heartbeat` every STREAM_HEARTBEAT seconds while nothing happens. " + ENDS),
                 "content": {EVENT_STREAM: {"schema": sse_event(EveningFollow), "example": (
                     'id: 5\ndata: {"by": {"role": "scorer"}, "data": {"through_round": 3}, "seq": 5, '
                     '"type": "leaderboard_frozen"}\n\n')}}}})
    def get(self, query: dict[str, Any], club: str, evening: str) -> Response:
        """Follow an evening's decisions (Server-Sent Events): rounds started, results confirmed, mends, the
        leaderboard frozen or revealed, the evening closed — after `Last-Event-ID` (or `after`), then each new one.
        With the club's stream (deals and games ended), what a big screen needs to redraw; an evening's share may
        follow it."""
        token = caller()
        after = start_position(query)
        the_store = store()
        the_store.evenings.evening_entries(token.club_id, evening, 0, 1)  # another club's evening, or none: 404 now
        return streamed(EveningFollow(the_store, token.club_id, EVENING_PREFIX + evening, after, *_timing()), token)


@blp.route("/tables/<code>/stream")
class TableStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @limited()
    @blp.doc(parameters=[last_event_id("decision", "seq")],
             responses={"200": {"description": (
                 "Server-Sent Events, one per decision of the table's evening: `id` its seq, `data` "
                 "`{seq, type, recorded_at}` (what was decided is read from `GET /tables/{code}`). A comment "
                 "`: heartbeat` every STREAM_HEARTBEAT seconds while nothing happens. " + ENDS),
                 "content": {EVENT_STREAM: {"schema": sse_event(TableFollow), "example": (
                     'id: 4\ndata: {"recorded_at": "2026-11-26T19:40:02.118204Z", "seq": 4, '
                     '"type": "round_started"}\n\n')}}}})
    def get(self, query: dict[str, Any], code: str) -> Response:
        """Follow a table's evening (Server-Sent Events): each decision's kind as it is recorded — a round
        started, a result confirmed, the evening closed — so that the table's phone reads its view again at
        once. Open to the table's token and to the club's tokens."""
        token = caller()
        after = start_position(query)
        the_store = store()
        evening, _table = the_store.tables.table_by_code(token.club_id, code)  # none in this club: 404 now
        return streamed(TableFollow(the_store, token.club_id, EVENING_PREFIX + evening, after, *_timing()), token)


def _timing() -> tuple[float, float]:
    """The heartbeat and the lifetime of a stream, from the settings."""
    return float(current_app.config["STREAM_HEARTBEAT"]), float(current_app.config["STREAM_LIFETIME"])


def credential_of(token: TokenInfo) -> str:
    """The followers' key of the credential a stream is opened with: a share's, a table's token's, or a club
    token's (:func:`nj_ledger.store.followers.credential_key`)."""
    kind = "share" if isinstance(token, ShareInfo) else "table" if isinstance(token, TableInfo) else "token"
    return credential_key(kind, token.id)


def streamed(follow: Follow, token: TokenInfo) -> Response:
    """The stream's answer, once its client and its credential have a place left (429 otherwise; a ``HEAD``
    takes none): handed over to the server's event loop when there is one (api.asgi), else a generator that
    holds its thread."""
    follow.credential = credential_of(token)
    if request.method != "HEAD":
        admit(follow, counted_as(request.remote_addr or "unknown"), follow.credential)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if request.environ.get(HANDOFF_ENVIRON):
        return Response(b"", 200, {**headers, HANDOFF_HEADER: hand_over(follow)}, mimetype=EVENT_STREAM)
    return Response(follow.frames(), 200, headers, mimetype=EVENT_STREAM, direct_passthrough=True)
