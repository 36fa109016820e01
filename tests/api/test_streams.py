"""`GET /games/{game}/stream`: SSE framing, resuming with Last-Event-ID, heartbeats, auth, isolation, shares.

The app here streams through Flask's test client (the WSGI generator); the same
view served by granian's ASGI workers, across processes, is tested in
tests/reliability/test_streams_served.py.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from nj_ledger.store import Store
from support.apps import new_app
from support.http import Calls, Club

ADJUST = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1, "reason": "a bet"}
HEARTBEAT = 0.2


@pytest.fixture(scope="module")
def streaming_app(store: Store) -> Flask:
    return new_app(store, STREAM_HEARTBEAT=HEARTBEAT)


@pytest.fixture
def stream_calls(streaming_app: Flask) -> Calls:
    return Calls(streaming_app.test_client())


class Reader:
    """An open stream read block by block (an SSE event or comment each)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.chunks: Iterator[bytes] = iter(answer.response)
        self.pending = b""

    def block(self) -> bytes:
        while b"\n\n" not in self.pending:
            self.pending += next(self.chunks)
        block, _, self.pending = self.pending.partition(b"\n\n")
        return block

    def event(self) -> tuple[int, dict[str, Any]]:
        """The next event, heartbeats and the retry line passed over."""
        while True:
            block = self.block()
            if block.startswith(b"id: "):
                lines = dict(line.split(": ", 1) for line in block.decode().split("\n"))
                return int(lines["id"]), json.loads(lines["data"])

    def close(self) -> None:
        self.answer.close()


def open_stream(calls: Calls, club: Club, game: str, **headers: str) -> Reader:
    query = headers.pop("query", "")
    answer = calls.client.get(f"/api/v1/games/{game}/stream{query}", headers={**club.auth, **headers},
                              buffered=False)
    assert answer.status_code == 200, answer.get_data()
    assert answer.mimetype == "text/event-stream"
    assert answer.headers["Cache-Control"] == "no-cache"
    return Reader(answer)


def test_the_stream_sends_the_log_then_each_new_event_as_the_events_route_shows_it(stream_calls: Calls) -> None:
    club = stream_calls.club()
    game = stream_calls.game(club)["id"]
    reader = open_stream(stream_calls, club, game)
    try:
        assert reader.block() == b"retry: 2000"
        log = stream_calls.events(club, game)
        for expected in log:
            assert reader.event() == (expected["seq"], expected)
        assert stream_calls.act(club, game, ADJUST).status_code == 201
        log = stream_calls.events(club, game)
        for expected in log[len(log) - 2:]:  # an adjustment and its transfer
            assert reader.event() == (expected["seq"], expected)
    finally:
        reader.close()


def test_last_event_id_resumes_exactly_after_it_and_wins_over_after(stream_calls: Calls) -> None:
    club = stream_calls.club()
    game = stream_calls.game(club)["id"]
    for _ in range(3):
        assert stream_calls.act(club, game, ADJUST).status_code == 201
    log = stream_calls.events(club, game)
    for position in (0, 1, 4, len(log) - 1):
        reader = open_stream(stream_calls, club, game, **{"Last-Event-ID": str(position), "query": "?after=2"})
        try:
            got = [reader.event() for _ in log[position:]]
            assert got == [(event["seq"], event) for event in log[position:]]
            assert reader.block() == b": heartbeat"  # nothing more: not one event twice
        finally:
            reader.close()
    reader = open_stream(stream_calls, club, game, query="?after=2")  # a client that cannot set the header
    try:
        assert reader.event()[0] == 3
    finally:
        reader.close()


def test_an_idle_stream_sends_heartbeats(stream_calls: Calls) -> None:
    club = stream_calls.club()
    game = stream_calls.game(club)["id"]
    version = stream_calls.state(club, game)["version"]
    reader = open_stream(stream_calls, club, game, **{"Last-Event-ID": str(version)})
    try:
        assert reader.block() == b"retry: 2000"
        assert [reader.block() for _ in range(3)] == [b": heartbeat"] * 3
    finally:
        reader.close()


def test_a_follower_that_leaves_is_forgotten(stream_calls: Calls, streaming_app: Flask) -> None:
    club = stream_calls.club()
    game = stream_calls.game(club)["id"]
    store: Store = streaming_app.config["STORE"]
    before = store.db.followers.count()
    reader = open_stream(stream_calls, club, game)
    reader.event()
    assert store.db.followers.count() == before + 1
    reader.close()
    assert store.db.followers.count() == before


