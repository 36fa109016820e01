"""The processes ``serve`` starts end with it, by one parent-death signal (api/orphans.py): granian's workers and
the plain-HTTP server beside HTTPS on a room's network (api/lan_serving.py), even when ``serve`` is killed."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from api import serving
from api.lan_serving import plain_http_beside

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
PR_GET_PDEATHSIG = 2
ROOT = Path(__file__).resolve().parents[2]


def parent_death_signal() -> int:
    """The signal this process gets when its parent is gone (0: none)."""
    value = ctypes.c_int()
    ctypes.CDLL(None, use_errno=True).prctl(PR_GET_PDEATHSIG, ctypes.byref(value), 0, 0, 0)
    return value.value


def test_the_plain_http_server_and_the_workers_end_with_the_server_by_the_same_signal(tmp_path: Path) -> None:
    plain = tmp_path / "plain-http"

    def run(*_: Any) -> None:  # the plain-HTTP port's server, as api.serving starts it
        plain.write_text(str(parent_death_signal()))

    with plain_http_beside(run, {}, "127.0.0.1", 0, 1, 1) as process:
        process.join(30)
    worker = tmp_path / "worker"

    def start_worker() -> None:  # a worker's first step, as granian forks it from the server
        os.environ[serving._SERVER_PID_ENV] = str(os.getppid())
        serving._stop_with_server()
        worker.write_text(str(parent_death_signal()))

    forked = multiprocessing.get_context("fork").Process(target=start_worker)
    forked.start()
    forked.join(30)
    assert int(plain.read_text()) == int(worker.read_text()) == signal.SIGKILL


SERVER = """
import os, sys, time
sys.path.insert(0, {root!r})
from api.lan_serving import plain_http_beside

def run(*_):
    time.sleep(600)

with plain_http_beside(run, {{}}, "127.0.0.1", 0, 1, 1) as process:
    print(process.pid, flush=True)
    time.sleep(600)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return status != "Z"


def test_the_plain_http_server_ends_when_serve_is_killed(tmp_path: Path) -> None:
    server = subprocess.Popen([sys.executable, "-c", textwrap.dedent(SERVER.format(root=str(ROOT)))],
                              stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert server.stdout is not None
        plain = int(server.stdout.readline())
        assert alive(plain)
        server.kill()  # SIGKILL: serve ends with no word to anyone
        server.wait(10)
        deadline = time.monotonic() + 10
        while alive(plain) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(plain), "the plain-HTTP server outlived serve"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
