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

Who wakes a stream: :mod:`nj_ledger.store.followers` (PostgreSQL's
LISTEN/NOTIFY from every process and host, or a short poll on SQLite). Where it
runs: served by granian's ASGI workers (:mod:`api.asgi`), a stream is a
coroutine of the worker's event loop that holds no thread; the view below only
checks the caller and hands the stream over. Under a WSGI server (Flask's test
client) the stream is a generator that holds its thread while it lasts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
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

from . import metrics
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
# Seconds the streams' work waits for the requests in flight in the process to be answered, at most
WRITERS_FIRST = 0.025
# Seconds a channel waits after a notification before it reads: the appending process (this one or another)
# answers its writer before the followers' work starts, and appends that close together are read at once
SETTLE = 0.005
BATCH = 64  # followers written to between two looks at the requests that came meanwhile
_log = logging.getLogger(__name__)


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
    kind = "game"  # what it follows, as the metrics count open streams (api.metrics)

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
        closed = metrics.follower(self.kind)
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
            closed()
            unfollow()

    async def run(self, send: Callable[[bytes], Awaitable[None]], reads: Executor) -> None:
        """The stream on an event loop: no thread is held while it waits, and it neither reads nor sends by
        itself.

        The follower joins its game's (or feed's) channel on this loop (:class:`_Channel`), which reads the
        log once per position for every follower there, frames each event once and writes the same bytes to
        each follower's connection; this coroutine only waits for the stream to be over."""
        loop = asyncio.get_running_loop()
        closed = metrics.follower(self.kind)
        try:
            await send(self.opening())
            member = _Member(self, send, loop)
            leave = _Channels.of(loop).join(member, reads)
            try:
                await member.over
            finally:
                leave()
                member.stop()
        finally:
            closed()


class GameFollow(Follow):
    """A follower of a game's log: positions are seqs, items the events as ``…/events`` shows them."""

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.records(self.club_id, self.key, after, PAGE)


class ClubFollow(Follow):
    """A follower of a club's feed: positions are the feed's, items ``{position, game, seq, deal, type,
    recorded_at}``."""

    position_field = "position"
    kind = "club"

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.club_feed(self.club_id, after, PAGE)


class EveningFollow(Follow):
    """A follower of an evening's log: positions are the decisions' seqs, items the decisions as
    ``…/decisions`` shows them."""

    kind = "evening"

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.evening_entries(self.club_id, self.key[len(EVENING_PREFIX):], after, PAGE)


class TableFollow(EveningFollow):
    """A table's phone following its evening: one item per decision, only its ``{seq, type, recorded_at}`` —
    enough to read the table's view again at once (a round started, a result confirmed, the evening closed),
    nothing of the director's decisions that the table's token may not read."""

    kind = "table"

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return [{"seq": item["seq"], "type": item["type"], "recorded_at": item["recorded_at"]}
                for item in super().fetch(after)]


class _Member:
    """One follower on its channel, and its connection: the channel writes to it directly (a send the server
    takes at once, as it does unless the client is far behind, costs no turn of the event loop); a send the
    client is slow to take goes on in a task of its own, and what comes meanwhile waits behind it."""

    __slots__ = ("backlog", "ended", "follow", "loop", "over", "quiet_since", "send", "sending")

    def __init__(self, follow: Follow, send: Callable[[bytes], Awaitable[None]],
                 loop: asyncio.AbstractEventLoop) -> None:
        self.follow, self.send, self.loop = follow, send, loop
        self.over: asyncio.Future[None] = loop.create_future()  # the stream is over: ended, or its connection failed
        self.sending: asyncio.Task[None] | None = None  # a send the client has not taken yet
        self.backlog: list[bytes] = []  # what came while it was taking it
        self.quiet_since = time.monotonic()  # when it was last sent something (for its heartbeats)
        self.ended = False

    def give(self, chunk: bytes | None) -> None:
        """Send ``chunk`` after what was sent before (None: end the stream once that is sent)."""
        if self.over.done():
            return
        if chunk is None:
            self.ended = True
            if self.sending is None:
                self.over.set_result(None)
            return
        self.quiet_since = time.monotonic()
        if self.sending is not None:
            self.backlog.append(chunk)
            return
        try:
            rest = _started(self.send(chunk))
        except Exception as error:  # noqa: BLE001 - the connection failed: this stream is over
            self.over.set_exception(error)
            return
        if rest is not None:
            self.sending = self.loop.create_task(self._finish(rest))

    async def _finish(self, rest: Awaitable[None]) -> None:
        try:
            await rest
            while self.backlog:
                chunk = b"".join(self.backlog)
                self.backlog.clear()
                await self.send(chunk)
        except Exception as error:  # noqa: BLE001 - the connection failed: this stream is over
            if not self.over.done():
                self.over.set_exception(error)
            return
        self.sending = None
        if self.ended and not self.over.done():
            self.over.set_result(None)

    def stop(self) -> None:
        if self.sending is not None:
            self.sending.cancel()


