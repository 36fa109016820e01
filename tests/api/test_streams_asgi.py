"""The ASGI layer (api.asgi) in this process: a stream handed over to the event loop, its refusals as the app
answers them, a client that leaves forgotten at once, and a stream that ends once its token or share is revoked."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import update

from api import channels, streams
from api.asgi import asgi_app
from nj_ledger.store import Store
from nj_ledger.store.models import Share
from support.apps import new_app
from support.http import Calls, Club

HEARTBEAT = 0.1
QUIET_HEARTBEAT = 60.0  # a stream that only a revocation, not its next heartbeat, can end within the tests' time
REVOKED_WITHIN = 1.0  # seconds from a revocation's answer to the end of the streams it opened


@pytest.fixture(scope="module")
def streaming_app(store: Store) -> Flask:
    return new_app(store, STREAM_HEARTBEAT=HEARTBEAT)


@pytest.fixture(scope="module")
def quiet_app(store: Store) -> Flask:
    return new_app(store, STREAM_HEARTBEAT=QUIET_HEARTBEAT)


def scope(path: str, club: Club, *headers: tuple[bytes, bytes]) -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
            "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"host", b"localhost"), (b"authorization", f"Bearer {club.token}".encode()), *headers],
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80)}


class Connection:
    """One ASGI connection: the request (no body), then a disconnect when told to leave."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.leaving = asyncio.Event()
        self.asked = False

    async def receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.leaving.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    @property
    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.sent if m["type"] == "http.response.body")

    async def until(self, text: bytes) -> None:
        for _ in range(500):
            if text in self.body:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{text!r} never came: {self.body!r}")


def test_a_stream_runs_on_the_event_loop_and_a_client_that_leaves_is_forgotten(streaming_app: Flask) -> None:
    calls = Calls(streaming_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1,
                                  "reason": "a bet"}).status_code == 201
    log = calls.events(club, game)
    store: Store = streaming_app.config["STORE"]
    application = asgi_app(streaming_app, threads=2)

    async def follow() -> Connection:
        connection = Connection()
        before = store.db.followers.count()
        running = asyncio.ensure_future(application(
            scope(f"/api/v1/games/{game}/stream", club, (b"last-event-id", b"1")), connection.receive,
            connection.send))
        await connection.until(b"id: %d\n" % log[-1]["seq"])
        await connection.until(b": heartbeat")
        assert store.db.followers.count() == before + 1
        connection.leaving.set()
        await asyncio.wait_for(running, 5)
        assert store.db.followers.count() == before
        return connection

    connection = asyncio.run(follow())
    start = connection.sent[0]
    assert start["type"] == "http.response.start" and start["status"] == 200
    names = {name.lower() for name, _ in start["headers"]}
    assert b"x-nj-ledger-stream" not in names and b"content-length" not in names
    assert dict(start["headers"])[b"content-type"].startswith(b"text/event-stream")
    events = [block for block in connection.body.split(b"\n\n") if block.startswith(b"id: ")]
    assert [json.loads(block.split(b"data: ", 1)[1]) for block in events] == log[1:]


def test_a_refused_stream_is_the_app_s_answer(streaming_app: Flask) -> None:
    calls = Calls(streaming_app.test_client())
    neighbour = calls.club("Les Voisins")
    club = calls.club()
    game = calls.game(club)["id"]
    application = asgi_app(streaming_app, threads=2)

    async def refused() -> Connection:
        connection = Connection()
        await asyncio.wait_for(application(scope(f"/api/v1/games/{game}/stream", neighbour), connection.receive,
                                           connection.send), 5)
        return connection

    connection = asyncio.run(refused())
    assert connection.sent[0]["status"] == 404
    assert json.loads(connection.body)["code"] == "not-found"


