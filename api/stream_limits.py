"""How many streams one client, and one credential, may keep open in a worker process.

Why. A stream lasts an hour, and each holds one of the worker's connections: 4,096
streams opened with one published share link filled a worker's places, and
``/api/v1/health`` went unanswered (0 answers of 12). So a worker lets each client
address (the real client behind the trusted proxies, :mod:`api.proxies`; an IPv6
one by its /64) hold ``STREAMS_PER_ADDRESS`` streams open at once, and each
credential (a token, a share link, a table's token) ``STREAMS_PER_CREDENTIAL``,
from whatever addresses. Past either: 429 ``too-many-streams`` with
``Retry-After``, before the stream starts.

The defaults fit a club playing behind one router: forty phones each following a
game, the organiser's screens following the club and the evening, a second tab
here and there (64 per address); and a share link published to a room of
spectators from many addresses (128). A stream is counted from the moment the app
accepts it until it ends, or until the server drops it unstarted (a ``HEAD``, a
client gone before the head was sent): whatever the way out, its place is given
back (:meth:`OpenStreams.admit`).
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from typing import Any

from flask import current_app

from .problems import Problem

EXTENSION = "nj_ledger.open_streams"
RETRY_AFTER = 10  # seconds: a place frees when one of the client's streams ends, or when it closes one


class Held:
    """One stream's places (its address's and its credential's), given back once, by :meth:`release`."""

    def __init__(self, streams: OpenStreams, address: str, credential: str) -> None:
        self.streams, self.address, self.credential = streams, address, credential
        self.released = False

    def release(self) -> None:
        self.streams.release(self)


class OpenStreams:
    """The streams open in this worker, by client address and by credential."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_address: Counter[str] = Counter()
        self.by_credential: Counter[str] = Counter()

    def admit(self, owner: Any, address: str, credential: str, per_address: int, per_credential: int) -> None:
        """Count the stream ``owner`` in for ``address`` and ``credential`` until it is released (its
        ``release()``), or else until ``owner`` is collected; 429 ``too-many-streams`` past either limit."""
        with self.lock:
            if self.by_address[address] >= per_address:
                raise too_many_streams(True, per_address)
            if self.by_credential[credential] >= per_credential:
                raise too_many_streams(False, per_credential)
            self.by_address[address] += 1
            self.by_credential[credential] += 1
        held = Held(self, address, credential)
        owner.release = weakref.finalize(owner, held.release)  # called by its end, or by its collection

    def release(self, held: Held) -> None:
        with self.lock:
            if held.released:
                return
            held.released = True
            for counts, key in ((self.by_address, held.address), (self.by_credential, held.credential)):
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]

    def count(self, address: str | None = None, credential: str | None = None) -> int:
        """The streams open in this worker for ``address``, or for ``credential``."""
        with self.lock:
            return self.by_address[address] if address is not None else self.by_credential[credential or ""]


def too_many_streams(by_address: bool, limit: int) -> Problem:
    """The 429 of a stream past its address's limit (``by_address``) or its credential's."""
    return Problem(429, "too-many-streams", (
        "This address has {limit} streams open on this server already, the most it may: close one, or try again "
        "in {seconds} seconds." if by_address else
        "This token or share link has {limit} streams open on this server already, the most it may: close one, "
        "or try again in {seconds} seconds."), params={"limit": limit, "seconds": RETRY_AFTER},
        headers={"Retry-After": str(RETRY_AFTER)})


def open_streams() -> OpenStreams:
    """The app's count of its open streams (one app per worker process)."""
    found: OpenStreams = current_app.extensions.setdefault(EXTENSION, OpenStreams())
    return found


def admit(owner: Any, address: str, credential: str) -> None:
    """Count the stream ``owner`` in under the app's limits (``STREAMS_PER_ADDRESS``, ``STREAMS_PER_CREDENTIAL``),
    or refuse it (429)."""
    config = current_app.config
    open_streams().admit(owner, address, credential, int(config["STREAMS_PER_ADDRESS"]),
                         int(config["STREAMS_PER_CREDENTIAL"]))