class _Rest:
    """What is left of an awaitable started by :func:`_started`, to await."""

    def __init__(self, steps: Any, first: Any) -> None:
        self.steps, self.first = steps, first

    def __await__(self) -> Any:
        try:
            yield self.first
        except BaseException:
            self.steps.close()
            raise
        return (yield from self.steps)


def _started(awaitable: Awaitable[None]) -> _Rest | None:
    """Run ``awaitable`` until it first waits: None if it finished there, else what is left of it."""
    steps = awaitable.__await__()
    try:
        first = steps.send(None)
    except StopIteration:
        return None
    return _Rest(steps, first)


class _Channel:
    """The followers of one game (or one club's feed) on one event loop.

    One coroutine does the work for all of them: woken by the process's watcher (one call into the loop
    per notification, however many follow), it waits until the writers' requests in flight in this process
    are answered (:data:`writers`), reads the log once per position the followers are at (usually one:
    they all sent the same events), frames each event once, and hands the same bytes to every follower at
    that position. It also reads the log at each heartbeat (a lost wake-up costs a heartbeat at most), sends
    the heartbeats, and ends the streams past their lifetime."""

    def __init__(self, channels: _Channels, name: tuple[Any, ...], store: Store, key: str, reads: Executor) -> None:
        self.channels, self.name, self.reads = channels, name, reads
        self.loop = channels.loop
        self.members: set[_Member] = set()
        self.woken = asyncio.Event()
        self.told = False  # a wake-up is on its way into the loop already (several notifications: one call)
        self.notified = False  # woken by an append (not by a follower joining): let its writer answer first
        self.unfollow = store.followers.follow(key, self._wake_from_watcher)
        self.task = self.loop.create_task(self._run())

    def _wake_from_watcher(self) -> None:  # on the watcher's thread
        if not self.told:
            self.told = True
            self.loop.call_soon_threadsafe(self._woken)

    def _woken(self) -> None:
        self.told = False
        self.notified = True
        self.woken.set()

    def add(self, member: _Member) -> None:
        self.members.add(member)
        self.woken.set()  # its first read: the log after its position

    def remove(self, member: _Member) -> None:
        self.members.discard(member)
        if not self.members:
            self.close()

    def close(self) -> None:
        if self.channels.channels.get(self.name) is self:
            del self.channels.channels[self.name]
        self.unfollow()
        self.task.cancel()

    async def _run(self) -> None:
        try:
            await self._serve()
        except Exception:  # noqa: BLE001 - a fault of the channel: its streams end, their clients come back
            _log.exception("a stream channel failed; its followers will reconnect")
            for member in list(self.members):
                member.give(None)

    async def _serve(self) -> None:
        while self.members:
            try:
                await asyncio.wait_for(self.woken.wait(), self._until_next_tick())
            except TimeoutError:
                pass  # a heartbeat, or a stream's end: read the log anyway
            if self.notified:  # the writer's answer leaves first, from whichever process; appends close
                self.notified = False  # together are read together
                await asyncio.sleep(SETTLE)
            self.woken.clear()
            await writers.answered(WRITERS_FIRST)
            try:
                await self._round()
            except Exception:  # noqa: BLE001 - the database failed: the streams end, their clients come back
                _log.warning("a stream could not read the log; its followers will reconnect", exc_info=True)
                for member in list(self.members):
                    member.give(None)

    def _until_next_tick(self) -> float:
        """Seconds until a follower needs a heartbeat or its stream ends."""
        now = time.monotonic()
        ticks = [min(member.quiet_since + member.follow.heartbeat, member.follow.ends)
                 for member in self.members if not member.ended]
        return max(0.0, min(ticks) - now) if ticks else 3600.0

    async def _round(self) -> None:
        """Read the log after each position a follower is at, and hand each its events; then heartbeats and
        ends."""
        full = True
        while full:  # a page was full: read on after it
            full = False
            groups: dict[int, list[_Member]] = {}
            for member in self.members:
                if not member.ended:
                    groups.setdefault(member.follow.after, []).append(member)
            for position, group in groups.items():
                count, last, chunk = await self.loop.run_in_executor(
                    self.reads, _read_and_frame, group[0].follow, position)
                full = full or count >= PAGE
                for number, member in enumerate(group if chunk else (), 1):
                    member.follow.after = last
                    member.give(chunk)
                    if number % BATCH == 0:  # a writer's request that came meanwhile goes first
                        await asyncio.sleep(0)
                        await writers.answered(WRITERS_FIRST)
        now = time.monotonic()
        for member in self.members:
            if member.ended:
                continue
            if member.follow.ends <= now:
                member.give(None)  # after what it was handed: the client reconnects where it was
            elif now - member.quiet_since >= member.follow.heartbeat:
                member.give(HEARTBEAT)


