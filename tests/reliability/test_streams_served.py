"""Streams served by real servers (`nj-ledger serve`, granian's ASGI workers) on SQLite and PostgreSQL.

- two server processes on one database: a follower connected to one sees at
  once what a scorer appends through the other (PostgreSQL's LISTEN/NOTIFY; on
  SQLite, the poll of the followed games' versions);
- a follower whose server is killed reconnects to a server started again with
  ``Last-Event-ID`` and gets exactly the events it had not received: none
  skipped, none twice;
- an idle stream sends heartbeats;
- a token or a share revoked through one server ends the streams it opened on
  every server within a second;
- one client address holds only so many streams open in a worker (429
  ``too-many-streams`` past them), and ``/api/v1/health`` answers meanwhile.

Whatever happens in a test, its servers are killed at its end.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from support.http import ADMIN_TOKEN, HttpClient
from support.scale import scaled, sized

from .helpers import adjust, start_server

HEARTBEAT = 0.5  # seconds, for these servers
SLOW_HEARTBEAT = 3.0  # seconds, for the servers whose followers must be woken by the append itself
WAKE_WITHIN = 1.5  # seconds a follower may take to see an append: sooner than the heartbeat's read of the log
TIMEOUT = 10.0  # seconds a follower's connection waits for anything
REVOKED_WITHIN = 1.0  # seconds from a revocation's answer to the end of every stream it opened
HEALTH_PROBES = 12
HEALTH_WITHIN = 2.0  # seconds a probe of /api/v1/health waits for its answer before it counts as unanswered


class Follower:
    """An SSE client on a connection of its own, reading the stream block by block."""

    def __init__(self, port: int, game: str, token: str, last_event_id: int | None = None,
                 path: str | None = None) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.connection.request("GET", path or f"/api/v1/games/{game}/stream", headers=headers)
        self.answer = self.connection.getresponse()
        assert self.answer.status == 200, self.answer.read()
        assert self.answer.getheader("Content-Type", "").startswith("text/event-stream")
        assert self.answer.getheader("X-NJ-Ledger-Stream") is None  # the hand-over stays inside the server

    def block(self) -> list[str]:
        lines: list[str] = []
        while True:
            line = self.answer.readline().decode()
            assert line, "the stream ended"
            if line == "\n":
                if lines:
                    return lines
                continue
            lines.append(line.rstrip("\n"))

    def event(self) -> tuple[int, dict[str, Any]]:
        while True:
            block = self.block()
            fields = dict(line.split(": ", 1) for line in block if not line.startswith(":"))
            if "id" in fields:
                return int(fields["id"]), json.loads(fields["data"])

    def ends_within(self, seconds: float) -> tuple[bool, float, list[str]]:
        """Read on until the stream ends, ``seconds`` at most: whether it ended, when, and its last lines."""
        started = time.monotonic()
        lines: list[str] = []
        sock = self.connection.sock
        assert sock is not None
        while (left := started + seconds - time.monotonic()) > 0:
            sock.settimeout(left)
            try:
                line = self.answer.readline().decode()
            except TimeoutError:
                break
            if not line:
                return True, time.monotonic() - started, lines
            if line.strip():
                lines.append(line.rstrip("\n"))
        return False, time.monotonic() - started, lines

    def close(self) -> None:
        self.connection.close()


@contextmanager
def servers(url: str, folder: Path, count: int) -> Iterator[list[tuple[subprocess.Popen[bytes], int]]]:
    started: list[tuple[subprocess.Popen[bytes], int]] = []
    try:
        for number in range(count):
            started.append(one_server(url, folder, f"server-{number}"))
        yield started
    finally:
        for server, _ in started:
            kill(server)


def one_server(url: str, folder: Path, name: str) -> tuple[subprocess.Popen[bytes], int]:
    with open(folder / f"{name}.log", "ab") as log:
        return start_server(url, folder, log)


def kill(server: subprocess.Popen[bytes]) -> None:
    """SIGKILL the server (its workers die with it: they ask Linux for it) and wait for it."""
    if server.poll() is None:
        os.kill(server.pid, signal.SIGKILL)
    server.wait(30)


@pytest.fixture(autouse=True)
def _short_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NJ_LEDGER_STREAM_HEARTBEAT", str(HEARTBEAT))


def scorer_of(port: int) -> tuple[HttpClient, str, str, str]:
    """A club, a game of adjustments only, and a client of the server on ``port``; and the club's id."""
    client = HttpClient(port)
    club = client.post("/api/v1/clubs", json={"name": "Le Nain du Jeudi"},
                       headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).json
    game = client.post(f"/api/v1/clubs/{club['id']}/games", json={
        "players": ["Ana", "Ben", "Chloé"], "rules": "classic", "starting_chips": 60},
        headers={"Authorization": f"Bearer {club['token']}"}).json
    return client, club["token"], game["id"], club["id"]