def test_a_follower_is_woken_by_an_append_made_elsewhere(stream_calls: Calls, streaming_app: Flask) -> None:
    """An append by another store (another process's) on the same database wakes the stream before the
    next heartbeat would have."""
    club = stream_calls.club()
    game = stream_calls.game(club)["id"]
    version = stream_calls.state(club, game)["version"]
    store: Store = streaming_app.config["STORE"]
    other = Store(store.db.url)
    app = new_app(store, STREAM_HEARTBEAT=30)
    reader = open_stream(Calls(app.test_client()), club, game, **{"Last-Event-ID": str(version)})
    try:
        assert reader.block() == b"retry: 2000"
        got: list[tuple[int, dict[str, Any]]] = []
        thread = threading.Thread(target=lambda: got.append(reader.event()), daemon=True)
        thread.start()
        other_calls = Calls(new_app(other).test_client())
        assert other_calls.act(club, game, ADJUST).status_code == 201
        thread.join(10)  # the heartbeat is 30 s away: only the wake-up can bring it this soon
        assert got and got[0][0] == version + 1
    finally:
        reader.close()
        other.close()


def test_the_stream_keeps_every_route_s_auth_isolation_and_shares(stream_calls: Calls) -> None:
    club = stream_calls.club()
    game = stream_calls.game(club)["id"]
    path = f"/api/v1/games/{game}/stream"
    client = stream_calls.client
    answer = client.get(path)
    assert answer.status_code == 401 and answer.mimetype == "application/problem+json"
    neighbour = stream_calls.club("Les Voisins")
    answer = client.get(path, headers=neighbour.auth)
    assert answer.status_code == 404 and answer.json["code"] == "not-found"
    viewer = stream_calls.token(club, "viewer")
    reader = open_stream(stream_calls, viewer, game)
    reader.close()
    shared = client.post(f"/api/v1/clubs/{club.id}/shares", json={"game": game}, headers=club.auth).json["secret"]
    reader = open_stream(stream_calls, Club(club.id, shared), game)
    reader.close()
    other = stream_calls.game(club)["id"]
    answer = client.get(f"/api/v1/games/{other}/stream", headers={"Authorization": f"Bearer {shared}"})
    assert answer.status_code == 404
    board = client.post(f"/api/v1/clubs/{club.id}/shares", json={"scoreboard": True},
                        headers=club.auth).json["secret"]
    answer = client.get(path, headers={"Authorization": f"Bearer {board}"})
    assert answer.status_code == 404
    answer = client.get(path, headers={**club.auth, "Last-Event-ID": "twelve"})
    assert answer.status_code == 400 and answer.json["code"] == "invalid-header"
    answer = client.get(path, headers={**club.auth, "Last-Event-ID": "twelve", "Accept-Language": "fr"})
    assert "nombre entier" in answer.json["detail"] and "'twelve'" in answer.json["detail"]
    answer = client.get(path + "?after=-1", headers=club.auth)
    assert answer.status_code == 422


def test_the_stream_is_in_the_openapi_document(stream_calls: Calls) -> None:
    document = stream_calls.client.get("/api/v1/openapi.json").json
    route = document["paths"]["/api/v1/games/{game}/stream"]["get"]
    assert "text/event-stream" in route["responses"]["200"]["content"]
    assert any(parameter["name"] == "Last-Event-ID" for parameter in route["parameters"])


# --- the club's stream --------------------------------------------------------------------------------------
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json"
TOLD = ("game_started", "deal_ended", "game_ended")


def open_club_stream(calls: Calls, club: Club, **headers: str) -> Reader:
    query = headers.pop("query", "")
    answer = calls.client.get(f"/api/v1/clubs/{club.id}/stream{query}", headers={**club.auth, **headers},
                              buffered=False)
    assert answer.status_code == 200, answer.get_data()
    assert answer.mimetype == "text/event-stream"
    return Reader(answer)


def told_of(calls: Calls, club: Club, game: str) -> list[tuple[str, int, int, str]]:
    return [(game, event["seq"], event["deal"], event["type"]) for event in calls.events(club, game)
            if event["type"] in TOLD]