def test_a_head_of_a_stream_gets_its_head_only(streaming_app: Flask) -> None:
    calls = Calls(streaming_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    application = asgi_app(streaming_app, threads=2)
    store: Store = streaming_app.config["STORE"]
    before = store.db.followers.count()

    async def head() -> Connection:
        connection = Connection()
        await asyncio.wait_for(application({**scope(f"/api/v1/games/{game}/stream", club), "method": "HEAD"},
                                           connection.receive, connection.send), 5)
        return connection

    connection = asyncio.run(head())
    assert connection.sent[0]["status"] == 200 and connection.body == b""
    assert store.db.followers.count() == before


class SlowConnection(Connection):
    """A client that stops reading after the stream's opening: each later send waits until it reads again."""

    def __init__(self) -> None:
        super().__init__()
        self.reading = asyncio.Event()
        self.reading.set()

    async def send(self, message: dict[str, Any]) -> None:
        if message.get("body", b"").startswith(b"id: "):
            await self.reading.wait()
        self.sent.append(message)


def test_a_slow_follower_neither_holds_up_the_others_nor_loses_an_event(streaming_app: Flask) -> None:
    calls = Calls(streaming_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    application = asgi_app(streaming_app, threads=2)
    bet = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1, "reason": "a bet"}

    async def follow() -> tuple[Connection, SlowConnection]:
        fast, slow = Connection(), SlowConnection()
        slow.reading.clear()  # it reads the head, then nothing until told
        after = (b"last-event-id", b"1")
        running = [asyncio.ensure_future(application(scope(f"/api/v1/games/{game}/stream", club, after),
                                                     connection.receive, connection.send))
                   for connection in (fast, slow)]
        loop = asyncio.get_running_loop()
        for _ in range(3):  # appended while the slow one reads nothing
            assert (await loop.run_in_executor(None, lambda: calls.act(club, game, bet))).status_code == 201
        last = calls.events(club, game)[-1]["seq"]
        await fast.until(b"id: %d\n" % last)  # the fast one has them all, the slow one none yet
        assert b"id: " not in slow.body
        slow.reading.set()
        await slow.until(b"id: %d\n" % last)
        for connection in (fast, slow):
            connection.leaving.set()
        await asyncio.wait_for(asyncio.gather(*running), 5)
        return fast, slow

    fast, slow = asyncio.run(follow())
    log = calls.events(club, game)
    for connection in (fast, slow):  # each event once, in order
        events = [block for block in connection.body.split(b"\n\n") if block.startswith(b"id: ")]
        assert [json.loads(block.split(b"data: ", 1)[1]) for block in events] == log[1:]


def test_the_followers_are_sent_an_append_once_the_writers_in_flight_are_answered(
        streaming_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(channels, "WRITERS_FIRST", 30.0)  # long enough to tell, on a busy machine
    calls = Calls(streaming_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    application = asgi_app(streaming_app, threads=2)
    bet = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1, "reason": "a bet"}

    async def follow() -> None:
        connection = Connection()
        running = asyncio.ensure_future(application(
            scope(f"/api/v1/games/{game}/stream", club, (b"last-event-id", b"1")), connection.receive,
            connection.send))
        await connection.until(b"retry: ")
        streams.writers.enter()  # a writer's request in flight in this process
        try:
            loop = asyncio.get_running_loop()
            assert (await loop.run_in_executor(None, lambda: calls.act(club, game, bet))).status_code == 201
            await asyncio.sleep(0.5)
            assert b"id: " not in connection.body
        finally:
            streams.writers.leave()
        await connection.until(b"id: %d\n" % calls.events(club, game)[-1]["seq"])
        connection.leaving.set()
        await asyncio.wait_for(running, 5)

    asyncio.run(follow())


def test_a_read_that_fails_ends_the_stream_and_the_client_comes_back_where_it_was(
        streaming_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = Calls(streaming_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    application = asgi_app(streaming_app, threads=2)
    bet = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1, "reason": "a bet"}
    fetch = streams.GameFollow.fetch
    failing = {"yes": False}

    def flaky(follow: streams.GameFollow, after: int) -> list[dict[str, Any]]:
        if failing["yes"]:
            raise OSError("the database went away")
        return fetch(follow, after)

    monkeypatch.setattr(streams.GameFollow, "fetch", flaky)

    async def follow(last: bytes) -> tuple[Connection, asyncio.Future[None]]:
        connection = Connection()
        running = asyncio.ensure_future(application(
            scope(f"/api/v1/games/{game}/stream", club, (b"last-event-id", last)), connection.receive,
            connection.send))
        await connection.until(b"retry: ")
        return connection, running

    async def scenario() -> tuple[Connection, Connection]:
        first, running = await follow(b"1")
        failing["yes"] = True
        loop = asyncio.get_running_loop()
        assert (await loop.run_in_executor(None, lambda: calls.act(club, game, bet))).status_code == 201
        await asyncio.wait_for(running, 10)  # the stream ended: its client reconnects
        failing["yes"] = False
        again, running = await follow(b"1")
        await again.until(b"id: %d\n" % calls.events(club, game)[-1]["seq"])
        again.leaving.set()
        await asyncio.wait_for(running, 5)
        return first, again

    first, again = asyncio.run(scenario())
    assert first.sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert b"id: " not in first.body
    events = [block for block in again.body.split(b"\n\n") if block.startswith(b"id: ")]
    assert [json.loads(block.split(b"data: ", 1)[1]) for block in events] == calls.events(club, game)[1:]


def shared(calls: Calls, club: Club, game: str) -> tuple[int, Club]:
    """A share of ``game``: its id, and its secret as the bearer token."""
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/shares", json={"game": game}, headers=club.auth)
    assert answer.status_code == 201, answer.get_json()
    return int(answer.json["id"]), Club(club.id, answer.json["secret"])


def viewer_of(calls: Calls, club: Club) -> tuple[int, Club]:
    """A viewer token of the club: its id, and itself."""
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/tokens", json={"role": "viewer"}, headers=club.auth)
    assert answer.status_code == 201, answer.get_json()
    return int(answer.json["id"]), Club(club.id, answer.json["token"])


def test_a_revoked_share_or_token_ends_the_streams_it_opened_within_a_second(quiet_app: Flask) -> None:
    """No heartbeat comes within the test: the streams end because the revocation woke them (SQLite's poll,
    PostgreSQL's notification), each with a last comment saying why; a stream of another credential goes on."""
    calls = Calls(quiet_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    share_id, share = shared(calls, club, game)
    viewer_id, viewer = viewer_of(calls, club)
    application = asgi_app(quiet_app, threads=2)
    revocations = {"share": f"/api/v1/clubs/{club.id}/shares/{share_id}",
                   "viewer": f"/api/v1/clubs/{club.id}/tokens/{viewer_id}"}

    async def scenario() -> dict[str, tuple[Connection, float]]:
        loop = asyncio.get_running_loop()
        opened: dict[str, tuple[Connection, asyncio.Future[None]]] = {}
        for name, credential in (("share", share), ("viewer", viewer)):
            connection = Connection()
            opened[name] = (connection, asyncio.ensure_future(application(
                scope(f"/api/v1/games/{game}/stream", credential), connection.receive, connection.send)))
            await connection.until(b"id: %d\n" % calls.state(club, game)["version"])
        ended: dict[str, tuple[Connection, float]] = {}
        for name, path in revocations.items():
            answer = await loop.run_in_executor(None, lambda path=path: calls.client.delete(path, headers=club.auth))
            assert answer.status_code == 204
            revoked_at = time.monotonic()
            connection, running = opened[name]
            await asyncio.wait_for(asyncio.shield(running), 10)
            ended[name] = connection, time.monotonic() - revoked_at
            if name == "share":
                assert not opened["viewer"][1].done()  # the viewer's stream goes on
        return ended

    ended = asyncio.run(scenario())
    for name, (connection, seconds) in ended.items():
        assert seconds < REVOKED_WITHIN, (name, seconds)
        assert connection.body.endswith(b": revoked\n\n"), connection.body[-100:]
        assert connection.sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    for credential in (share, viewer):  # the client's reconnection: the usual 401
        again = calls.client.get(f"/api/v1/games/{game}/stream", headers=credential.auth)
        assert again.status_code == 401 and again.json["code"] == "unauthorized"


def test_a_revocation_no_one_announced_ends_the_stream_before_its_next_event(quiet_app: Flask) -> None:
    """A share revoked by hand in the database (no notification): the stream is not sent the next event, nor
    anything after a second, once the credential was last found in use."""
    calls = Calls(quiet_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    share_id, share = shared(calls, club, game)
    store: Store = quiet_app.config["STORE"]
    application = asgi_app(quiet_app, threads=2)
    bet = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1, "reason": "a bet"}

    async def scenario() -> Connection:
        loop = asyncio.get_running_loop()
        connection = Connection()
        running = asyncio.ensure_future(application(scope(f"/api/v1/games/{game}/stream", share),
                                                    connection.receive, connection.send))
        await connection.until(b"id: %d\n" % calls.state(club, game)["version"])
        with store.db.engine.begin() as database:
            database.execute(update(Share).where(Share.id == share_id).values(revoked_at=datetime.now(UTC)))
        await asyncio.sleep(channels.CHECK_EVERY + 0.1)
        assert (await loop.run_in_executor(None, lambda: calls.act(club, game, bet))).status_code == 201
        await asyncio.wait_for(running, 10)
        return connection

    connection = asyncio.run(scenario())
    last = calls.state(club, game)["version"]
    assert b"id: %d\n" % last not in connection.body  # the append came after the revocation: never sent
    assert connection.body.endswith(b": revoked\n\n")
