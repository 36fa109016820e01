"""The app for an ASGI server: streams on the event loop, every other request in a pool of threads.

Why. A stream (:mod:`api.streams`) lasts as long as its follower watches, hours
for a club's screen. Under a WSGI server each would hold one of the threads
that serve the writers: a few dozen followers would leave a scorer's ``play``
waiting in the queue. Here each worker process runs one asyncio event loop
(granian's ASGI interface): a stream is a coroutine that holds no thread while
it waits for its game to move, woken by the process's one watcher of the
database (:mod:`nj_ledger.store.followers`), its reads of the log done on a
small pool of its own and shared by the followers at the same position. Every
other request runs in the Flask app (unchanged, WSGI) on ``threads`` threads of
the worker, as under a WSGI server.

The WSGI call. The request's body is read whole on the loop first (the app's
limit is 2 MiB; past 64 KiB into a temporary file, and a large one only once
the app has accepted the request's credential without it: :mod:`api.admission`,
which also bounds its time and the requests in flight of each client), the app
runs on a thread with it, and its answer, whole (a state, a page) or its first
megabyte (the rest of an audit or an export of a long game follows a piece at a
time: :data:`WHOLE`), is sent from the loop: one hand-over to the thread and
back per request. A general
adapter (a2wsgi) passes every message between the loop and the thread, each a
round trip: on the live-appends workload it cost 40% of the throughput of
granian's WSGI workers; this way about 25%, the cost of the ASGI interface
itself (running the app inline on the loop measured the same).

A stream's request goes through the Flask app first, like any other: the token,
the club, a share, the 404 for another club's game and every refusal are the
app's. When the app accepts it, it answers with an empty body and a private
header naming the stream it hands over (:data:`api.streams.HANDOFF_HEADER`);
this layer removes the header, sends the answer's head, and carries the stream
on until the client leaves (``http.disconnect``) or the connection fails.

Writers first. Every request other than a stream's is counted while the app
answers it (:data:`api.writers_first.writers`): the streams' fan-out in this process waits
until they are answered (25 ms at most), so that an append is answered before
the process writes it to its followers.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from flask import Flask

from .accesslog import RECEIVED
from .admission import (
    CLOSE,
    SMALL_BODY,
    Body,
    Busy,
    Clients,
    Gone,
    TooLarge,
    TooSlow,
    admit,
    busy,
    drain,
    read_body,
    refusal,
    too_large,
    too_many,
    too_slow,
)
from .problems import Problem
from .streams import HANDOFF_ENVIRON, HANDOFF_HEADER, Follow, take_handed
from .writers_first import writers

WHOLE = 1024 * 1024  # bytes of an answer gathered before it is sent: a longer one is sent as the app makes it
READ_THREADS = 4  # threads reading the log for the streams of one worker (shared reads: a few suffice)
_HANDOFF = HANDOFF_HEADER.lower().encode()
_LENGTH = b"content-length"

Scope = dict[str, Any]
Message = dict[str, Any]
Environ = dict[str, Any]


def asgi_app(app: Flask, threads: int) -> Any:
    """``app`` served on an event loop: its requests on ``threads`` threads, its streams as coroutines."""
    limit = int(app.config["MAX_CONTENT_LENGTH"])
    deadline = float(app.config["BODY_DEADLINE"])
    clients = Clients(app)
    calls = ThreadPoolExecutor(threads, thread_name_prefix="nj-ledger-requests")
    reads = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="nj-ledger-stream-reads")

    def resolved(environ: Environ) -> Environ:
        """A copy of ``environ`` for a call that does not go through the app's WSGI entry (:mod:`api.admission`),
        its client's address read as the app reads it."""
        copy = dict(environ, **{"wsgi.input": io.BytesIO()})
        clients.resolve(copy)
        return copy

    async def refuse(send: Any, environ: Environ, problem: Problem) -> None:
        await _answer(send, refusal(app, resolved(environ), problem), close=True)

    async def request(scope: Scope, receive: Any, send: Any, environ: Environ) -> Follow | None:
        """Answer a request, or hand its stream back to be carried on once the client's count has left."""
        loop = asyncio.get_running_loop()
        length = _declared_length(scope)
        if length is None or length > SMALL_BODY:  # the credential first (api.admission)
            refused = await loop.run_in_executor(calls, admit, app, resolved(environ))
            if refused is not None:
                if environ.get("HTTP_EXPECT", "").lower() != "100-continue":  # else asking would invite the body
                    await drain(receive)
                await _answer(send, refused, close=True)
                return None
        try:
            body = await read_body(receive, limit, deadline) if length != 0 else Body(io.BytesIO(), 0)
        except TooSlow:
            await refuse(send, environ, too_slow(deadline))
            return None
        except TooLarge:
            await drain(receive)
            await refuse(send, environ, too_large(limit))
            return None
        except Busy:
            await refuse(send, environ, busy())
            return None
        except Gone:
            return None
        environ["wsgi.input"] = body.stream
        if length is None:  # chunked: the body is whole now, and told with its length
            environ.pop("HTTP_TRANSFER_ENCODING", None)
            environ["CONTENT_LENGTH"] = str(body.size)
        writers.enter()  # the streams' work waits until this request is answered (api.writers_first.writers)
        try:
            status, headers, chunks, rest = await loop.run_in_executor(calls, _call, app, environ)
        finally:
            writers.leave()
            body.close()
        follow = None
        for name, value in headers:
            if name.lower() == _HANDOFF:
                follow = take_handed(value.decode())
        if follow is not None:  # the hand-over's header and the empty body's length leave with it
            headers = [(name, value) for name, value in headers if name.lower() not in (_HANDOFF, _LENGTH)]
        if rest is not None:  # an answer longer than WHOLE: sent as the app makes it
            await _send_rest(send, status, headers, chunks, rest, lambda call: loop.run_in_executor(calls, call))
            return None
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if follow is None or scope["method"] == "HEAD":  # a HEAD gets the stream's head only
            await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": False})
            return None
        return follow

    async def application(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":  # a WebSocket: none here
            return
        environ = _environ(scope)
        environ[RECEIVED] = time.perf_counter()  # a request's time is counted from here (api.metrics, accesslog)
        address = clients.address(scope)
        if not clients.enter(address):
            await refuse(send, environ, too_many(clients.limit))
            return
        try:
            follow = await request(scope, receive, send, environ)
        finally:
            clients.leave(address)  # a stream is counted apart, as it goes on (api.streams)
        if follow is not None:
            await _stream(follow, receive, send, reads)

    return application


def _declared_length(scope: Scope) -> int | None:
    """The body's length as the client told it: 0 when it tells none and sends none, None when it is sent in
    chunks of a length not told."""
    headers = {name.lower(): value for name, value in scope.get("headers", [])}
    if b"transfer-encoding" in headers:  # chunked, whatever length it also tells, and in whichever order
        return None
    value = headers.get(_LENGTH, b"")
    return int(value) if value.strip().isdigit() else 0


async def _answer(send: Any, answer: tuple[int, list[tuple[bytes, bytes]], list[bytes]], close: bool) -> None:
    """Send an answer made whole; with ``close``, the connection is closed after it (a body refused unread)."""
    status, headers, chunks = answer
    if close:
        headers = [*headers, CLOSE]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": False})


def _environ(scope: Scope) -> Environ:
    """The WSGI environ of an ASGI request (PEP 3333), its body to be set (``wsgi.input``) once read."""
    path = scope["path"].encode("utf8").decode("latin1")
    root = scope.get("root_path", "").encode("utf8").decode("latin1")
    server, port = scope.get("server") or ("localhost", 80)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"], "SCRIPT_NAME": root,
        "PATH_INFO": path[len(root):] if root and path.startswith(root) else path,
        "QUERY_STRING": scope.get("query_string", b"").decode("latin1"),
        "SERVER_NAME": server, "SERVER_PORT": str(port or 0), "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
        "wsgi.version": (1, 0), "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False,
        "wsgi.input_terminated": True,
        HANDOFF_ENVIRON: True,  # set by this server only: a client cannot send it
    }
    if scope.get("client"):
        environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = scope["client"][0], str(scope["client"][1])
    for raw_name, raw_value in scope.get("headers", []):
        name, value = raw_name.decode("latin1").lower(), raw_value.decode("latin1")
        key = {"content-length": "CONTENT_LENGTH", "content-type": "CONTENT_TYPE"}.get(
            name, "HTTP_" + name.upper().replace("-", "_"))
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


