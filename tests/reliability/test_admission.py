"""What `nj-ledger serve` admits before the app reads a body (api.admission), and what it holds for anyone.

Each test is an attack that broke the server before: a 2 MB body sent half-way
by a caller with no token was read whole, with no deadline, before the token was
checked (1,200 such connections took a worker from 386 MB to 3.7 GB); one client
address could hold every thread; 4,150 idle sockets took every connection place
(4,096 a worker) and ``/api/v1/health`` went unanswered; a second server started
on a port in use and both served. Through a real server on loopback; a client
address of its own is told through ``X-Forwarded-For`` with the loopback as the
trusted proxy, as behind Caddy.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.scratch import migrated_database
from support.http import Calls, Club, HttpClient
from support.scale import sized

from .helpers import environment, start_server
from .test_connections import holders, processes, server_on

DECLARED = 2_000_000  # the length a half-sent body tells: under the 2 MiB limit, as an import may be
HOSTILE = "198.51.100.7"  # the attacker's address, as the proxy tells it
SCORER = "203.0.113.5"  # a scorer's, elsewhere
MB = 1024 * 1024
HOSTILE_SOCKETS = 8000  # idle and slow: past the 4,096 places and the 2,048 waiting a worker had
GIVEN_BACK_WITHIN = 20.0  # seconds: the allocators give freed memory back as the server goes on working


def rss(root: int) -> int:
    """Bytes of memory resident in ``root`` and its children (the server and its workers)."""
    total = 0
    for pid in processes(root):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def head(path: str, length: int, token: str | None = None, forwarded: str | None = None) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
             f"Content-Length: {length}"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    if forwarded is not None:
        lines.append(f"X-Forwarded-For: {forwarded}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def half_sent(port: int, path: str, sent: int, token: str | None = None, forwarded: str | None = None,
              length: int = DECLARED) -> socket.socket:
    """A connection that sent a request head and ``sent`` bytes of its body, and stops there."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection.sendall(head(path, length, token, forwarded))
    with contextlib.suppress(OSError):  # a server that stopped reading: what it got is what it got
        connection.sendall(b" " * sent)
    return connection


def answer(connection: socket.socket, within: float) -> tuple[int, bytes, float]:
    """The status and body of the answer on ``connection``, and the seconds it took (status 0: none in time)."""
    started = time.perf_counter()
    connection.settimeout(within)
    received = b""
    try:
        while b"\r\n\r\n" not in received:
            chunk = connection.recv(65536)
            if not chunk:
                break
            received += chunk
    except OSError:
        pass
    seconds = time.perf_counter() - started
    if not received.startswith(b"HTTP/1.1 "):
        return 0, b"", seconds
    return int(received[9:12]), received, seconds


def closed_by_server(connection: socket.socket, within: float = 3.0) -> bool:
    """Whether the server closes ``connection`` (after its answer) within ``within`` seconds."""
    connection.settimeout(within)
    ends = time.monotonic() + within
    try:
        while time.monotonic() < ends:
            if not connection.recv(65536):
                return True
    except ConnectionResetError:
        return True
    except OSError:
        return False
    return False


@contextlib.contextmanager
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **settings: str) -> Iterator[tuple[int, int, Club]]:
    """``nj-ledger serve`` on SQLite with ``settings`` (NJ_LEDGER_* names without the prefix), the loopback as its
    trusted proxy; its process id, port, and a club."""
    monkeypatch.setenv("NJ_LEDGER_PROXIES", "127.0.0.1")
    for name, value in settings.items():
        monkeypatch.setenv(f"NJ_LEDGER_{name}", value)
    with migrated_database("sqlite", tmp_path) as url, server_on(url, tmp_path, 1) as (process, port):
        yield process.pid, port, Calls(HttpClient(port)).club()


def test_a_large_body_is_refused_before_it_is_read_without_a_valid_token(tmp_path, monkeypatch) -> None:
    with server(tmp_path, monkeypatch, BODY_DEADLINE="3") as (_, port, club):
        imports = f"/api/v1/clubs/{club.id}/imports"
        for token, status in [(None, 401), ("not-a-token-of-this-server", 401), (club.token, 408)]:
            connection = half_sent(port, imports, 100_000, token)
            try:
                got, body, seconds = answer(connection, 10)
                assert got == status, (token, got, body[-300:])
                if status == 401:  # at once: the rest of the body is never waited for
                    assert seconds < 1.5, f"401 after {seconds:.2f} s"
                else:  # a right token: its body is awaited, within its deadline
                    assert 1.5 <= seconds < 6, f"408 after {seconds:.2f} s"
                assert b'"code":"' + (b"unauthorized" if status == 401 else b"request-timeout") in body
                assert closed_by_server(connection), "the connection of a body refused unread stayed open"
            finally:
                connection.close()
        for path, token, status in [("/api/v1/signin", None, 413),  # an open route takes no large body
                                    ("/api/v1/tables/ABCDEFGH/join", None, 413),  # nor does a table's join
                                    ("/api/v1/health", None, 405),  # no such method: refused unread too
                                    ("/api/v1/clubs", None, 401),  # the admin token first
                                    ("/api/v1/clubs", club.token, 403)]:
            connection = half_sent(port, path, 100_000, token)
            try:
                got, body, seconds = answer(connection, 10)
                assert got == status and seconds < 1.5, (path, got, seconds, body[-300:])
            finally:
                connection.close()
        smuggled = socket.create_connection(("127.0.0.1", port), timeout=5)  # a length, then chunks: chunked
        try:
            smuggled.sendall(head(imports, 1).replace(b"\r\n\r\n", b"\r\nTransfer-Encoding: chunked\r\n\r\n")
                             + b"10000\r\n" + b" " * 30_000)
            got, body, seconds = answer(smuggled, 10)
            assert got in (400, 401) and seconds < 1.5, (got, seconds, body[-300:])
        finally:
            smuggled.close()
        small = half_sent(port, imports, 10, club.token, length=1000)  # a small body is awaited as well
        try:
            got, body, seconds = answer(small, 10)
            assert got == 408 and 1.5 <= seconds < 6, (got, seconds, body[-300:])
        finally:
            small.close()


