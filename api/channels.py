"""The streams of one event loop (:mod:`api.asgi`): one channel per game, club feed or evening, and the credentials
their followers were let in with.

A channel is one coroutine for all the followers of one log in a worker: woken
by the process's watcher of the database (:mod:`nj_ledger.store.followers`), it
reads the log once per position its followers are at, frames each event once
and writes the same bytes to each follower's connection (docs/STREAMS.md, the
serving model).

Revocation. A token or a share revoked ends every stream it opened, on every
process, within a second: each loop follows the credentials of its streams
(``credential:<kind>:<id>``) as it follows the logs, and a revocation wakes them
(PostgreSQL's ``NOTIFY`` from the revoking transaction, SQLite's poll); the
channel asks the database again whether the credential is in use, and if not,
sends :data:`REVOKED` and ends those streams. A notification can be lost (the
listening connection broken, a row changed by hand): so a channel also asks
again, before it sends a follower anything (an event or a heartbeat), when the
credential was last found in use more than :data:`CHECK_EVERY` ago. The client
reconnects, and is answered 401 as on every route.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import orjson

from .writers_first import WRITERS_FIRST, writers

if TYPE_CHECKING:
    from nj_ledger.store import Store

PAGE = 500  # items read from a log at a time
HEARTBEAT = b": heartbeat\n\n"
REVOKED = b": revoked\n\n"  # the last words of a stream whose token or share was revoked
# Seconds a credential found in use is believed before a follower is sent more: the longest a revocation whose
# notification was lost goes unseen by a stream that is sent something (its heartbeats included).
CHECK_EVERY = 1.0
# Seconds a channel waits after a notification before it reads: the appending process (this one or another)
# answers its writer before the followers' work starts, and appends that close together are read at once
SETTLE = 0.005
BATCH = 64  # followers written to between two looks at the requests that came meanwhile
_log = logging.getLogger(__name__)


def frame(position: int, item: dict[str, Any]) -> bytes:
    """One item as an SSE event: ``id`` its position, ``data`` the item (JSON, sorted keys).

    >>> frame(3, {"seq": 3, "type": "pass", "data": {"seat": 1}})
    b'id: 3\\ndata: {"data":{"seat":1},"seq":3,"type":"pass"}\\n\\n'
    """
    return b"id: %d\ndata: %s\n\n" % (position, orjson.dumps(item, option=orjson.OPT_SORT_KEYS))


class Follow(Protocol):
    """What a channel needs of one follower (:class:`api.stream_engine.Follow` is the one kind there is): what it
    follows (``store``, ``club_id``, ``key``), its position there, how to read past it, its timing and its
    credential."""

    store: Store
    club_id: str
    key: str
    after: int
    heartbeat: float
    opened: float
    ends: float
    credential: str | None
    position_field: str

    def fetch(self, after: int) -> list[dict[str, Any]]: ...

    def framed(self, items: list[dict[str, Any]]) -> bytes: ...


class Member:
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
    are answered (:data:`writers`), asks again about the followers' credentials that are due
    (:meth:`_check_credentials`), reads the log once per position the followers are at (usually one: they all
    sent the same events), frames each event once, and hands the same bytes to every follower at that
    position. It also reads the log at each heartbeat (a lost wake-up costs a heartbeat at most), sends the
    heartbeats, and ends the streams past their lifetime."""

    def __init__(self, channels: Channels, name: tuple[Any, ...], follow: Follow, reads: Executor) -> None:
        self.channels, self.name, self.reads = channels, name, reads
        self.loop = channels.loop
        self.followers = follow.store.db.followers
        self.members: set[Member] = set()
        self.woken = asyncio.Event()
        self.told = False  # a wake-up is on its way into the loop already (several notifications: one call)
        self.notified = False  # woken by an append (not by a follower joining): let its writer answer first
        self.checked: dict[str, float] = {}  # credential -> when it was last found in use
        self.suspects: set[str] = set()  # credentials whose revocation was announced: asked again at once
        self.unfollow = self.followers.follow(follow.key, self._wake_from_watcher)
        self.task = self.loop.create_task(self._run())

    def _wake_from_watcher(self) -> None:  # on the watcher's thread
        if not self.told:
            self.told = True
            self.loop.call_soon_threadsafe(self._woken)

    def _woken(self) -> None:
        self.told = False
        self.notified = True
        self.woken.set()

    def suspect(self, credential: str) -> None:
        """``credential`` may have been revoked: ask before anything more is sent to its followers."""
        if any(member.follow.credential == credential for member in self.members):
            self.suspects.add(credential)
            self.woken.set()

    def add(self, member: Member) -> None:
        self.members.add(member)
        credential = member.follow.credential
        if credential is not None:  # the view found it in use when it let the follower in
            self.checked[credential] = max(self.checked.get(credential, 0.0), member.follow.opened)
        self.woken.set()  # its first read: the log after its position

    def remove(self, member: Member) -> None:
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
                await self._check_credentials()
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

    async def _check_credentials(self) -> None:
        """Ask the database about the credentials announced revoked, and those found in use more than
        :data:`CHECK_EVERY` ago (one query for them all); end the streams of those no longer in use."""
        now = time.monotonic()
        held = {credential for member in self.members
                if not member.ended and (credential := member.follow.credential) is not None}
        due = {credential for credential in held
               if credential in self.suspects or now - self.checked.get(credential, 0.0) >= CHECK_EVERY}
        self.suspects.clear()
        self.checked = {credential: when for credential, when in self.checked.items() if credential in held}
        if not due:
            return
        revoked = await self.loop.run_in_executor(self.reads, self.followers.revoked, due)
        for credential in due - revoked:
            self.checked[credential] = now
        for member in list(self.members):
            if member.follow.credential in revoked and not member.ended:
                member.give(REVOKED)
                member.give(None)

    async def _round(self) -> None:
        """Read the log after each position a follower is at, and hand each its events; then heartbeats and
        ends."""
        full = True
        while full:  # a page was full: read on after it
            full = False
            groups: dict[int, list[Member]] = {}
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