class _Rest:
    """The rest of an answer longer than :data:`WHOLE`, made by the app on a thread a piece at a time."""

    def __init__(self, iterator: Iterator[bytes], iterable: Any) -> None:
        self.iterator = iterator
        self.iterable = iterable

    def more(self) -> bytes | None:
        """Up to :data:`WHOLE` bytes more of the answer (None: it is all sent)."""
        pieces: list[bytes] = []
        size = 0
        for chunk in self.iterator:
            pieces.append(chunk)
            size += len(chunk)
            if size >= WHOLE:
                break
        return b"".join(pieces) if pieces else None

    def close(self) -> None:
        _close(self.iterable)


def _close(iterable: Any) -> None:
    close = getattr(iterable, "close", None)
    if close is not None:
        close()


def _call(app: Flask, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], list[bytes], _Rest | None]:
    """Run the WSGI app on this thread: its status, headers and body, whole, or its first :data:`WHOLE` bytes and
    the rest to be made as it is sent (a stream is handed over, not iterated here)."""
    started: list[Any] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        started[:] = [status, headers]
        return chunks.append

    chunks: list[bytes] = []
    iterable = app(environ, start_response)
    rest = None
    try:
        iterator = iter(iterable)
        size = 0
        for chunk in iterator:
            chunks.append(chunk)
            size += len(chunk)
            if size >= WHOLE:
                rest = _Rest(iterator, iterable)
                break
    finally:
        if rest is None:
            _close(iterable)
    status, headers = started
    return (int(status.split(" ", 1)[0]),
            [(name.lower().encode("latin1"), value.encode("latin1")) for name, value in headers], chunks, rest)


