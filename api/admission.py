"""Admitting a request on the event loop, before the app sees it: who may send a body, how fast, how many at once.

Why. On the open internet anyone can open connections to a club's server. A
body read whole before the token was checked, with no deadline, let 1,200
connections that each sent half of a 2 MB body, with no token at all, take a
worker from 386 MB to 3.7 GB. So, in :mod:`api.asgi`:

- **The credential first.** A body longer than :data:`SMALL_BODY`, or of a
  length not told (chunked), is read only once the app's checks before a view
  (:func:`api.auth.guard`: the token, its club, a share's or a table's reach;
  the content type; a declared length past ``MAX_CONTENT_LENGTH``) have accepted
  the request without it and found a credential (:func:`admit`,
  :func:`credentialed`: the open routes and the pages take no such body).
  Anyone else is answered at once (401, 403, 404, 413, 415…), and what they go
  on sending is read and dropped, :data:`DRAIN_LIMIT` bytes and
  :data:`DRAIN_SECONDS` at most (nothing when it waits for ``100 Continue``),
  before the connection is closed. A small body (a table's action, a sign-in)
  is read first: it costs little more than its own head.
- **Bounded memory.** A body past :data:`IN_MEMORY` bytes is written to a
  temporary file as it arrives, so that bodies being sent hold little memory
  whatever their number, and give it back when they end; :data:`SPOOLED` at
  once in a worker (each is an open file), past them 503 ``busy``.
- **Deadlines.** A body must arrive whole within ``BODY_DEADLINE`` seconds, and
  no more than a tenth of it (:data:`MIN_GAP` at least) may pass between two of
  its pieces; else 408 ``request-timeout`` and the connection is closed. The
  request head has its own deadline, in the server (:mod:`api.serving`).
- **Per client.** A client address (the real client behind the trusted proxies,
  :mod:`api.proxies`; an IPv6 one by its /64) may have ``CLIENT_REQUESTS``
  requests in flight at once in a worker, bodies being sent included; past it,
  429 ``too-many-in-flight`` at once, so that no one client holds the threads
  that answer the scorers' appends and ``/api/v1/health``. Streams are counted
  apart (:mod:`api.streams`).

The refusals made here are the app's own problems, in the request's language,
with their request id, access-log line and metrics (:func:`refusal`).
"""

from __future__ import annotations

import asyncio
import io
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from flask import Flask, g, request

from .auth import require_admin
from .problems import TOO_LARGE, Problem
from .proxies import behind_proxies, counted_as, trusted_proxies

SMALL_BODY = 16 * 1024  # bytes of a body read before the credential is checked (a table action is under 1 KiB)
IN_MEMORY = 64 * 1024  # bytes of a body kept in memory: the rest is written to a temporary file as it arrives
MIN_GAP = 2.0  # seconds allowed between two pieces of a body, whatever the deadline
DRAIN_LIMIT = 1024 * 1024  # bytes of a refused body read and dropped, so that its client reads the answer
DRAIN_SECONDS = 2.0  # and for how long at most, before the connection is closed
DRAIN_GAP = 0.5  # or once nothing more came for this long (a client that stopped sending)
SPOOLED = 64  # bodies being written to temporary files at once in a worker: past them, 503 busy (open files)
DRAINS = 16  # refused bodies read at once in a worker: past them, a refused body's connection is closed unread
RETRY_SOON = {"Retry-After": "1"}
CLOSE = (b"connection", b"close")

Message = dict[str, Any]


class TooSlow(Exception):
    """The body did not arrive within its deadline."""


class TooLarge(Exception):
    """The body, whose length was not told, went past the limit."""


class Gone(Exception):
    """The client left before its body was whole."""


class Busy(Exception):
    """As many bodies as a worker takes are being written to temporary files (or the system gives no more)."""


@dataclass
class Body:
    """A request's body: in memory, or in a temporary file past :data:`IN_MEMORY` bytes."""

    stream: IO[bytes]
    size: int

    def close(self) -> None:
        self.stream.close()