class _Channels:
    """The channels of one event loop, by what they follow."""

    _by_loop: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Channels]] = (
        weakref.WeakKeyDictionary())

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.channels: dict[tuple[Any, ...], _Channel] = {}

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> _Channels:
        if loop not in cls._by_loop:
            cls._by_loop[loop] = cls(loop)
        return cls._by_loop[loop]

    def join(self, member: _Member, reads: Executor) -> Callable[[], None]:
        """Put ``member`` on its channel (made if it is the first); the function returned takes it off."""
        follow = member.follow
        name = (id(follow.store), type(follow), follow.club_id, follow.key)
        channel = self.channels.get(name)
        if channel is None or channel.task.done():  # none yet, or one that failed and is emptying
            if channel is not None:
                channel.unfollow()
            channel = self.channels[name] = _Channel(self, name, follow.store, follow.key, reads)
        channel.add(member)
        return lambda: channel.remove(member)


def _read_and_frame(follow: Follow, after: int) -> tuple[int, int, bytes]:
    """How many items there are after ``after`` (at most :data:`PAGE`), the position of the last, and
    them as SSE."""
    items = follow.fetch(after)
    if not items:
        return 0, after, b""
    field = follow.position_field
    return len(items), items[-1][field], b"".join(frame(item[field], item) for item in items)


class WritersInFlight:
    """The requests other than streams that this process is serving: the streams' work waits until they are
    answered (at most ``WRITERS_FIRST`` seconds), so that a scorer's append is answered before the
    process spends its turn at the interpreter lock and its event loop writing the append to its followers.
    Counted on the event loop (:mod:`api.asgi`)."""

    def __init__(self) -> None:
        self.busy = 0
        self._waiting: list[asyncio.Future[None]] = []

    def enter(self) -> None:
        self.busy += 1

    def leave(self) -> None:
        self.busy -= 1
        if not self.busy:
            for waiting in self._waiting:
                if not waiting.done():
                    waiting.set_result(None)
            self._waiting.clear()

    async def answered(self, longest: float) -> None:
        """Return once no request is in flight, or after ``longest`` seconds."""
        if not self.busy:
            return
        waiting = asyncio.get_running_loop().create_future()
        self._waiting.append(waiting)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiting, longest)
        finally:
            if waiting in self._waiting:  # timed out: busy all along
                self._waiting.remove(waiting)


