"""`nj-ledger serve` keeps answering while a thousand idle or slow connections are open.

No token is needed to open a connection: at a server's default limit (waitress's
was 100 connections), 105 idle sockets would leave every new client waiting until it gives up. Another process
(``holders.py``) opens the connections, half of them idle and half trickling a
request head a byte at a time; while they are all open and held by the server,
``/api/v1/health`` on fresh connections answers within 100 ms, with granian's one
worker as with two workers (an answer slower than that is asked for
once more, since other work on a busy machine may delay any one of them). The
server starts with a soft limit of 1,024 open files, as a fresh machine may give.
"""

from __future__ import annotations

import http.client
import os
import resource
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from benchmarks.scratch import migrated_database

from .helpers import ROOT, environment, start_server

CONNECTIONS = 1000
ANSWER_WITHIN = 0.1  # seconds for /health on a fresh connection
PROBES = 5
HOLDERS_LIFETIME = 40  # seconds the holding process lives at most, whatever happens to the test
READY_WITHIN = 10.0  # seconds to open the connections, and for the server to accept them
FRESH_MACHINE_OPEN_FILES = 1024


def processes(root: int) -> list[int]:
    """``root`` and its children."""
    found = [root]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == root:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def sockets_held(root: int) -> int:
    """Sockets open in the server process and its workers."""
    count = 0
    for pid in processes(root):
        try:
            descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for descriptor in descriptors:
            try:
                count += descriptor.readlink().name.startswith("socket:")
            except OSError:
                continue
    return count


def health_time(port: int) -> float:
    """Seconds ``GET /api/v1/health`` takes on a fresh connection (inf: no 200 within 2 s)."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", "/api/v1/health")
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            return float("inf")
    except OSError:
        return float("inf")
    finally:
        connection.close()
    return time.perf_counter() - started


def probe(port: int) -> float:
    """``health_time``, tried once more if slower than ``ANSWER_WITHIN`` (a busy machine may delay any one
    answer; a server that cannot answer is slow twice), then a pause."""
    seconds = health_time(port)
    if seconds >= ANSWER_WITHIN:
        seconds = health_time(port)
    time.sleep(0.2)
    return seconds


@contextmanager
def few_open_files() -> Iterator[None]:
    """Processes started inside start with the soft open-files limit of a fresh machine."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(FRESH_MACHINE_OPEN_FILES, soft), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@contextmanager
def server_on(url: str, folder: Path, workers: int) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``nj-ledger serve`` with ``workers``, stopped afterwards (killed with its workers if it lingers)."""
    with (folder / "server.log").open("wb") as log, few_open_files():
        server, port = start_server(url, folder, log, workers=workers)
    family = set(processes(server.pid))
    try:
        yield server, port
    finally:
        family |= set(processes(server.pid))
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        for pid in family:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        server.wait(timeout=5)


def open_files_limits(pid: int) -> tuple[str, str]:
    """The soft and hard limits of open files of process ``pid`` (numbers, or ``unlimited``)."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return soft, hard
    raise AssertionError(f"no open-files limit for {pid}")


@contextmanager
def holders(url: str, port: int, count: int = CONNECTIONS) -> Iterator[int]:
    """A process holding ``count`` connections to ``port``; how many it made. Closed afterwards."""
    child = subprocess.Popen([sys.executable, "-m", "reliability.holders", str(port), str(count),
                              str(HOLDERS_LIFETIME)], env=environment(url), cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        ready = select.select([child.stdout], [], [], READY_WITHIN)[0]
        assert ready, f"no connections after {READY_WITHIN:.0f} s"
        line = child.stdout.readline().decode()
        assert line.startswith("held "), line
        yield int(line.split()[1])
    finally:
        child.kill()
        child.wait(timeout=10)


@pytest.mark.parametrize("workers", [1, 2], ids=["granian-1-worker", "granian-2-workers"])
def test_health_answers_beside_a_thousand_idle_and_slow_connections(workers: int, tmp_path: Path) -> None:
    with migrated_database("sqlite", tmp_path) as url, server_on(url, tmp_path, workers) as (server, port):
        soft, hard = open_files_limits(server.pid)
        assert soft == hard, f"the server kept a soft limit of {soft} open files (hard: {hard})"
        warm = [health_time(port) for _ in range(10)]  # each worker has answered once
        assert max(warm) < 1.0, warm
        with holders(url, port) as made:
            assert made == CONNECTIONS
            deadline = time.monotonic() + READY_WITHIN
            while sockets_held(server.pid) < CONNECTIONS and time.monotonic() < deadline:
                time.sleep(0.1)
            times = [probe(port) for _ in range(PROBES)]
            held = sockets_held(server.pid)
            assert server.poll() is None, "the server stopped"
        shown = [f"{seconds * 1000:.0f} ms" for seconds in times]
        assert all(seconds < ANSWER_WITHIN for seconds in times), shown
        assert held >= CONNECTIONS, f"the server held {held} sockets, not the {CONNECTIONS} connections"
        assert health_time(port) < 1.0  # and it answers once they are closed