EMPTY = b""


async def read_body(receive: Any, limit: int, deadline: float) -> Body:
    """The request's body, as it arrives: :class:`TooSlow` past ``deadline`` seconds (or a tenth of it, and
    :data:`MIN_GAP` at least, between two pieces), :class:`TooLarge` past ``limit`` bytes, :class:`Gone` if the
    client leaves."""
    loop = asyncio.get_running_loop()
    ends = loop.time() + deadline
    gap = max(MIN_GAP, deadline / 10)
    held = bytearray()
    spooled: IO[bytes] | None = None
    size = 0
    more = True
    try:
        while more:
            wait = min(gap, ends - loop.time())
            if wait <= 0:
                raise TooSlow
            try:
                message = await asyncio.wait_for(receive(), wait)
            except TimeoutError:
                raise TooSlow from None
            if message["type"] != "http.request":
                raise Gone
            chunk = message.get("body", EMPTY)
            more = message.get("more_body", False)
            size += len(chunk)
            if size > limit:
                raise TooLarge
            if spooled is not None:
                spooled.write(chunk)
            elif size > IN_MEMORY:
                spooled = _spool()
                spooled.write(held)
                spooled.write(chunk)
                held = bytearray()
            else:
                held += chunk
    except OSError:  # the temporary file could not be written (no space left)
        if spooled is not None:
            spooled.close()
        raise Busy from None
    except BaseException:
        if spooled is not None:
            spooled.close()
        raise
    if spooled is None:
        return Body(io.BytesIO(bytes(held)), size)
    spooled.seek(0)
    return Body(spooled, size)


class _Spooled(io.BufferedRandom):
    """A temporary file of a body, counted while it is open (:data:`SPOOLED` at once)."""

    def close(self) -> None:
        global _spooled
        if not self.closed:
            _spooled -= 1
        super().close()


_spooled = 0  # bodies in temporary files in this worker (its event loop's, and the thread that closes: a count)


def _spool() -> IO[bytes]:
    """A temporary file for a body: :class:`Busy` past :data:`SPOOLED` of them, or when the system gives none."""
    global _spooled
    if _spooled >= SPOOLED:
        raise Busy
    try:
        raw = tempfile.TemporaryFile(buffering=0)  # noqa: SIM115  # handed to the app, closed by Body.close
    except OSError:
        raise Busy from None
    _spooled += 1
    return _Spooled(raw)


async def drain(receive: Any) -> None:
    """Read what is left of a refused body, :data:`DRAIN_LIMIT` bytes and :data:`DRAIN_SECONDS` at most (less once
    nothing came for :data:`DRAIN_GAP`), so that a client still sending gets to read its answer rather than a
    connection reset; then the connection is closed. :data:`DRAINS` at once at most: what a body read passes
    through the server's memory, and a thousand refused bodies read at once took 130 MB."""
    global _draining
    if _draining >= DRAINS:
        return
    _draining += 1
    try:
        await _drain(receive)
    finally:
        _draining -= 1


_draining = 0  # refused bodies being read in this worker (its event loop's: no lock)


async def _drain(receive: Any) -> None:
    loop = asyncio.get_running_loop()
    ends = loop.time() + DRAIN_SECONDS
    left = DRAIN_LIMIT
    while left > 0:
        wait = min(DRAIN_GAP, ends - loop.time())
        if wait <= 0:
            return
        try:
            message = await asyncio.wait_for(receive(), wait)
        except TimeoutError:
            return
        if message["type"] != "http.request":
            return
        left -= len(message.get("body", EMPTY))
        if not message.get("more_body", False):
            return


def proxied(app: Flask) -> Callable[[dict[str, Any]], None]:
    """The app's own reading of the client's address and scheme behind its trusted proxies (:mod:`api.proxies`),
    done on an environ in place, for the requests answered here without going through the app's WSGI entry."""
    resolve = behind_proxies(lambda environ, start_response: None, trusted_proxies(app.config["PROXIES"]))
    return lambda environ: resolve(environ, None)


