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
created (``game_started``), deal ended and game ended, at its position in the
club's feed (``club_feed``, written in the same transaction as the events,
gap-free and in commit order: see ``nj_ledger.store.writes.insert_feed``); the SSE
``id`` is that position and ``Last-Event-ID`` resumes after it, the same way.

A comment line (``: heartbeat``) is sent every ``STREAM_HEARTBEAT`` seconds
while nothing happens, so that proxies keep an idle stream open, and the log is
read again then (a lost wake-up delays an event by a heartbeat at most). A
stream ends after ``STREAM_LIFETIME`` seconds (an hour by default), once caught
up; the client reconnects with ``Last-Event-ID``, perhaps to another worker.

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
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Executor
from typing import Any, ClassVar

import orjson
from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from nj_ledger.store import Store
from nj_ledger.store.followers import EVENING_PREFIX
from nj_ledger.store.writes import club_key

from .auth import own_club, reader
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
_handed: dict[str, Follow] = {}  # streams handed over, by the header's key, until the server takes them
_handed_lock = threading.Lock()
_DIGITS = re.compile(r"[0-9]{1,18}")


# What each event of a stream is (the OpenAPI way to describe text/event-stream: one event's fields).
SSE_EVENT = {"type": "object", "required": ["id", "data"], "properties": {
    "id": {"type": "string", "pattern": "^[0-9]+$",
           "description": "The position: a game's seq, the club feed's, or an evening's decision's seq."},
    "event": {"type": "string", "enum": ["message"]},
    "data": {"type": "string", "description": "The item, JSON (a game's event as `…/events` shows it; a club "
                                              "feed's `{position, game, seq, deal, type, recorded_at}`; an "
                                              "evening's decision as `…/decisions` shows it)."},
    "retry": {"type": "integer"}}}


class StreamQuerySchema(Schema):
    after = fields.Integer(validate=validate.Range(0, MAX_INT), metadata={"description": (
        "Start after this seq, for a client that cannot send the `Last-Event-ID` header (which wins when both "
        "are sent).")})


def frame(position: int, item: dict[str, Any]) -> bytes:
    """One item as an SSE event: ``id`` its position, ``data`` the item (JSON, sorted keys).

    >>> frame(3, {"seq": 3, "type": "pass", "data": {"seat": 1}})
    b'id: 3\\ndata: {"data":{"seat":1},"seq":3,"type":"pass"}\\n\\n'
    """
    return b"id: %d\ndata: %s\n\n" % (position, orjson.dumps(item, option=orjson.OPT_SORT_KEYS))


def start_position(query: dict[str, Any]) -> int:
    """Where the stream starts: after ``Last-Event-ID``, else after ``?after=``, else at the log's start."""
    header = request.headers.get("Last-Event-ID")
    if header is not None and header.strip():
        if _DIGITS.fullmatch(header.strip()) is None or int(header) > MAX_INT:
            raise Problem(400, "invalid-header", "Last-Event-ID must be the id of an event of this stream "
                          "(a whole number), not {header!r}.", params={"header": header})
        return int(header)
    return int(query.get("after", 0))


