"""Following a game as it is played: Server-Sent Events read from the log.

``GET /api/v1/games/{game}/stream`` sends the game's events, each as an SSE
event whose ``id`` is the event's ``seq`` and whose ``data`` is the event as
``GET /api/v1/games/{game}/events`` shows it. A client that reconnects sends the
last ``id`` it received in ``Last-Event-ID`` (a browser's ``EventSource`` does
it by itself) and the stream goes on exactly after it: the events are read
from the log, never from a buffer in memory, so nothing is skipped or sent
twice, whichever process the client reconnects to. A client that cannot set the
header (a first connection of ``EventSource``) says ``?after=<seq>``; the header
wins when both are there. With neither, the stream starts at the log's start.

A comment line (``: heartbeat``) is sent every ``STREAM_HEARTBEAT`` seconds
while nothing happens, so that proxies keep an idle stream open, and the log is
read again then (a lost wake-up delays an event by a heartbeat at most).

Who wakes a stream: :mod:`nj_ledger.store.followers` (PostgreSQL's
LISTEN/NOTIFY from every process and host, or a short poll on SQLite). Where it
runs: served by granian's ASGI workers (:mod:`api.asgi`), a stream is a
coroutine of the worker's event loop that holds no thread; the view below only
checks the caller and hands the stream over. Under a WSGI server (Flask's test
client) the stream is a generator that holds its thread while it lasts.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Executor
from typing import Any

import orjson
from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from nj_ledger.store import Store

from .auth import reader
from .context import store
from .problems import Problem
from .schemas import MAX_INT

blp = Blueprint("streams", __name__, url_prefix="/api/v1",
                description="Following a game as it is played (Server-Sent Events read from the log).")

EVENT_STREAM = "text/event-stream"
PAGE = 500  # events read from the log at a time
RETRY_MS = 2000  # how long a browser's EventSource waits before it reconnects
HEARTBEAT = b": heartbeat\n\n"
# The environ key an ASGI server sets when its event loop carries the stream on (api.asgi), and the response
# header through which the view hands the stream over (removed before the answer leaves the server).
HANDOFF_ENVIRON = "nj_ledger.stream_handoff"
HANDOFF_HEADER = "X-NJ-Ledger-Stream"
_handed: dict[str, GameFollow] = {}  # streams handed over, by the header's key, until the server takes them
_handed_lock = threading.Lock()
_DIGITS = re.compile(r"[0-9]{1,18}")


class StreamQuerySchema(Schema):
    after = fields.Integer(validate=validate.Range(0, MAX_INT), metadata={"description": (
        "Start after this seq, for a client that cannot send the `Last-Event-ID` header (which wins when both "
        "are sent).")})


def frame(record: dict[str, Any]) -> bytes:
    """One event of the log as an SSE event: ``id`` its seq, ``data`` the event as ``…/events`` shows it.

    >>> frame({"seq": 3, "type": "pass", "data": {"seat": 1}})
    b'id: 3\\ndata: {"data":{"seat":1},"seq":3,"type":"pass"}\\n\\n'
    """
    return b"id: %d\ndata: %s\n\n" % (record["seq"], orjson.dumps(record, option=orjson.OPT_SORT_KEYS))


def start_position(query: dict[str, Any]) -> int:
    """Where the stream starts: after ``Last-Event-ID``, else after ``?after=``, else at the log's start."""
    header = request.headers.get("Last-Event-ID")
    if header is not None and header.strip():
        if _DIGITS.fullmatch(header.strip()) is None or int(header) > MAX_INT:
            raise Problem(400, "invalid-header", "Last-Event-ID must be the id of an event of this stream (a seq), "
                          "not {header!r}.", params={"header": header})
        return int(header)
    return int(query.get("after", 0))