def scorer(port: int) -> tuple[HttpClient, str, str]:
    """A club, a game of adjustments only, and a client of the server on ``port``."""
    client = HttpClient(port)
    club = client.post("/api/v1/clubs", json={"name": "Le Nain du Jeudi"},
                       headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).json
    game = client.post(f"/api/v1/clubs/{club['id']}/games", json={
        "players": ["Ana", "Ben", "Chloé"], "rules": "classic", "starting_chips": 60},
        headers={"Authorization": f"Bearer {club['token']}"}).json
    return client, club["token"], game["id"]


def append(client: HttpClient, token: str, game: str) -> int:
    """One legal adjustment (two events); the game's new version."""
    version = client.get(f"/api/v1/games/{game}", headers={"Authorization": f"Bearer {token}"}).json["version"]
    answer = client.post(f"/api/v1/games/{game}/actions", json={"actions": [adjust(version)]},
                         headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 201, answer.json
    return int(answer.json["state"]["version"])


def log_of(client: HttpClient, token: str, game: str) -> list[dict[str, Any]]:
    return list(client.get(f"/api/v1/games/{game}/events?limit=1000",
                           headers={"Authorization": f"Bearer {token}"}).json["events"])


def test_a_follower_of_one_server_sees_what_another_server_appended(fresh_url: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NJ_LEDGER_STREAM_HEARTBEAT", str(SLOW_HEARTBEAT))
    with servers(fresh_url, tmp_path, 2) as [(_, writing), (_, following)]:
        client, token, game = scorer(writing)
        version = log_of(client, token, game)[-1]["seq"]
        follower = Follower(following, game, token, last_event_id=version)
        try:
            for _ in range(5):
                appended_at = time.monotonic()
                version = append(client, token, game)
                seen = [follower.event()[0], follower.event()[0]]
                assert seen == [version - 1, version]
                assert time.monotonic() - appended_at < WAKE_WITHIN
            assert follower.block() == [": heartbeat"]  # nothing more: not one event twice
        finally:
            follower.close()
        follower = Follower(following, game, token)  # from the start: the whole log, as /events shows it
        try:
            log = log_of(client, token, game)
            assert [follower.event() for _ in log] == [(event["seq"], event) for event in log]
        finally:
            follower.close()


def test_a_follower_resumes_exactly_after_its_server_was_killed(fresh_url: str, tmp_path: Path) -> None:
    with servers(fresh_url, tmp_path, 1) as [(writing_server, writing)]:
        client, token, game = scorer(writing)
        following_server, following = one_server(fresh_url, tmp_path, "following")
        try:
            follower = Follower(following, game, token)
            received = [follower.event() for _ in log_of(client, token, game)]
            append(client, token, game)
            received.append(follower.event())  # the adjustment; its transfer may or may not arrive before the kill
            kill(following_server)
            follower.close()
            for _ in range(3):  # appended while the follower has no server
                append(client, token, game)
            following_server, following = one_server(fresh_url, tmp_path, "following-again")
            follower = Follower(following, game, token, last_event_id=received[-1][0])
            log = log_of(client, token, game)
            received += [follower.event() for _ in log[received[-1][0]:]]
            append(client, token, game)
            log = log_of(client, token, game)
            received += [follower.event() for _ in range(2)]
            assert received == [(event["seq"], event) for event in log]
            assert follower.block() == [": heartbeat"]
            follower.close()
        finally:
            kill(following_server)
        assert writing_server.poll() is None


def test_an_idle_stream_sends_heartbeats_and_refusals_stay_problems(fresh_url: str, tmp_path: Path) -> None:
    with servers(fresh_url, tmp_path, 1) as [(_, port)]:
        client, token, game = scorer(port)
        version = log_of(client, token, game)[-1]["seq"]
        follower = Follower(port, game, token, last_event_id=version)
        try:
            assert follower.block() == ["retry: 2000"]
            started = time.monotonic()
            assert [follower.block() for _ in range(3)] == [[": heartbeat"]] * 3
            assert time.monotonic() - started >= 2 * HEARTBEAT
        finally:
            follower.close()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", f"/api/v1/games/{game}/stream", headers={"Authorization": "Bearer nope"})
        answer = connection.getresponse()
        assert answer.status == 401 and answer.getheader("Content-Type") == "application/problem+json"
        assert json.loads(answer.read())["code"] == "unauthorized"
        connection.close()


def test_a_club_follower_of_one_server_sees_games_created_and_ended_through_another(
        fresh_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NJ_LEDGER_STREAM_HEARTBEAT", str(SLOW_HEARTBEAT))
    with servers(fresh_url, tmp_path, 2) as [(_, writing), (_, following)]:
        client, token, first, club = scorer_of(writing)
        follower = Follower(following, "", token, last_event_id=1, path=f"/api/v1/clubs/{club}/stream")
        auth = {"Authorization": f"Bearer {token}"}
        try:
            created_at = time.monotonic()
            second = client.post(f"/api/v1/clubs/{club}/games", json={
                "players": ["Ana", "Ben"], "rules": "classic", "starting_chips": 60}, headers=auth).json["id"]
            position, item = follower.event()
            assert time.monotonic() - created_at < WAKE_WITHIN
            assert (position, item["game"], item["type"], item["seq"]) == (2, second, "game_started", 1)
            ended = client.post(f"/api/v1/games/{first}/actions", json={"actions": [{"type": "end"}]}, headers=auth)
            assert ended.status_code == 201, ended.json
            position, item = follower.event()
            assert (position, item["game"], item["type"]) == (3, first, "game_ended")
        finally:
            follower.close()


def test_a_revoked_share_or_token_ends_its_streams_on_every_server_within_a_second(
        fresh_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The revocation goes through one server; the streams it ends are on both, each woken by it (PostgreSQL's
    notification, SQLite's poll), not by a heartbeat, which comes only every few seconds here."""
    monkeypatch.setenv("NJ_LEDGER_STREAM_HEARTBEAT", str(SLOW_HEARTBEAT))
    with servers(fresh_url, tmp_path, 2) as [(_, first), (_, second)]:
        client, token, game, club = scorer_of(first)
        auth = {"Authorization": f"Bearer {token}"}
        share = client.post(f"/api/v1/clubs/{club}/shares", json={"game": game}, headers=auth).json
        viewer = client.post(f"/api/v1/clubs/{club}/tokens", json={"role": "viewer"}, headers=auth).json
        version = log_of(client, token, game)[-1]["seq"]
        followers = {(name, port): Follower(port, game, secret, last_event_id=version)
                     for name, secret in (("share", share["secret"]), ("viewer", viewer["token"]))
                     for port in (first, second)}
        try:
            for follower in followers.values():
                assert follower.block() == ["retry: 2000"]
            for name, path in (("share", f"/api/v1/clubs/{club}/shares/{share['id']}"),
                               ("viewer", f"/api/v1/clubs/{club}/tokens/{viewer['id']}")):
                assert client.delete(path, headers=auth).status_code == 204
                revoked_at = time.monotonic()
                for (whose, port), follower in followers.items():
                    if whose != name:
                        continue
                    ended, _, lines = follower.ends_within(REVOKED_WITHIN - (time.monotonic() - revoked_at))
                    assert ended, (name, port, lines)
                    assert lines[-1:] == [": revoked"]
                assert time.monotonic() - revoked_at < REVOKED_WITHIN
        finally:
            for follower in followers.values():
                follower.close()
        for secret in (share["secret"], viewer["token"]):  # the reconnection: the usual 401
            again = HttpClient(second).get(f"/api/v1/games/{game}/stream",
                                           headers={"Authorization": f"Bearer {secret}"})
            assert again.status_code == 401 and again.json["code"] == "unauthorized"


def open_raw_stream(port: int, path: str, secret: str) -> tuple[socket.socket, int, dict[str, str], bytes]:
    """A stream asked for on a socket of its own: the socket (left open), the status, the headers and, for a
    refusal, its body."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {secret}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        assert chunk, received
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    status = int(status_line.split()[1])
    if status != 200:
        while len(body) < int(headers.get("content-length", 0)):
            body += sock.recv(65536)
    return sock, status, headers, body


def health_probes(port: int) -> list[float | None]:
    """``HEALTH_PROBES`` asks of /api/v1/health on fresh connections: the seconds of each answer, None for none."""
    times: list[float | None] = []
    for _ in range(HEALTH_PROBES):
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HEALTH_WITHIN)
            connection.request("GET", "/api/v1/health")
            answered = connection.getresponse().status == 200
            connection.close()
        except OSError:
            answered = False
        times.append(time.monotonic() - started if answered else None)
    return times


@scaled
def test_one_share_link_from_one_address_holds_so_many_streams_and_health_answers(
        fresh_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The attack: streams opened with one published share link from one address, until the server's places
    run out. Each worker lets the address hold its limit (set low here, 10; the default, 64, in the thorough
    run, which opens 4,096), answers the rest 429 at once, and /api/v1/health answers all along."""
    count, limit = sized((200, 10), (4096, 64))
    workers = 2
    monkeypatch.setenv("NJ_LEDGER_STREAMS_PER_ADDRESS", str(limit))
    with open(tmp_path / "server.log", "ab") as log:
        server, port = start_server(fresh_url, tmp_path, log, workers=workers)
    opened: list[socket.socket] = []
    try:
        client, token, game, club = scorer_of(port)
        share = client.post(f"/api/v1/clubs/{club}/shares", json={"game": game},
                            headers={"Authorization": f"Bearer {token}"}).json["secret"]
        statuses: dict[int, int] = {}
        for _ in range(count):
            sock, status, headers, body = open_raw_stream(port, f"/api/v1/games/{game}/stream", share)
            statuses[status] = statuses.get(status, 0) + 1
            if status == 200:
                opened.append(sock)
                continue
            sock.close()
            assert status == 429, body
            assert json.loads(body)["code"] == "too-many-streams" and headers["retry-after"] == "10"
        assert limit <= statuses.get(200, 0) <= limit * workers, statuses
        times = health_probes(port)
        answered = [seconds for seconds in times if seconds is not None]
        assert len(answered) == HEALTH_PROBES, times
        for sock in opened:  # the streams end: their places are given back
            sock.close()
        opened.clear()
        time.sleep(0.5)
        sock, status, _, body = open_raw_stream(port, f"/api/v1/games/{game}/stream", share)
        sock.close()
        assert status == 200, body
    finally:
        for sock in opened:
            sock.close()
        kill(server)
