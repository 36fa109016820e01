"""The access log: a JSON line per request with its id, and nothing of tokens, query strings, bodies or names;
and the readiness check beside the health check."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
from flask import Flask

from api import create_app
from nj_ledger.store import Store
from support.http import ADMIN_TOKEN, Calls

FIELDS = {"time", "request_id", "method", "route", "path", "status", "duration_ms", "bytes", "client"}


@pytest.fixture
def logged(store: Store) -> Iterator[tuple[Flask, io.StringIO]]:
    lines = io.StringIO()
    yield create_app({"DATABASE_URL": store.db.url, "STORE": store, "ADMIN_TOKEN": ADMIN_TOKEN,
                      "ACCESS_LOG": "json", "ACCESS_LOG_STREAM": lines}), lines


def entries(lines: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in lines.getvalue().splitlines()]


def test_each_request_is_one_json_line_with_the_answers_request_id(logged) -> None:
    app, lines = logged
    client = app.test_client()
    calls = Calls(client)
    club = calls.club()
    game = calls.game(club)["id"]
    answers = [client.get(f"/api/v1/games/{game}/events?after=0&limit=5", headers=club.auth),
               calls.act(club, game, {"type": "play", "seat": 2, "cards": ["KS"]}),
               client.get(f"/api/v1/clubs/{club.id}/players/Chloé/stats?player=Ana", headers=club.auth),
               client.get("/api/v1/nowhere?secret=1", headers={"X-Request-Id": "chosen-by-the-client"})]
    written = entries(lines)
    assert len(written) == 6  # the club, the game, and the four above
    for entry in written:
        assert set(entry) == FIELDS, entry
        assert entry["client"] == "127.0.0.1" and entry["duration_ms"] >= 0
        assert str(entry["time"]).endswith("Z")
    events, refused, stats, nowhere = written[2:]
    assert [entry["request_id"] for entry in written[2:]] == [answer.headers["X-Request-Id"] for answer in answers]
    assert nowhere["request_id"] != "chosen-by-the-client"  # a client does not name its request: no proxy here
    assert (events["route"], events["method"], events["status"], events["path"]) == (
        "games.Events", "GET", 200, f"/api/v1/games/{game}/events")
    assert events["bytes"] == len(answers[0].get_data())
    assert (refused["route"], refused["status"]) == ("games.Actions", 422)
    assert (stats["route"], stats["path"]) == (
        "scoreboards.PlayerStats", f"/api/v1/clubs/{club.id}/players/<player>/stats")
    assert (nowhere["route"], nowhere["status"], nowhere["path"]) == ("unmatched", 404, "/api/v1/nowhere")
    text = lines.getvalue()
    for never in (club.token, ADMIN_TOKEN, "?", "after=", "secret", "Chloé", "Ana"):
        assert never not in text, never


def test_a_request_id_is_taken_from_a_trusted_proxy_only(store: Store) -> None:
    lines = io.StringIO()
    app = create_app({"DATABASE_URL": store.db.url, "STORE": store, "ACCESS_LOG": "json", "ACCESS_LOG_STREAM": lines,
                      "PROXIES": "127.0.0.1"})
    proxy, client = app.test_client(), app.test_client()
    proxy.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    client.environ_base["REMOTE_ADDR"] = "198.51.100.7"
    named = {"X-Request-Id": "from-the-proxy.1", "X-Forwarded-For": "203.0.113.9"}
    assert proxy.get("/api/v1/health", headers=named).headers["X-Request-Id"] == "from-the-proxy.1"
    assert client.get("/api/v1/health", headers=named).headers["X-Request-Id"] != "from-the-proxy.1"
    assert proxy.get("/api/v1/health", headers={"X-Request-Id": "no spaces"}).headers["X-Request-Id"] != "no spaces"
    first, second, _ = entries(lines)
    assert (first["request_id"], first["client"]) == ("from-the-proxy.1", "203.0.113.9")
    assert second["client"] == "198.51.100.7"


def test_the_access_log_is_off_unless_asked(store: Store, capfd) -> None:
    client = create_app({"DATABASE_URL": store.db.url, "STORE": store}).test_client()
    assert client.get("/api/v1/health").status_code == 200
    assert "request_id" not in capfd.readouterr().err


def test_an_unknown_access_log_setting_is_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="NJ_LEDGER_ACCESS_LOG"):
        create_app({"DATABASE_URL": store.db.url, "STORE": store, "ACCESS_LOG": "yes"})


def test_ready_reads_the_schemas_revision(client) -> None:
    answer = client.get("/api/v1/ready")
    assert answer.status_code == 200 and answer.json["status"] == "ready" and answer.json["revision"]
    assert client.get("/api/v1/health").json == {"status": "ok"}


def test_ready_answers_503_until_the_schema_is_migrated(problem) -> None:
    client = create_app({"DATABASE_URL": "sqlite://"}).test_client()  # an empty database: no schema
    assert client.get("/api/v1/health").status_code == 200  # up, not ready
    body = problem(client.get("/api/v1/ready"), 503, "unavailable")
    assert "revision none" in body["detail"] and "nj-ledger db upgrade" in body["detail"]
    french = problem(client.get("/api/v1/ready", headers={"Accept-Language": "fr"}), 503, "unavailable")
    assert "révision none" in french["detail"] and "lancez nj-ledger db upgrade" in french["detail"]


def test_ready_and_health_answer_503_without_a_database(problem) -> None:
    client = create_app({"DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:1/none"}).test_client()
    for path in ("/api/v1/health", "/api/v1/ready"):
        answer = client.get(path)
        problem(answer, 503, "unavailable")
        assert answer.headers["X-Request-Id"]


def test_a_server_errors_log_names_the_request_id_its_answer_carries(client, problem, monkeypatch,
                                                                    caplog) -> None:
    def broken() -> None:
        raise RuntimeError("a fault of the test's making")

    monkeypatch.setattr("api.health.store", broken)
    answer = client.get("/api/v1/health")
    problem(answer, 500, "internal-error")
    assert f"(request {answer.headers['X-Request-Id']})" in caplog.text and "a fault of the test" in caplog.text


def test_a_line_stays_one_write_of_at_most_4096_bytes_whatever_the_path(logged) -> None:
    app, lines = logged
    client = app.test_client()
    for path in ("/api/v1/" + "%01" * 1500, "/" + "é" * 3000, "/" + "x" * 9000):
        assert client.get(path).status_code == 404
    written = lines.getvalue().splitlines()
    assert len(written) == 3
    assert all(len(line.encode()) + 1 <= 4096 and json.loads(line)["status"] == 404 for line in written)
