"""`nj-ledger serve --workers N`: the workers stop with the server, however it stops.

A worker left behind by a killed server would go on answering (and writing) on
the server's port, and a restarted server could not bind it. Linux tells a
worker of its server's death once per thread of the dying server, so a worker
may be told several times; a client in the middle of a request may hold it.
Whatever happens in a test, its server and workers are killed at its end.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .helpers import environment, free_port, start_server
from .slow_starting_server import FORK_PAUSE_ENV

STOP_WITHIN = 20.0
STOPPED_STARTING_WITHIN = 6.0  # seconds: less than the STOP_GRACE (10 s) before a server kills a worker
FORK_PAUSE = 5.0  # seconds a just forked worker waits, before its app is made
SLOW_HEAD = b"POST /api/v1/clubs HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # a request head never finished


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.connect(("127.0.0.1", port))
        except OSError:
            return True
    return False


def sockets(pid: int) -> int:
    """How many sockets ``pid`` has open."""
    count = 0
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return 0
    for descriptor in descriptors:
        try:
            count += descriptor.readlink().name.startswith("socket:")
        except OSError:
            continue
    return count


def wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + STOP_WITHIN
    while not condition():
        assert time.monotonic() < deadline, f"after {STOP_WITHIN:.0f} s: {what}"
        time.sleep(0.1)


def send(pids: set[int], signum: signal.Signals) -> None:
    """``signum`` to each of ``pids`` still there."""
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


@contextmanager
def started_with_workers(url: str, folder: Path) -> Iterator[tuple[subprocess.Popen[bytes], int, set[int]]]:
    """``nj-ledger serve --workers 2``, its port and its workers; all killed at the end, whatever happened."""
    with (folder / "server.log").open("wb") as log:
        server, port = start_server(url, folder, log, workers=2)
    workers = children(server.pid)
    try:
        assert len(workers) == 2, workers
        yield server, port, workers
    finally:
        send({server.pid} | workers | children(server.pid), signal.SIGKILL)
        server.wait(timeout=STOP_WITHIN)


@contextmanager
def slow_clients(port: int, workers: set[int]) -> Iterator[None]:
    """Connections that each send part of a request head and then nothing, until every worker holds some."""
    held: list[socket.socket] = []
    listening = {pid: sockets(pid) for pid in workers}
    try:
        deadline = time.monotonic() + STOP_WITHIN
        while not all(sockets(pid) > listening[pid] for pid in workers):
            assert time.monotonic() < deadline, "the workers never held the slow clients"
            connection = socket.create_connection(("127.0.0.1", port), timeout=5)
            connection.sendall(SLOW_HEAD)
            held.append(connection)
            time.sleep(0.05)
        yield
    finally:
        for connection in held:
            connection.close()


def test_killed_server_takes_its_workers_along(fresh_url: str, tmp_path: Path) -> None:
    with started_with_workers(fresh_url, tmp_path) as (server, port, workers):
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=STOP_WITHIN)
        wait_for(lambda: not any(alive(pid) for pid in workers), f"workers {workers} outlived their server")
        wait_for(lambda: port_free(port), f"port {port} still answers")


def test_killed_server_takes_along_workers_held_by_clients_and_told_again_and_again(
        fresh_url: str, tmp_path: Path) -> None:
    with started_with_workers(fresh_url, tmp_path) as (server, port, workers), slow_clients(port, workers):
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=STOP_WITHIN)
        for _ in range(3):  # as Linux does, once for each thread of the dying server
            time.sleep(0.2)
            send(workers, signal.SIGTERM)
        wait_for(lambda: not any(alive(pid) for pid in workers), f"workers {workers} outlived their server")
        wait_for(lambda: port_free(port), f"port {port} still answers")


def test_terminated_server_stops_its_workers_and_exits_cleanly(fresh_url: str, tmp_path: Path) -> None:
    with started_with_workers(fresh_url, tmp_path) as (server, port, workers):
        server.terminate()
        assert server.wait(timeout=STOP_WITHIN) == 0
        wait_for(lambda: not any(alive(pid) for pid in workers), f"workers {workers} outlived the server")
        assert port_free(port)


def test_server_stopped_while_its_workers_start_stops_them_at_once(fresh_url: str, tmp_path: Path) -> None:
    """Just forked, a worker still has the server's signal handlers: the stop must end it, not be lost."""
    with (tmp_path / "server.log").open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "reliability.slow_starting_server", "serve", "--host", "127.0.0.1",
             "--port", str(free_port()), "--workers", "2"],
            env={**environment(fresh_url), FORK_PAUSE_ENV: str(FORK_PAUSE)}, cwd=tmp_path, stdout=log,
            stderr=subprocess.STDOUT)
    workers: set[int] = set()
    try:
        wait_for(lambda: server.poll() is not None or len(children(server.pid)) == 2, "no workers started")
        assert server.poll() is None, (tmp_path / "server.log").read_text()
        workers = children(server.pid)
        time.sleep(0.3)  # both paused after their fork
        server.terminate()
        try:
            assert server.wait(timeout=STOPPED_STARTING_WITHIN) == 0
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the server still stopping after {STOPPED_STARTING_WITHIN:.0f} s") from None
        wait_for(lambda: not any(alive(pid) for pid in workers), f"workers {workers} outlived the server")
    finally:
        send({server.pid} | workers | children(server.pid), signal.SIGKILL)
        server.wait(timeout=STOP_WITHIN)