class GameFollow:
    """One follower of a game: its position in the log (the last seq sent) and how to read past it."""

    def __init__(self, store: Store, club_id: str, game_id: str, after: int, heartbeat: float) -> None:
        self.store = store
        self.club_id = club_id
        self.game_id = game_id
        self.after = after
        self.heartbeat = heartbeat

    def read(self) -> bytes:
        """The events after the position, as SSE (at most :data:`PAGE`), moving the position past them."""
        records = self.store.records(self.club_id, self.game_id, self.after, PAGE)
        if not records:
            return b""
        self.after = records[-1]["seq"]
        return b"".join(frame(record) for record in records)

    def opening(self) -> bytes:
        return b"retry: %d\n\n" % RETRY_MS

    def frames(self) -> Iterator[bytes]:
        """The stream for a WSGI server: it holds the thread that serves it until the client leaves."""
        woken = threading.Event()
        unfollow = self.store.followers.follow(self.game_id, woken.set)
        try:
            yield self.opening()
            while True:
                woken.clear()  # before reading: an append during the read wakes the next wait
                chunk = self.read()
                if chunk:
                    yield chunk
                elif not woken.wait(self.heartbeat):
                    yield HEARTBEAT
        finally:
            unfollow()

    async def run(self, send: Callable[[bytes], Awaitable[None]], reads: Executor) -> None:
        """The stream on an event loop: no thread is held while it waits, reads run on ``reads``' threads.

        Followers of one game at the same position share each read (:func:`_shared_read`)."""
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()

        def wake() -> None:
            loop.call_soon_threadsafe(woken.set)

        unfollow = self.store.followers.follow(self.game_id, wake)
        try:
            await send(self.opening())
            while True:
                woken.clear()
                records = await _shared_read(self, reads)
                if records:
                    self.after = records[-1]["seq"]
                    await send(b"".join(frame(record) for record in records))
                    continue
                try:
                    await asyncio.wait_for(woken.wait(), self.heartbeat)
                except TimeoutError:
                    await send(HEARTBEAT)
        finally:
            unfollow()


_reading: dict[tuple[int, str, str, int], asyncio.Future[list[dict[str, Any]]]] = {}


async def _shared_read(follow: GameFollow, reads: Executor) -> list[dict[str, Any]]:
    """The records after ``follow``'s position: one read of the log for every follower of this loop at that
    position of that game (a thousand followers woken by one append make one query, not a thousand)."""
    key = (id(follow.store), follow.club_id, follow.game_id, follow.after)
    pending = _reading.get(key)
    if pending is None:
        loop = asyncio.get_running_loop()
        pending = loop.run_in_executor(reads, follow.store.records, follow.club_id, follow.game_id, follow.after,
                                       PAGE)
        _reading[key] = pending
        pending.add_done_callback(lambda _: _reading.pop(key, None))
    return await asyncio.shield(pending)


def take_handed(key: str) -> GameFollow | None:
    """The stream a view handed over under ``key`` (once)."""
    with _handed_lock:
        return _handed.pop(key, None)


@blp.route("/games/<game>/stream")
class GameStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.doc(parameters=[{"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
                          "description": "The id (seq) of the last event received: the stream goes on after it."}],
             responses={"200": {"description": (
                 "Server-Sent Events, one per event of the log: `id` the event's seq, `data` the event as "
                 "`GET /games/{game}/events` shows it (JSON). A comment `: heartbeat` every "
                 "STREAM_HEARTBEAT seconds (15 by default) while nothing happens."),
                 "content": {EVENT_STREAM: {"schema": {"type": "string"},
                                            "example": 'id: 12\ndata: {"seq": 12, "type": "played", ...}\n\n'}}}})
    def get(self, query: dict[str, Any], game: str) -> Response:
        """Follow the game's log as it grows (Server-Sent Events): every event after `Last-Event-ID` (or
        `after`), then each new one as it is appended, by any server process. A game share may follow its game."""
        token = reader()
        after = start_position(query)
        the_store = store()
        the_store.game(token.club_id, game)  # another club's game, or none: 404 now, before the stream starts
        follow = GameFollow(the_store, token.club_id, game, after, float(current_app.config["STREAM_HEARTBEAT"]))
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        if request.environ.get(HANDOFF_ENVIRON):  # the server's event loop carries it on (api.asgi)
            key = secrets.token_urlsafe(16)
            with _handed_lock:
                _handed[key] = follow
            return Response(b"", 200, {**headers, HANDOFF_HEADER: key}, mimetype=EVENT_STREAM)
        return Response(follow.frames(), 200, headers, mimetype=EVENT_STREAM, direct_passthrough=True)