class Follow:
    """One follower: what it follows (a game's log, or a club's feed), its position there (the last one
    sent) and how to read past it."""

    position_field = "seq"

    def __init__(self, store: Store, club_id: str, key: str, after: int, heartbeat: float,
                 lifetime: float = float("inf")) -> None:
        self.store = store
        self.club_id = club_id
        self.key = key  # what the followers' watcher wakes it for
        self.after = after
        self.heartbeat = heartbeat
        self.ends = time.monotonic() + lifetime  # then the stream ends: the client reconnects where it was

    def wait_for(self) -> float:
        """Seconds to wait for a wake-up before the next heartbeat (or the stream's end): 0 when it is over."""
        return max(0.0, min(self.heartbeat, self.ends - time.monotonic()))

    def fetch(self, after: int) -> list[dict[str, Any]]:
        """The items after ``after``, in order, at most :data:`PAGE`."""
        raise NotImplementedError

    def frames_of(self, items: list[dict[str, Any]]) -> bytes:
        """``items`` as SSE, moving the position past them."""
        if not items:
            return b""
        self.after = items[-1][self.position_field]
        return b"".join(frame(item[self.position_field], item) for item in items)

    def read(self) -> bytes:
        """The items after the position, as SSE, moving the position past them."""
        return self.frames_of(self.fetch(self.after))

    def opening(self) -> bytes:
        return b"retry: %d\n\n" % RETRY_MS

    def frames(self) -> Iterator[bytes]:
        """The stream for a WSGI server: it holds the thread that serves it until the client leaves."""
        woken = threading.Event()
        unfollow = self.store.followers.follow(self.key, woken.set)
        try:
            yield self.opening()
            while True:
                woken.clear()  # before reading: an append during the read wakes the next wait
                chunk = self.read()
                wait = self.wait_for()
                if chunk:
                    yield chunk
                elif not wait:
                    return
                elif not woken.wait(wait):
                    yield HEARTBEAT
        finally:
            unfollow()

    async def run(self, send: Callable[[bytes], Awaitable[None]], reads: Executor) -> None:
        """The stream on an event loop: no thread is held while it waits, reads run on ``reads``' threads.

        Followers of one game at the same position share each read (:func:`_shared_read`)."""
        woken = asyncio.Event()
        unfollow = _LoopFollowers.of(asyncio.get_running_loop()).follow(self.store, self.key, woken)
        try:
            await send(self.opening())
            while True:
                woken.clear()
                last, chunk = await _shared_read(self, reads)
                wait = self.wait_for()
                if chunk:
                    self.after = last
                    await send(chunk)
                    continue
                if not wait:
                    return
                try:
                    await asyncio.wait_for(woken.wait(), wait)
                except TimeoutError:
                    await send(HEARTBEAT)
        finally:
            unfollow()


class GameFollow(Follow):
    """A follower of a game's log: positions are seqs, items the events as ``…/events`` shows them."""

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.records(self.club_id, self.key, after, PAGE)


class ClubFollow(Follow):
    """A follower of a club's feed: positions are the feed's, items ``{position, game, seq, deal, type,
    recorded_at}``."""

    position_field = "position"

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.club_feed(self.club_id, after, PAGE)


class EveningFollow(Follow):
    """A follower of an evening's log: positions are the decisions' seqs, items the decisions as
    ``…/decisions`` shows them."""

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.evening_entries(self.club_id, self.key[len(EVENING_PREFIX):], after, PAGE)


class _LoopFollowers:
    """The streams of one event loop, by what they follow: the store's watcher wakes each group with one
    call into the loop, not one per stream."""

    _by_loop: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopFollowers]] = (
        weakref.WeakKeyDictionary())

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.groups: dict[tuple[int, str], set[asyncio.Event]] = {}
        self.unfollows: dict[tuple[int, str], Callable[[], None]] = {}

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> _LoopFollowers:
        if loop not in cls._by_loop:
            cls._by_loop[loop] = cls(loop)
        return cls._by_loop[loop]

    def follow(self, store: Store, key: str, woken: asyncio.Event) -> Callable[[], None]:
        group_key = (id(store), key)
        group = self.groups.get(group_key)
        if group is None:
            group = self.groups[group_key] = set()

            def wake() -> None:
                self.loop.call_soon_threadsafe(self._wake, group_key)

            self.unfollows[group_key] = store.followers.follow(key, wake)
        group.add(woken)

        def unfollow() -> None:
            group.discard(woken)
            if not group and self.groups.get(group_key) is group:
                del self.groups[group_key]
                self.unfollows.pop(group_key)()

        return unfollow

    def _wake(self, group_key: tuple[int, str]) -> None:
        for woken in self.groups.get(group_key, ()):
            woken.set()


def _read_and_frame(follow: Follow, after: int) -> tuple[int, bytes]:
    items = follow.fetch(after)
    if not items:
        return after, b""
    field = follow.position_field
    return items[-1][field], b"".join(frame(item[field], item) for item in items)


_reading: dict[tuple[int, str, str, int], asyncio.Future[tuple[int, bytes]]] = {}


async def _shared_read(follow: Follow, reads: Executor) -> tuple[int, bytes]:
    """The items after ``follow``'s position as SSE, and the position of the last: one read of the database
    for every follower of this loop at that position of that game or feed, framed once (a thousand followers
    woken by one append make one query, not a thousand)."""
    key = (id(follow.store), follow.club_id, follow.key, follow.after)
    pending = _reading.get(key)
    if pending is None:
        loop = asyncio.get_running_loop()
        pending = loop.run_in_executor(reads, _read_and_frame, follow, follow.after)
        _reading[key] = pending
        pending.add_done_callback(lambda _: _reading.pop(key, None))
    return await asyncio.shield(pending)