class Channels:
    """The channels of one event loop, by what they follow, and the credentials their followers hold."""

    _by_loop: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Channels]] = (
        weakref.WeakKeyDictionary())

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.channels: dict[tuple[Any, ...], _Channel] = {}
        self.credentials: dict[tuple[int, str], tuple[int, Callable[[], None]]] = {}  # -> followers, unfollow

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> Channels:
        if loop not in cls._by_loop:
            cls._by_loop[loop] = cls(loop)
        return cls._by_loop[loop]

    def join(self, member: Member, reads: Executor) -> Callable[[], None]:
        """Put ``member`` on its channel (made if it is the first); the function returned takes it off."""
        follow = member.follow
        name = (id(follow.store), type(follow), follow.club_id, follow.key)
        channel = self.channels.get(name)
        if channel is None or channel.task.done():  # none yet, or one that failed and is emptying
            if channel is not None:
                channel.unfollow()
            channel = self.channels[name] = _Channel(self, name, follow, reads)
        channel.add(member)
        forget = self._watch(follow)

        def leave() -> None:
            channel.remove(member)
            forget()

        return leave

    def _watch(self, follow: Follow) -> Callable[[], None]:
        """Follow the credential of ``follow`` (once per credential on this loop) while a follower holds it."""
        credential = follow.credential
        if credential is None:
            return lambda: None
        key = (id(follow.store), credential)
        held, unfollow = self.credentials.get(key, (0, None))
        if unfollow is None:
            def announced() -> None:  # on the watcher's thread
                self.loop.call_soon_threadsafe(self._suspect, credential)

            unfollow = follow.store.db.followers.follow(credential, announced)
        self.credentials[key] = (held + 1, unfollow)

        def forget() -> None:
            count, stop = self.credentials.pop(key, (1, lambda: None))
            if count > 1:
                self.credentials[key] = (count - 1, stop)
            else:
                stop()

        return forget

    def _suspect(self, credential: str) -> None:
        for channel in list(self.channels.values()):
            channel.suspect(credential)


def _read_and_frame(follow: Follow, after: int) -> tuple[int, int, bytes]:
    """How many items there are after ``after`` (at most :data:`PAGE`), the position of the last, and
    them as SSE."""
    items = follow.fetch(after)
    if not items:
        return 0, after, b""
    return len(items), items[-1][follow.position_field], follow.framed(items)