async def _send_rest(send: Any, status: int, headers: list[tuple[bytes, bytes]], chunks: list[bytes], rest: _Rest,
                     on_thread: Callable[[Callable[[], Any]], Awaitable[Any]]) -> None:
    """Send an answer longer than :data:`WHOLE` as the app makes it, a piece on a thread at a time, so that an
    audit or an export of a long game is never whole in the worker's memory; the app's iterable is closed
    however it ends (the client may leave)."""
    try:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
        while (piece := await on_thread(rest.more)) is not None:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        await on_thread(rest.close)


async def _stream(follow: Follow, receive: Any, send: Any, reads: ThreadPoolExecutor) -> None:
    """Carry ``follow`` on until the client leaves or the connection fails."""

    async def body(chunk: bytes) -> None:
        await send({"type": "http.response.body", "body": chunk, "more_body": True})

    streaming = asyncio.ensure_future(follow.run(body, reads))
    leaving = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({streaming, leaving}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (streaming, leaving):
            task.cancel()
        for task in (streaming, leaving):
            with contextlib.suppress(BaseException):
                await task
    with contextlib.suppress(Exception):  # the client may be gone already
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _lifespan(receive: Any, send: Any) -> None:
    message = await receive()
    if message["type"] == "lifespan.startup":
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
    if message["type"] == "lifespan.shutdown":
        await send({"type": "lifespan.shutdown.complete"})
