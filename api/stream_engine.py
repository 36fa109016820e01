"""How a stream runs, whatever it follows (the routes are in :mod:`api.streams`): a follower of a log (a game's,
a club's feed, an evening's, a table's evening), its position there, how it reads past it and frames what it reads
as Server-Sent Events, and a stream a view hands over to the server's event loop.

Who wakes a stream: :mod:`nj_ledger.store.followers` (PostgreSQL's
LISTEN/NOTIFY from every process and host, or a short poll on SQLite). Where it
runs: served by granian's ASGI workers (:mod:`api.asgi`), a stream is a
coroutine of the worker's event loop that holds no thread, on its channel
(:mod:`api.channels`); the view only checks the caller and hands the stream
over. Under a WSGI server (Flask's test client) the stream is a generator that
holds its thread while it lasts.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Executor
from typing import Any

from marshmallow import fields, validate

from nj_ledger.store import Store
from nj_ledger.store.followers import EVENING_PREFIX
from nj_ledger.store.writes import DEAL_UNDONE, FEED_TYPES, GAME_REOPENED

from . import metrics
from .channels import CHECK_EVERY, HEARTBEAT, PAGE, REVOKED, Channels, Member, frame
from .dumping import ViewSchema
from .evening_decisions import DecisionSchema
from .schemas import RecordSchema

RETRY_MS = 2000  # how long a browser's EventSource waits before it reconnects
# The environ key an ASGI server sets when its event loop carries the stream on (api.asgi), and the response
# header through which the view hands the stream over (removed before the answer leaves the server).
HANDOFF_ENVIRON = "nj_ledger.stream_handoff"
HANDOFF_HEADER = "X-NJ-Ledger-Stream"
_handed: dict[str, Follow] = {}  # streams handed over, by the header's key, until the server takes them
_handed_lock = threading.Lock()


class FeedItemSchema(ViewSchema):
    """An item of a club's feed."""

    position = fields.Integer(metadata={"description": "Its place in the feed: 1, 2, 3… in the order recorded."})
    game = fields.String()
    seq = fields.Integer(metadata={"description": "The event's seq in its game (the undo's, for the last two "
                                                  "types)."})
    deal = fields.Integer(allow_none=True)
    type = fields.String(validate=validate.OneOf(sorted({*FEED_TYPES, DEAL_UNDONE, GAME_REOPENED})))
    recorded_at = fields.String()


class TableItemSchema(ViewSchema):
    """A decision of a table's evening, as its table's phone is told it."""

    seq = fields.Integer()
    type = fields.String()
    recorded_at = fields.String()