class Clients:
    """The requests in flight of each client address in this worker, ``limit`` at most each."""

    def __init__(self, app: Flask) -> None:
        self.limit = int(app.config["CLIENT_REQUESTS"])
        self.resolve = proxied(app)
        self.counts: Counter[str] = Counter()

    def address(self, scope: dict[str, Any]) -> str:
        """Who sent ``scope``, as the app counts a client (:func:`api.proxies.counted_as`)."""
        environ = {"REMOTE_ADDR": (scope.get("client") or ("", 0))[0]}
        forwarded = [value.decode("latin1") for name, value in scope.get("headers", [])
                     if name.lower() == b"x-forwarded-for"]
        if forwarded:
            environ["HTTP_X_FORWARDED_FOR"] = ",".join(forwarded)
        self.resolve(environ)
        return counted_as(environ["REMOTE_ADDR"] or "unknown")

    def enter(self, address: str) -> bool:
        """Count a request of ``address`` in, unless it has ``limit`` in flight already (False)."""
        if self.counts[address] >= self.limit:
            return False
        self.counts[address] += 1
        return True

    def leave(self, address: str) -> None:
        self.counts[address] -= 1
        if self.counts[address] <= 0:
            del self.counts[address]


def too_many(limit: int) -> Problem:
    return Problem(429, "too-many-in-flight", "This address has {limit} requests in flight already: wait for their "
                   "answers, then send again.", params={"limit": limit}, headers=RETRY_SOON)


def too_large(limit: int) -> Problem:
    return Problem(413, "request-too-large", TOO_LARGE, params={"limit": limit})


def busy() -> Problem:
    return Problem(503, "busy", "The server is receiving as many large bodies as it takes: send it again in a few "
                   "seconds.", headers={"Retry-After": "5"})


def too_slow(deadline: float) -> Problem:
    return Problem(408, "request-timeout", "The body did not arrive within {seconds} seconds: send it again.",
                   params={"seconds": round(deadline)})


def admit(app: Flask, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], list[bytes]] | None:
    """Run the app's checks before a view (the credential above all) on a request whose body is not read yet:
    None when they let it through, else the app's answer (a refusal, whole), counted and logged as any answer."""
    with app.request_context(environ):
        try:
            try:
                if request.routing_exception is not None:  # no such route (404) or method (405)
                    raise request.routing_exception
                answer = app.preprocess_request()
                if answer is None:
                    credentialed()
                    return None
            except Exception as error:  # noqa: BLE001  # a Problem, an HTTPException (413): the app answers it
                answer = app.handle_user_exception(error)
            response = app.finalize_request(answer)
        except Exception as error:  # noqa: BLE001  # as Flask's own entry does: logged, a 500 problem
            response = app.handle_exception(error)
        return _whole(response)


def credentialed() -> None:
    """A body larger than :data:`SMALL_BODY` is read only for a caller the app knows: a club's token, a share or a
    table's (the app's checks before a view found it), or the admin token, on a route that creates clubs; on the
    open routes (the sign-in, health) and the pages, such a body is refused unread, 413."""
    if g.get("token") is not None:
        return
    if request.endpoint == "clubs.Clubs" and request.method == "POST":
        require_admin()
        return
    raise Problem(413, "request-too-large", "A body of more than {limit} bytes is taken with a token only.",
                  params={"limit": SMALL_BODY})


def refusal(app: Flask, environ: dict[str, Any], problem: Problem) -> tuple[int, list[tuple[bytes, bytes]],
                                                                           list[bytes]]:
    """``problem`` as the app answers it to this request (its language, request id, log line and metrics),
    without reading a body or calling a view."""
    with app.request_context(environ):
        return _whole(app.finalize_request(app.handle_user_exception(problem)))


def _whole(response: Any) -> tuple[int, list[tuple[bytes, bytes]], list[bytes]]:
    return (response.status_code,
            [(name.lower().encode("latin1"), value.encode("latin1")) for name, value in response.headers.items()],
            [response.get_data()])