def test_the_club_stream_tells_of_games_created_deals_ended_and_games_ended_in_order(stream_calls: Calls) -> None:
    club = stream_calls.club()
    reader = open_club_stream(stream_calls, club)
    try:
        first = stream_calls.game(club)["id"]
        imported = stream_calls.client.post(f"/api/v1/clubs/{club.id}/imports", headers=club.auth,
                                            json=json.loads(EXAMPLE.read_text(encoding="utf-8")))
        assert imported.status_code == 201, imported.json
        assert stream_calls.act(club, first, {"type": "end"}).status_code == 201
        expected = (told_of(stream_calls, club, first)[:1] + told_of(stream_calls, club, imported.json["id"])
                    + told_of(stream_calls, club, first)[1:])
        assert len(expected) > 4 and any(told[3] == "deal_ended" for told in expected)
        got = [reader.event() for _ in expected]
        assert [position for position, _ in got] == list(range(1, len(expected) + 1))
        assert [(item["game"], item["seq"], item["deal"], item["type"]) for _, item in got] == expected
        assert all(position == item["position"] and item["recorded_at"] for position, item in got)
    finally:
        reader.close()
    for position in (0, 2, len(expected)):  # resumed exactly after it, nothing twice
        reader = open_club_stream(stream_calls, club, **{"Last-Event-ID": str(position)})
        try:
            assert [reader.event()[0] for _ in expected[position:]] == list(range(position + 1, len(expected) + 1))
            block = reader.block()
            assert (reader.block() if block == b"retry: 2000" else block) == b": heartbeat"
        finally:
            reader.close()


def test_the_club_stream_is_the_club_s_own(stream_calls: Calls) -> None:
    club = stream_calls.club()
    game = stream_calls.game(club)["id"]
    neighbour = stream_calls.club("Les Voisins")
    client = stream_calls.client
    path = f"/api/v1/clubs/{club.id}/stream"
    assert client.get(path).status_code == 401
    assert client.get(path, headers=neighbour.auth).status_code == 404
    for body in ({"game": game}, {"scoreboard": True}):
        secret = client.post(f"/api/v1/clubs/{club.id}/shares", json=body, headers=club.auth).json["secret"]
        assert client.get(path, headers={"Authorization": f"Bearer {secret}"}).status_code == 404
    reader = open_club_stream(stream_calls, stream_calls.token(club, "viewer"))
    try:
        assert reader.event()[1]["game"] == game
    finally:
        reader.close()


def test_a_stream_ends_after_its_lifetime_and_the_client_resumes_where_it_was(store: Store) -> None:
    app = new_app(store, STREAM_HEARTBEAT=HEARTBEAT, STREAM_LIFETIME=3 * HEARTBEAT)
    calls = Calls(app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    log = calls.events(club, game)
    answer = calls.client.get(f"/api/v1/games/{game}/stream", headers=club.auth, buffered=False)
    body = b"".join(answer.response)  # it ends by itself
    answer.close()
    assert body.startswith(b"retry: 2000\n\n")
    ids = [int(line[4:]) for line in body.split(b"\n") if line.startswith(b"id: ")]
    assert ids == [event["seq"] for event in log]
    assert body.count(b": heartbeat") <= 3


def test_the_evening_stream_tells_of_its_decisions_as_they_are_made(stream_calls: Calls) -> None:
    club = stream_calls.club()
    client = stream_calls.client
    made = client.post(f"/api/v1/clubs/{club.id}/evenings", json={
        "name": "Jeudi", "players": ["Ana", "Ben", "Chloé"], "rounds": 1, "starting_chips": 60,
        "seating": [[["Ana", "Ben", "Chloé"]]]}, headers=club.auth)
    assert made.status_code == 201, made.get_json()
    path = f"/api/v1/clubs/{club.id}/evenings/{made.json['id']}/stream"
    viewer = stream_calls.token(club, "viewer")
    answer = client.get(path, headers=viewer.auth, buffered=False)
    assert answer.status_code == 200 and answer.mimetype == "text/event-stream"
    reader = Reader(answer)
    try:
        first = client.get(path.replace("/stream", "/decisions"), headers=club.auth).json["decisions"][0]
        del first["mend"]
        assert reader.event() == (1, first)  # as the decisions route shows it
    finally:
        reader.close()
    reader = Reader(client.get(path, headers={**viewer.auth, "Last-Event-ID": "1"}, buffered=False))
    try:
        assert client.post(path.replace("/stream", "/rounds"), json={}, headers=club.auth).status_code == 201
        position, item = reader.event()
        assert (position, item["seq"], item["type"]) == (2, 2, "round_started")
        assert client.post(path.replace("/stream", "/decisions"), json={"type": "freeze", "through_round": 1},
                           headers=club.auth).status_code == 201
        assert reader.event()[1]["type"] == "leaderboard_frozen"
    finally:
        reader.close()
    neighbour = stream_calls.club("Les Voisins")
    assert client.get(path, headers=neighbour.auth).status_code == 404
    assert client.get(f"/api/v1/clubs/{club.id}/evenings/nope/stream", headers=club.auth).status_code == 404
    shared = client.post(f"/api/v1/clubs/{club.id}/shares", json={"evening": made.json["id"]},
                         headers=club.auth).json["secret"]
    reader = Reader(client.get(path, headers={"Authorization": f"Bearer {shared}"}, buffered=False))
    try:
        assert [reader.event()[0] for _ in range(3)] == [1, 2, 3]
    finally:
        reader.close()


SMALL = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
OPENING = [{"type": "deal", "hands": [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]},
           {"type": "play", "seat": 0, "cards": ["AC", "2C"]}, {"type": "play", "seat": 1, "cards": ["3D"]},
           {"type": "play", "seat": 2, "cards": ["4D"]}]
WINNING_PLAY = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}