def take_handed(key: str) -> Follow | None:
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
                 "content": {EVENT_STREAM: {"schema": SSE_EVENT,
                                            "example": 'id: 12\ndata: {"seq": 12, "type": "play", ...}\n\n'}}}})
    def get(self, query: dict[str, Any], game: str) -> Response:
        """Follow the game's log as it grows (Server-Sent Events): every event after `Last-Event-ID` (or
        `after`), then each new one as it is appended, by any server process. A game share may follow its game."""
        token = reader()
        after = start_position(query)
        the_store = store()
        the_store.game(token.club_id, game)  # another club's game, or none: 404 now, before the stream starts
        return streamed(GameFollow(the_store, token.club_id, game, after, *_timing()))


@blp.route("/clubs/<club>/stream")
class ClubStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.doc(parameters=[{"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
                          "description": "The id (position) of the last item received: the stream goes on after "
                                         "it."}],
             responses={"200": {"description": (
                 "Server-Sent Events, one per item of the club's feed: `id` the item's position in the feed "
                 "(1, 2, 3… in the order they were recorded), `data` `{position, game, seq, deal, type, "
                 "recorded_at}` where `type` is `game_started` (a game created or imported), `deal_ended` or "
                 "`game_ended` and `seq` the event's seq in its game. A comment `: heartbeat` every "
                 "STREAM_HEARTBEAT seconds while nothing happens."),
                 "content": {EVENT_STREAM: {"schema": SSE_EVENT, "example": (
                     'id: 7\ndata: {"deal": 3, "game": "aB7DUYcmEB4B", "position": 7, "recorded_at": '
                     '"2026-11-24T05:16:41.059597Z", "seq": 58, "type": "deal_ended"}\n\n')}}}})
    def get(self, query: dict[str, Any], club: str) -> Response:
        """Follow the club's games (Server-Sent Events): every game created, deal ended and game ended after
        `Last-Event-ID` (or `after`), then each new one as it is recorded, by any server process."""
        token = reader()
        own_club(token, club)
        after = start_position(query)
        return streamed(ClubFollow(store(), token.club_id, club_key(token.club_id), after, *_timing()))


@blp.route("/clubs/<club>/evenings/<evening>/stream")
class EveningStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.doc(parameters=[{"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
                          "description": "The id (seq) of the last decision received: the stream goes on after "
                                         "it."}],
             responses={"200": {"description": (
                 "Server-Sent Events, one per decision of the evening's log: `id` its seq, `data` the decision as "
                 "`GET /clubs/{club}/evenings/{evening}/decisions` shows it (`{seq, type, data, by, recorded_at, "
                 "hash}`). A comment `: heartbeat` every STREAM_HEARTBEAT seconds while nothing happens."),
                 "content": {EVENT_STREAM: {"schema": SSE_EVENT, "example": (
                     'id: 5\ndata: {"by": {"role": "scorer"}, "data": {"through_round": 3}, "seq": 5, '
                     '"type": "leaderboard_frozen"}\n\n')}}}})
    def get(self, query: dict[str, Any], club: str, evening: str) -> Response:
        """Follow an evening's decisions (Server-Sent Events): rounds started, results confirmed, mends, the
        leaderboard frozen or revealed, the evening closed — after `Last-Event-ID` (or `after`), then each new one.
        With the club's stream (deals and games ended), what a big screen needs to redraw; an evening's share may
        follow it."""
        token = reader()
        own_club(token, club)
        after = start_position(query)
        the_store = store()
        the_store.evening_entries(token.club_id, evening, 0, 1)  # another club's evening, or none: 404 now
        return streamed(EveningFollow(the_store, token.club_id, EVENING_PREFIX + evening, after, *_timing()))


def _timing() -> tuple[float, float]:
    """The heartbeat and the lifetime of a stream, from the settings."""
    return float(current_app.config["STREAM_HEARTBEAT"]), float(current_app.config["STREAM_LIFETIME"])


def streamed(follow: Follow) -> Response:
    """The stream's answer: handed over to the server's event loop when there is one (api.asgi), else a
    generator that holds its thread."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if request.environ.get(HANDOFF_ENVIRON):
        key = secrets.token_urlsafe(16)
        with _handed_lock:
            _handed[key] = follow
        return Response(b"", 200, {**headers, HANDOFF_HEADER: key}, mimetype=EVENT_STREAM)
    return Response(follow.frames(), 200, headers, mimetype=EVENT_STREAM, direct_passthrough=True)
