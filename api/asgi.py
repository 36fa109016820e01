"""The app for an ASGI server: streams on the event loop, every other request in a pool of threads.

Why. A stream (:mod:`api.streams`) lasts as long as its follower watches, hours
for a club's screen. Under a WSGI server each would hold one of the threads
that serve the writers: a few dozen followers would leave a scorer's ``play``
waiting in the queue. Here each worker process runs one asyncio event loop
(granian's ASGI interface): a stream is a coroutine that holds no thread while
it waits for its game to move, woken by the process's one watcher of the
database (:mod:`nj_ledger.store.followers`), its reads of the log done on a
small pool of its own and shared by the followers at the same position. Every
other request (the Flask app, unchanged, WSGI) runs on ``threads`` threads of
the worker through a2wsgi's WSGIMiddleware, as under a WSGI server.

A stream's request goes through the Flask app first, like any other: the token,
the club, a share, the 404 for another club's game and every refusal are the
app's. When the app accepts it, it answers with an empty body and a private
header naming the stream it hands over (:data:`api.streams.HANDOFF_HEADER`);
this layer removes the header, sends the answer's head, and carries the stream
on until the client leaves (``http.disconnect``) or the connection fails.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from a2wsgi import WSGIMiddleware
from flask import Flask

from .streams import HANDOFF_ENVIRON, HANDOFF_HEADER, Follow, take_handed

STREAM_SUFFIX = "/stream"
READ_THREADS = 4  # threads reading the log for the streams of one worker (shared reads: a few suffice)
_HANDOFF = HANDOFF_HEADER.lower().encode()
_LENGTH = b"content-length"
DRAIN_LIMIT = 64 * 1024 * 1024  # bytes of a body left unread that are read (and dropped) after the answer

Scope = dict[str, Any]
Message = dict[str, Any]


def asgi_app(app: Flask, threads: int) -> Any:
    """``app`` served on an event loop: its requests on ``threads`` threads, its streams as coroutines."""

    def handing_off(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        environ[HANDOFF_ENVIRON] = True  # set by this server only: a client cannot send it
        # a2wsgi's input ends where the body ends (a chunked body has no length): werkzeug then reads it, and
        # stops at MAX_CONTENT_LENGTH (413), as under a WSGI server that says so
        environ["wsgi.input_terminated"] = True
        return app(environ, start_response)

    limit = int(app.config.get("MAX_CONTENT_LENGTH") or DRAIN_LIMIT)
    wsgi = WSGIMiddleware(handing_off, workers=threads)  # type: ignore[arg-type]
    reads = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="nj-ledger-stream-reads")

    async def application(scope: Scope, granian_receive: Any, send: Any) -> None:
        body_read = [scope["type"] != "http"]

        async def receive() -> Message:  # a coroutine, as a2wsgi needs (granian's receive gives an awaitable)
            message: Message = await granian_receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_read[0] = True
            return message

        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] == "http" and _chunked(scope):
            scope, receive = await _measured(scope, receive, limit)
            body_read[0] = True
        if scope["type"] != "http" or not scope["path"].endswith(STREAM_SUFFIX):
            await wsgi(scope, receive, send)  # type: ignore[arg-type]
            if not body_read[0]:
                await _drain(receive)
            return
        handed: list[Follow] = []

        async def answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                for name, value in headers:
                    if name.lower() == _HANDOFF:
                        follow = take_handed(value.decode())
                        if follow is not None:
                            handed.append(follow)
                if handed:  # the hand-over's header and the empty body's length leave with it
                    headers = [(name, value) for name, value in headers if name.lower() not in (_HANDOFF, _LENGTH)]
                await send({**message, "headers": headers})
            elif not handed:  # an answer of the app's own (a refusal): as it is
                await send(message)
            elif message.get("body"):
                await send({"type": "http.response.body", "body": message["body"], "more_body": True})

        await wsgi(scope, receive, answer)  # type: ignore[arg-type]
        if handed:
            await _stream(handed[0], receive, send, reads)

    return application


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


def _chunked(scope: Scope) -> bool:
    return not any(name.lower() == _LENGTH for name, _ in scope.get("headers", []))  and any(
        name.lower() == b"transfer-encoding" for name, _ in scope.get("headers", []))


async def _measured(scope: Scope, receive: Any, limit: int) -> tuple[Scope, Any]:
    """A body sent in chunks (no Content-Length), read whole up to ``limit`` bytes, and told with its length, as
    a WSGI server does: the app answers 413 to a body past its limit (read past, up to :data:`DRAIN_LIMIT`, and
    dropped), where it would otherwise get it cut at the limit."""
    body = bytearray()
    more = True
    while more and len(body) <= limit:
        message = await receive()
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        more = message.get("more_body", False)
    length = len(body)
    if more:
        await _drain(receive)
        body.clear()
        length = limit + 1
    headers = [(name, value) for name, value in scope["headers"] if name.lower() != b"transfer-encoding"]
    told = {**scope, "headers": headers + [(_LENGTH, str(length).encode())]}
    sent = [False]

    async def replay() -> Message:
        if sent[0]:
            message: Message = await receive()  # what comes after the body: a disconnect
            return message
        sent[0] = True
        return {"type": "http.request", "body": bytes(body), "more_body": False}

    return told, replay


async def _drain(receive: Any) -> None:
    """Read what is left of a body the app answered without reading whole (a 413: too large), up to
    :data:`DRAIN_LIMIT` bytes, so that the client, still sending, gets to read the answer rather than a
    connection reset (a WSGI server reads it too)."""
    left = DRAIN_LIMIT
    while left > 0:
        message = await receive()
        if message["type"] != "http.request":
            return
        left -= len(message.get("body", b""))
        if not message.get("more_body", False):
            return


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
