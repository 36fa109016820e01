"""The ASGI layer (api.asgi) sends a long answer as the app makes it: an audit or an export of a long game is
never whole in the worker's memory, and the app's answer is closed however its client ends."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response

from api import create_app
from api.asgi import WHOLE, asgi_app
from nj_ledger.store import Store
from support.http import ADMIN_TOKEN

PIECE = 100_000
PIECES = 40  # four times WHOLE


def long_answer_app(store: Store, made: list[int], closed: list[bool]) -> Flask:
    app = create_app({"DATABASE_URL": store.db.url, "STORE": store, "ADMIN_TOKEN": ADMIN_TOKEN})

    def pieces() -> Iterator[bytes]:
        try:
            for number in range(PIECES):
                made.append(number)
                yield bytes([65 + number % 26]) * PIECE
        finally:
            closed.append(True)

    app.add_url_rule("/long", "long", lambda: Response(pieces(), mimetype="text/plain"))
    return app


def request() -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
            "path": "/long", "raw_path": b"/long", "query_string": b"", "root_path": "",
            "headers": [(b"host", b"localhost")], "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80)}


def test_a_long_answer_is_sent_as_it_is_made(store: Store) -> None:
    made: list[int] = []
    closed: list[bool] = []
    application = asgi_app(long_answer_app(store, made, closed), 2)
    sent: list[tuple[int, int]] = []  # (bytes in the message, pieces the app had made when it was sent)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            sent.append((len(message["body"]), len(made)))

    asyncio.run(application(request(), receive, send))
    assert sum(size for size, _ in sent) == PIECE * PIECES and closed == [True]
    assert len(sent) >= 4 and max(size for size, _ in sent) <= WHOLE + PIECE
    assert sent[0][1] < PIECES, "the answer was made whole before its first byte was sent"


def test_a_long_answer_whose_client_leaves_is_closed(store: Store) -> None:
    made: list[int] = []
    closed: list[bool] = []
    application = asgi_app(long_answer_app(store, made, closed), 2)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and message.get("more_body") and len(made) > 12:
            raise OSError("the client left")

    try:
        asyncio.run(application(request(), receive, send))
    except OSError:
        pass
    assert closed == [True] and len(made) < PIECES
