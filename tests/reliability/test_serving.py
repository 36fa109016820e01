"""`nj-ledger serve --workers N`: the workers stop with the server, however it stops.

A worker left behind by a killed server would go on answering (and writing) on
the server's port, and a restarted server could not bind it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from .helpers import start_server

STOP_WITHIN = 20.0


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


def wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + STOP_WITHIN
    while not condition():
        assert time.monotonic() < deadline, f"after {STOP_WITHIN:.0f} s: {what}"
        time.sleep(0.1)


def started_with_workers(url: str, folder: Path, log_name: str) -> tuple[subprocess.Popen[bytes], int, set[int]]:
    with (folder / log_name).open("wb") as log:
        server, port = start_server(url, folder, log, workers=2)
    workers = children(server.pid)
    assert len(workers) == 2, workers
    return server, port, workers


def test_killed_server_takes_its_workers_along(fresh_url: str, tmp_path: Path) -> None:
    server, port, workers = started_with_workers(fresh_url, tmp_path, "server.log")
    os.kill(server.pid, signal.SIGKILL)
    server.wait(timeout=STOP_WITHIN)
    wait_for(lambda: not any(alive(pid) for pid in workers), f"workers {workers} outlived the killed server")
    wait_for(lambda: port_free(port), f"port {port} still answers")


def test_terminated_server_stops_its_workers_and_exits_cleanly(fresh_url: str, tmp_path: Path) -> None:
    server, port, workers = started_with_workers(fresh_url, tmp_path, "server.log")
    server.terminate()
    assert server.wait(timeout=STOP_WITHIN) == 0
    wait_for(lambda: not any(alive(pid) for pid in workers), f"workers {workers} outlived the server")
    assert port_free(port)
