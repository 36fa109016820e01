"""`nj-ledger serve --workers 2`: `/metrics` adds up both workers, and the access log names every request by the
id its answer carries.

Each worker counts in files of its own; a scrape reaches one worker. Two
keep-alive connections are held, one to each worker (told apart by the sockets
each worker holds: /proc), and 20 requests are sent on each: whichever worker
answers the scrape must count all 40, and still does once one of them is killed (its
open stream then leaves the count of followers). On SQLite only: how a worker
counts does not depend on the database.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from api.serving import remove_dead_metrics_folders
from support.http import ADMIN_TOKEN, Calls, HttpClient

from .helpers import start_server
from .test_serving import STOP_WITHIN, children, send

PER_WORKER = 20
ACCESS_FIELDS = {"time", "request_id", "method", "route", "path", "status", "duration_ms", "bytes", "client"}


def scraped(port: int, connection: http.client.HTTPConnection | None = None) -> dict[tuple[str, tuple], float]:
    """``GET /metrics`` over HTTP, parsed by prometheus_client: every sample by (name, labels)."""
    client = HttpClient.over(connection) if connection is not None else HttpClient(port, timeout=10)
    answer = Calls(client).get("/metrics")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain"), answer.headers
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(answer.data.decode()) for sample in family.samples}


def socket_inodes(pid: int) -> set[str]:
    """The sockets ``pid`` holds (``socket:[inode]``)."""
    held = set()
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return held
    for descriptor in descriptors:
        try:
            target = os.readlink(descriptor)
        except OSError:
            continue
        if target.startswith("socket:"):
            held.add(target)
    return held


def one_connection_per_worker(port: int, workers: set[int]) -> tuple[dict[int, http.client.HTTPConnection], list]:
    """A keep-alive connection held by each worker, and every connection opened to find them (kept open until
    the end). Which worker took a connection: the one that holds a socket it did not hold before."""
    held: dict[int, http.client.HTTPConnection] = {}
    opened: list[http.client.HTTPConnection] = []
    deadline = time.monotonic() + STOP_WITHIN
    while len(held) < len(workers):
        assert time.monotonic() < deadline, "the connections never reached every worker"
        known = {pid: socket_inodes(pid) for pid in workers}
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.connect()
        opened.append(connection)
        takers: list[int] = []
        while not takers and time.monotonic() < deadline:
            takers = [pid for pid in workers if socket_inodes(pid) - known[pid]]
            time.sleep(0.01)
        if len(takers) == 1 and takers[0] not in held:
            held[takers[0]] = connection
    return held, opened


def follow(port: int, game: str, token: str, workers: set[int]) -> tuple[socket.socket, bytes, int]:
    """A stream of ``game`` on a raw connection, once its first line came (it is counted by then): the
    connection, what came, and the worker that serves it."""
    known = {pid: socket_inodes(pid) for pid in workers}
    follower = socket.create_connection(("127.0.0.1", port), timeout=10)
    follower.sendall(f"GET /api/v1/games/{game}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Authorization: Bearer {token}\r\n\r\n".encode())
    head = b""
    while b"retry:" not in head:
        chunk = follower.recv(4096)
        assert chunk, head
        head += chunk
    [holder] = [pid for pid in workers if socket_inodes(pid) - known[pid]]
    return follower, head, holder


def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for ``condition``; a scrape cut off meanwhile (a connection the killed worker took) is tried again."""
    deadline = time.monotonic() + STOP_WITHIN
    while True:
        try:
            if condition():
                return
        except OSError:
            pass
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_metrics_add_up_both_workers_and_the_log_names_each_request(fresh_url: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where the server makes its metrics folder
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server, port = start_server(fresh_url, tmp_path, log, workers=2)
    workers = children(server.pid)
    folders = list(tmp_path.glob("nj-ledger-metrics-*"))
    opened: list[http.client.HTTPConnection] = []
    try:
        assert len(workers) == 2 and len(folders) == 1, (workers, folders)
        setup = Calls(HttpClient(port, timeout=10))
        club = setup.post("/api/v1/clubs", {"name": "Le Cercle des Métriques"}, token=ADMIN_TOKEN).json
        token = club["token"]
        made = setup.post(f"/api/v1/clubs/{club['id']}/games",
                          {"players": ["Ana", "Ben", "Chloé"], "rules": "classic", "starting_chips": 60}, token=token)
        assert made.status_code == 201, made.data
        game = made.json["id"]
        setup.client.close()

        held, opened = one_connection_per_worker(port, workers)
        ids: list[str] = []
        for connection in held.values():
            calls = Calls(HttpClient.over(connection))
            for number in range(PER_WORKER):
                answer = calls.get(f"/api/v1/games/{game}/events?after={number}", token=token)
                assert answer.status_code == 200
                ids.append(answer.headers["x-request-id"])
        answer = Calls(HttpClient.over(held[min(held)])).get("/api/v1/nowhere", headers={"X-Request-Id": "mine-1"})
        assert answer.status_code == 404 and answer.headers["x-request-id"] != "mine-1"  # a client does not name
        unmatched = answer.headers["x-request-id"]  # its request
        events = (("method", "GET"), ("route", "games.Events"), ("status", "200"))
        for connection in held.values():  # each worker answers a scrape: each counts both workers' requests
            assert scraped(port, connection)[("nj_ledger_http_requests_total", events)] == 2 * PER_WORKER

        game_followers = ("nj_ledger_stream_followers", (("kind", "game"),))
        follower, head, _ = follow(port, game, token, workers)
        assert head.startswith(b"HTTP/1.1 200") and b"x-request-id:" in head.lower(), head
        assert scraped(port)[game_followers] == 1
        follower.close()
        until(lambda: scraped(port)[game_followers] == 0, "the closed stream is still counted")

        follower, _, holder = follow(port, game, token, workers)  # its worker is killed: granian starts another
        assert scraped(port)[game_followers] == 1
        os.kill(holder, signal.SIGKILL)
        until(lambda: scraped(port)[game_followers] == 0, "the killed worker's stream is still counted")
        until(lambda: scraped(port)[("nj_ledger_http_requests_total", events)] == 2 * PER_WORKER,
              "the killed worker's counts left the sums")  # they stay: a count never goes back
        follower.close()
        for connection in opened:
            connection.close()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=STOP_WITHIN)
    finally:
        send({server.pid} | workers | children(server.pid), signal.SIGKILL)
        server.wait(timeout=STOP_WITHIN)
    assert not folders[0].exists()  # the run's metrics folder goes with the server

    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
    logged = {line["request_id"]: line for line in lines}
    assert all(set(line) == ACCESS_FIELDS for line in lines)
    assert set(ids) <= set(logged) and len(set(ids)) == len(ids)
    assert {(logged[one]["route"], logged[one]["path"], logged[one]["status"]) for one in ids} == {
        ("games.Events", f"/api/v1/games/{game}/events", 200)}
    assert logged[unmatched]["status"] == 404 and "mine-1" not in logged
    streams = [line for line in lines if line["route"] == "streams.GameStream"]
    assert len(streams) == 2 and {(line["status"], line["bytes"]) for line in streams} == {(200, None)}
    assert streams[0]["request_id"] in head.decode()
    text = log_path.read_text()
    assert token not in text and ADMIN_TOKEN not in text and "after=" not in text


def test_the_metrics_folders_of_servers_killed_before_are_removed_at_the_next_start(tmp_path: Path) -> None:
    gone = 2**22 + 12345  # above Linux's default pid_max: no such process
    for name in (f"nj-ledger-metrics-{gone}-ab_1", f"nj-ledger-metrics-{os.getpid()}-cd_2", "nj-ledger-metrics-x"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "counter_1.db").write_bytes(b"")
    remove_dead_metrics_folders(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == [f"nj-ledger-metrics-{os.getpid()}-cd_2",
                                                                "nj-ledger-metrics-x"]