def test_half_sent_bodies_hold_little_memory_and_give_it_back(tmp_path, monkeypatch) -> None:
    count, sent = sized(400, 1200), 300_000
    with server(tmp_path, monkeypatch, CLIENT_REQUESTS="100000") as (pid, port, club):
        calls = Calls(HttpClient(port))
        imports = f"/api/v1/clubs/{club.id}/imports"
        time.sleep(0.5)
        before = rss(pid)
        connections, peak = [], before
        try:
            for number in range(count):
                connections.append(half_sent(port, imports, sent, forwarded=f"10.{number // 250}.{number % 250}.1"))
                if number % 50 == 0:
                    peak = max(peak, rss(pid))
            ends = time.monotonic() + 5
            while time.monotonic() < ends:
                peak = max(peak, rss(pid))
                time.sleep(0.1)
        finally:
            for connection in connections:
                connection.close()
        ends = time.monotonic() + GIVEN_BACK_WITHIN
        while (after := rss(pid)) - before > 30 * MB and time.monotonic() < ends:
            calls.client.get("/api/v1/health")  # a server in use: its allocators give back as they work
            time.sleep(0.2)
        figures = (f"{count} bodies of {sent:,} bytes: {before / MB:.0f} MB before, {peak / MB:.0f} MB at most, "
                   f"{after / MB:.0f} MB after")
        print(figures)
        assert peak - before <= 100 * MB, figures
        assert after - before <= 30 * MB, figures


def test_one_address_may_not_hold_every_request(tmp_path, monkeypatch) -> None:
    with server(tmp_path, monkeypatch, CLIENT_REQUESTS="8") as (_, port, club):
        calls = Calls(HttpClient(port))
        game = calls.game(club)["id"]
        actions = f"/api/v1/games/{game}/actions"
        held = [half_sent(port, actions, 10, club.token, HOSTILE, length=500) for _ in range(8)]
        try:
            time.sleep(0.3)
            one_more = half_sent(port, actions, 10, club.token, HOSTILE, length=500)
            got, body, seconds = answer(one_more, 5)
            one_more.close()
            assert got == 429 and b'"code":"too-many-in-flight"' in body and b"retry-after: 1" in body.lower(), body
            assert seconds < 0.5, f"429 after {seconds:.2f} s"
            scorer = {**club.auth, "X-Forwarded-For": SCORER}
            assert calls.act(club, game, {"type": "deal"}, headers=scorer).status_code == 201
            assert calls.client.get("/api/v1/health", headers={"X-Forwarded-For": SCORER}).status_code == 200
        finally:
            for connection in held:
                connection.close()


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def test_health_and_appends_answer_beside_eight_thousand_hostile_sockets(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NJ_LEDGER_PROXIES", "127.0.0.1")
    with migrated_database("sqlite", tmp_path) as url, server_on(url, tmp_path, 1) as (_, port):
        calls = Calls(HttpClient(port))
        club = calls.club()
        game = calls.game(club)["id"]
        scorer = {**club.auth, "X-Forwarded-For": SCORER}
        assert calls.act(club, game, {"type": "deal"}, headers=scorer).status_code == 201
        hostile = [half_sent(port, f"/api/v1/games/{game}/actions", 10, club.token, HOSTILE, length=500)
                   for _ in range(40)]  # as many requests in flight as the address may have, and more
        try:
            with holders(url, port, HOSTILE_SOCKETS) as made:
                assert made >= HOSTILE_SOCKETS * 0.98, f"{made} hostile sockets only"
                time.sleep(1)
                health, appends = [], []
                for step in range(sized(60, 300)):
                    started = time.perf_counter()
                    assert calls.client.get("/api/v1/health").status_code == 200
                    health.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    adjust = {"type": "adjust", "from": f"seat:{step % 2}", "to": f"seat:{1 - step % 2}",
                              "amount": 1}
                    got = calls.act(club, game, adjust, headers=scorer)
                    appends.append(time.perf_counter() - started)
                    assert got.status_code in (201, 422), got.json
        finally:
            for connection in hostile:
                connection.close()
        figures = (f"beside {made} hostile sockets: /health p99 {percentile(health, 0.99) * 1000:.0f} ms, "
                   f"appends p99 {percentile(appends, 0.99) * 1000:.0f} ms")
        print(figures)
        assert percentile(health, 0.99) <= 0.1 and percentile(appends, 0.99) <= 0.1, figures


def test_a_second_server_on_a_port_in_use_refuses_to_start(tmp_path) -> None:
    with migrated_database("sqlite", tmp_path) as url, (tmp_path / "server.log").open("wb") as log:
        first, port = start_server(url, tmp_path, log)
        try:
            second = subprocess.run(
                [sys.executable, "-m", "cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
                env=environment(url), cwd=tmp_path, capture_output=True, timeout=60)
            assert second.returncode == 1, second
            assert f"Port {port} of 127.0.0.1 is in use" in second.stderr.decode(), second.stderr
            assert first.poll() is None, "the first server stopped"
            assert Calls(HttpClient(port)).client.get("/api/v1/health").status_code == 200
        finally:
            first.terminate()
            first.wait(timeout=20)