writers = WritersInFlight()


def take_handed(key: str) -> Follow | None:
    """The stream a view handed over under ``key`` (once)."""
    with _handed_lock:
        return _handed.pop(key, None)


def last_event_id(what: str, id_is: str) -> dict[str, Any]:
    """The ``Last-Event-ID`` header of a stream's OpenAPI description: where a reconnecting follower goes on."""
    return {"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
            "description": f"The id ({id_is}) of the last {what} received: the stream goes on after it."}


@blp.route("/games/<game>/stream")
class GameStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.doc(parameters=[last_event_id("event", "seq")],
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
    @blp.doc(parameters=[last_event_id("item", "position")],
             responses={"200": {"description": (
                 "Server-Sent Events, one per item of the club's feed: `id` the item's position in the feed "
                 "(1, 2, 3… in the order they were recorded), `data` `{position, game, seq, deal, type, "
                 "recorded_at}` where `type` is `game_started` (a game created or imported), `deal_ended`, "
                 "`game_ended`, `deal_undone` (an undo withdrew the deal's settlement: the deal is being played "
                 "again) or `game_reopened` (that settlement had ended the game: it is no longer ended; told "
                 "right after its `deal_undone`, at the same seq), and `seq` the event's seq in its game (the "
                 "undo's, for the last two). A comment `: heartbeat` every STREAM_HEARTBEAT seconds while "
                 "nothing happens."),
                 "content": {EVENT_STREAM: {"schema": SSE_EVENT, "example": (
                     'id: 7\ndata: {"deal": 3, "game": "aB7DUYcmEB4B", "position": 7, "recorded_at": '
                     '"2026-11-24T05:16:41.059597Z", "seq": 58, "type": "deal_ended"}\n\n')}}}})
    def get(self, query: dict[str, Any], club: str) -> Response:
        """Follow the club's games (Server-Sent Events): every game created, deal ended and game ended, and every
        deal's or game's end an undo withdrew, after `Last-Event-ID` (or `after`), then each new one as it is
        recorded, by any server process."""
        token = reader()
        own_club(token, club)
        after = start_position(query)
        return streamed(ClubFollow(store(), token.club_id, club_key(token.club_id), after, *_timing()))


@blp.route("/clubs/<club>/evenings/<evening>/stream")
class EveningStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.doc(parameters=[last_event_id("decision", "seq")],
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


@blp.route("/tables/<code>/stream")
class TableStream(MethodView):
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.doc(parameters=[last_event_id("decision", "seq")],
             responses={"200": {"description": (
                 "Server-Sent Events, one per decision of the table's evening: `id` its seq, `data` "
                 "`{seq, type, recorded_at}` (what was decided is read from `GET /tables/{code}`). A comment "
                 "`: heartbeat` every STREAM_HEARTBEAT seconds while nothing happens."),
                 "content": {EVENT_STREAM: {"schema": SSE_EVENT, "example": (
                     'id: 4\ndata: {"recorded_at": "2026-11-26T19:40:02.118204Z", "seq": 4, '
                     '"type": "round_started"}\n\n')}}}})
    def get(self, query: dict[str, Any], code: str) -> Response:
        """Follow a table's evening (Server-Sent Events): each decision's kind as it is recorded — a round
        started, a result confirmed, the evening closed — so that the table's phone reads its view again at
        once. Open to the table's token and to the club's tokens."""
        token = reader()
        after = start_position(query)
        the_store = store()
        evening, _table = the_store.table_by_code(token.club_id, code)  # none in this club: 404 now
        return streamed(TableFollow(the_store, token.club_id, EVENING_PREFIX + evening, after, *_timing()))


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