class Follow:
    """One follower: what it follows (a game's log, or a club's feed), its position there (the last one
    sent), how to read past it, the schema its items are sent through, and the credential it was let in with."""

    position_field = "seq"
    schema: ViewSchema = RecordSchema()
    kind = "game"  # what it follows, as the metrics count open streams (api.metrics)

    def __init__(self, store: Store, club_id: str, key: str, after: int, heartbeat: float,
                 lifetime: float = float("inf"), credential: str | None = None) -> None:
        self.store = store
        self.club_id = club_id
        self.key = key  # what the followers' watcher wakes it for
        self.after = after
        self.heartbeat = heartbeat
        self.opened = time.monotonic()  # when its credential was last found in use: as the view let it in
        self.ends = self.opened + lifetime  # then the stream ends: the client reconnects where it was
        self.credential = credential  # its followers' key (credential_key): the stream ends once it is revoked
        self.release: Callable[[], object] = _nothing  # gives its places back (api.stream_limits)

    def wait_for(self) -> float:
        """Seconds to wait for a wake-up before the next heartbeat (or the stream's end): 0 when it is over."""
        return max(0.0, min(self.heartbeat, self.ends - time.monotonic()))

    def fetch(self, after: int) -> list[dict[str, Any]]:
        """The items after ``after``, in order, at most :data:`PAGE`."""
        raise NotImplementedError

    def framed(self, items: list[dict[str, Any]]) -> bytes:
        """``items`` as SSE, each dumped through the follower's schema."""
        dump, field = self.schema.dump, self.position_field
        return b"".join(frame(item[field], dump(item)) for item in items)

    def frames_of(self, items: list[dict[str, Any]]) -> bytes:
        """``items`` as SSE, moving the position past them."""
        if not items:
            return b""
        self.after = items[-1][self.position_field]
        return self.framed(items)

    def read(self) -> bytes:
        """The items after the position, as SSE, moving the position past them."""
        return self.frames_of(self.fetch(self.after))

    def opening(self) -> bytes:
        return b"retry: %d\n\n" % RETRY_MS

    def frames(self) -> Iterator[bytes]:
        """The stream for a WSGI server: it holds the thread that serves it until the client leaves (or its
        credential is revoked: asked again as on the event loop, :mod:`api.channels`)."""
        woken, suspect = threading.Event(), threading.Event()
        checked = self.opened

        def announced() -> None:  # on the watcher's thread
            suspect.set()
            woken.set()

        def revoked() -> bool:
            nonlocal checked
            if self.credential is None or not (suspect.is_set() or time.monotonic() - checked >= CHECK_EVERY):
                return False
            suspect.clear()
            now = time.monotonic()
            if self.store.db.followers.revoked([self.credential]):
                return True
            checked = now
            return False

        unfollow = self.store.db.followers.follow(self.key, woken.set)
        unwatch = self.store.db.followers.follow(self.credential, announced) if self.credential else _nothing
        closed = metrics.follower(self.kind)
        try:
            yield self.opening()
            while True:
                woken.clear()  # before reading: an append during the read wakes the next wait
                if revoked():
                    yield REVOKED
                    return
                chunk = self.read()
                wait = self.wait_for()
                if chunk:
                    yield chunk
                elif not wait:
                    return
                elif not woken.wait(wait):
                    if revoked():
                        yield REVOKED
                        return
                    yield HEARTBEAT
        finally:
            closed()
            unwatch()
            unfollow()
            self.release()

    async def run(self, send: Callable[[bytes], Awaitable[None]], reads: Executor) -> None:
        """The stream on an event loop: no thread is held while it waits, and it neither reads nor sends by
        itself.

        The follower joins its game's (or feed's) channel on this loop (:mod:`api.channels`), which reads the
        log once per position for every follower there, frames each event once and writes the same bytes to
        each follower's connection, and ends the streams of a credential revoked; this coroutine only waits
        for the stream to be over."""
        loop = asyncio.get_running_loop()
        closed = metrics.follower(self.kind)
        try:
            await send(self.opening())
            member = Member(self, send, loop)
            leave = Channels.of(loop).join(member, reads)
            try:
                await member.over
            finally:
                leave()
                member.stop()
        finally:
            closed()
            self.release()


class GameFollow(Follow):
    """A follower of a game's log: positions are seqs, items the events as ``…/events`` shows them."""

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.games.records(self.club_id, self.key, after, PAGE)


class ClubFollow(Follow):
    """A follower of a club's feed: positions are the feed's, items ``{position, game, seq, deal, type,
    recorded_at}``."""

    position_field = "position"
    kind = "club"
    schema = FeedItemSchema()

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.games.club_feed(self.club_id, after, PAGE)


class EveningFollow(Follow):
    """A follower of an evening's log: positions are the decisions' seqs, items the decisions as
    ``…/decisions`` shows them."""

    kind = "evening"
    schema: ViewSchema = DecisionSchema()

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return self.store.evenings.evening_entries(self.club_id, self.key[len(EVENING_PREFIX):], after, PAGE)


class TableFollow(EveningFollow):
    """A table's phone following its evening: one item per decision, only its ``{seq, type, recorded_at}`` —
    enough to read the table's view again at once (a round started, a result confirmed, the evening closed),
    nothing of the director's decisions that the table's token may not read."""

    kind = "table"
    schema = TableItemSchema()

    def fetch(self, after: int) -> list[dict[str, Any]]:
        return [{"seq": item["seq"], "type": item["type"], "recorded_at": item["recorded_at"]}
                for item in super().fetch(after)]


def take_handed(key: str) -> Follow | None:
    """The stream a view handed over under ``key`` (once)."""
    with _handed_lock:
        return _handed.pop(key, None)


def hand_over(follow: Follow) -> str:
    """The key under which the server's event loop takes ``follow`` on (:func:`take_handed`)."""
    key = secrets.token_urlsafe(16)
    with _handed_lock:
        _handed[key] = follow
    return key


def _nothing() -> None:
    """Nothing to give back, or to stop."""