def test_the_club_stream_tells_of_a_deal_undone_and_a_game_reopened(stream_calls: Calls) -> None:
    club = stream_calls.club()
    game = stream_calls.game(club, rules=SMALL, starting_chips=20)["id"]  # the first deal ends it by shortfall
    assert stream_calls.act(club, game, *OPENING).status_code == 201
    assert stream_calls.act(club, game, WINNING_PLAY).status_code == 201
    reader = open_club_stream(stream_calls, club, query="?after=1")  # after the game started
    try:
        assert [reader.event()[1]["type"] for _ in range(2)] == ["deal_ended", "game_ended"]
        undone = stream_calls.act(club, game, {"type": "undo", "reason": "seat 1 had not played"})
        assert undone.status_code == 201 and undone.json["state"]["status"] == "playing"
        undo_at = next(event["seq"] for event in stream_calls.events(club, game) if event["type"] == "undo")
        got = [reader.event() for _ in range(2)]
        assert [(position, item["type"], item["seq"], item["deal"], item["game"]) for position, item in got] == [
            (4, "deal_undone", undo_at, 1, game), (5, "game_reopened", undo_at, 1, game)]
        assert stream_calls.act(club, game, undone.json["state"]["redo"]).status_code == 201  # ended again
        assert [reader.event()[1]["type"] for _ in range(2)] == ["deal_ended", "game_ended"]
    finally:
        reader.close()
    route = stream_calls.client.get("/api/v1/openapi.json").json["paths"]["/api/v1/clubs/{club}/stream"]["get"]
    assert "`deal_undone`" in route["responses"]["200"]["description"]
    assert "`game_reopened`" in route["responses"]["200"]["description"]


def test_a_tables_stream_tells_its_phone_of_each_decision_by_its_kind_only(stream_calls: Calls) -> None:
    club = stream_calls.club()
    client = stream_calls.client
    made = client.post(f"/api/v1/clubs/{club.id}/evenings", json={
        "name": "Jeudi", "players": ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny"], "rounds": 2,
        "starting_chips": 60}, headers=club.auth)
    assert made.status_code == 201, made.get_json()
    evening, (first, second) = made.json["id"], made.json["links"]
    table = {"Authorization": f"Bearer {first['secret']}"}
    reader = Reader(client.get(f"/api/v1/tables/{first['code']}/stream", headers=table, buffered=False))
    try:
        assert reader.event()[1]["type"] == "evening_created"
        assert client.post(f"/api/v1/clubs/{club.id}/evenings/{evening}/rounds", json={},
                           headers=club.auth).status_code == 201
        position, item = reader.event()
        assert position == 2 and set(item) == {"seq", "type", "recorded_at"} and item["type"] == "round_started"
    finally:
        reader.close()
    reader = Reader(client.get(f"/api/v1/tables/{first['code']}/stream", headers={**club.auth, "Last-Event-ID": "1"},
                               buffered=False))
    try:
        assert reader.event()[0] == 2  # a club token follows it too, and resumes
    finally:
        reader.close()
    assert client.get(f"/api/v1/tables/{second['code']}/stream", headers=table).status_code == 404
    assert client.get("/api/v1/tables/ZZZZZZ/stream", headers=club.auth).status_code == 404
