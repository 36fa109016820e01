"""The README's curl walk-through (docs/walkthrough.sh) against a real server: a complete deal recorded,
an illegal play refused, the deal replayed and the game audited clean."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import threading

import pytest
from waitress.server import create_server

from benchmarks.scratch import migrated_database
from support.apps import new_app
from support.http import ADMIN_TOKEN

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "walkthrough.sh"


@pytest.fixture
def server(tmp_path: pathlib.Path):
    with migrated_database("sqlite", tmp_path) as url:
        app = new_app(url=url)
        server = create_server(app, host="127.0.0.1", port=0, threads=2)
        port = server.socket.getsockname()[1]  # type: ignore[union-attr]
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{port}/api/v1"
        server.close()


@pytest.mark.skipif(shutil.which("curl") is None, reason="the walk-through uses curl, which is not installed")
def test_the_walkthrough_records_replays_and_audits_a_deal(server: str) -> None:
    done = subprocess.run(
        ["bash", str(SCRIPT)], env={**os.environ, "BASE": server, "ADMIN": ADMIN_TOKEN},
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "{'10D': 8, '7D': 40, 'JC': 16, 'KH': 32, 'QS': 24}"  # 8 players staked 1…5 each
    assert lines[1] == "7"  # "sans 7"
    assert lines[2] == "(422, 'out-of-sequence', '8C does not follow: the run wants a 7.')"
    assert lines[3].startswith("('ready', [('Ana', 449), ('Ben', 155)")
    assert lines[4] == "63"  # steps of deal 1
    assert lines[5].startswith("(True, {") and lines[5].endswith("True, True, 51)")
