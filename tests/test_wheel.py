"""The wheel runs: built from this source tree, installed into a fresh virtual environment outside it, the
ledger migrates, loads the examples and serves from any folder, in both languages.

The fresh environment installs the wheel's dependencies from the package index, as a new user's would.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nj_ledger.store.migrate import head_revision
from support.http import Calls, HttpClient

ROOT = Path(__file__).resolve().parents[1]
SERVER_READY_WITHIN = 30.0  # seconds
INSTALL_WITHIN = 600  # seconds for pip, downloads included


def run(*command: str | Path, cwd: Path, env: dict[str, str], timeout: float = 120) -> str:
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, timeout=timeout)
    assert done.returncode == 0, f"{command}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` folder of a fresh virtual environment holding the ledger's wheel and nothing of this tree."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "source"  # the files a clone of this tree holds (with changes not committed yet)
    listed = run("git", "ls-files", "--cached", "--others", "--exclude-standard", cwd=ROOT, env=dict(os.environ))
    for name in listed.splitlines():
        origin, target = ROOT / name, source / name
        if not origin.exists() and not origin.is_symlink():  # deleted, not committed yet
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_symlink():
            target.symlink_to(os.readlink(origin))
        else:
            shutil.copy2(origin, target)
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("NJ_LEDGER_", "VIRTUAL_ENV", "PYTHON"))}
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", folder / "dist", source,
        cwd=folder, env=environment, timeout=INSTALL_WITHIN)
    wheels = list((folder / "dist").glob("nj_ledger-*.whl"))
    assert len(wheels) == 1, wheels
    base = getattr(sys, "_base_executable", sys.executable)
    run(base, "-m", "venv", folder / "venv", cwd=folder, env=environment)
    run(folder / "venv" / "bin" / "python", "-m", "pip", "install", "--quiet", wheels[0], cwd=folder,
        env=environment, timeout=INSTALL_WITHIN)
    return folder / "venv" / "bin"


def test_the_wheel_holds_what_the_ledger_reads_and_no_test_helper(installed: Path) -> None:
    site = next((installed.parent / "lib").glob("python3.*/site-packages"))
    assert sorted(p.name for p in (site / "nj_ledger" / "migrations" / "versions").glob("0*.py"))[:1] == [
        "0001_initial.py"]
    assert len(list((site / "nj_ledger" / "examples").glob("*.json"))) >= 5
    assert (site / "nj_ledger" / "py.typed").is_file()
    # the solver's compiled searches, built with the wheel, and their types
    assert len(list((site / "nj_ledger" / "analysis").glob("_maxn.*.so"))) == 1
    assert (site / "nj_ledger" / "analysis" / "_maxn.pyi").is_file()
    assert not (site / "nj_ledger" / "analysis" / "_maxn.c").exists()
    assert (site / "api" / "translations" / "fr" / "LC_MESSAGES" / "messages.po").is_file()
    assert (site / "api" / "translations" / "fr" / "LC_MESSAGES" / "messages.mo").is_file()  # compiled at build
    assert not (site / "nj_ledger" / "store" / "scratch.py").exists()
    assert not (site / "tests").exists()


def test_the_installed_ledger_migrates_loads_and_serves_from_any_folder(installed: Path, tmp_path: Path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("NJ_LEDGER_", "VIRTUAL_ENV", "PYTHON"))}
    environment["HOME"] = str(home)  # the instance folder by default: ~/.local/share/nj-ledger
    ledger = installed / "nj-ledger"

    upgraded = run(ledger, "db", "upgrade", cwd=elsewhere, env=environment)
    assert f"at revision {head_revision()}." in upgraded, upgraded
    instance = home / ".local" / "share" / "nj-ledger"
    assert (instance / "nj-ledger.sqlite").is_file()
    loaded = run(ledger, "demo", cwd=elsewhere, env=environment)
    assert "5 games loaded" in loaded, loaded
    assert (instance / "signing.key").is_file()
    assert list(elsewhere.iterdir()) == []  # nothing written where the commands ran

    admin = run(ledger, "admin-token", cwd=elsewhere, env=environment).strip()
    port = free_port()
    server = subprocess.Popen([ledger, "serve", "--port", str(port)], cwd=tmp_path,
                              env={**environment, "NJ_LEDGER_ADMIN_TOKEN": admin},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        calls = Calls(HttpClient(port, fresh=True, timeout=10))
        english, french = {"Accept-Language": "en"}, {"Accept-Language": "fr"}
        deadline = time.monotonic() + SERVER_READY_WITHIN
        while True:
            try:
                health = calls.get("/api/v1/health", headers=english)
                if not 200 <= health.status_code < 300:
                    raise ConnectionError(health.status_code)  # not serving yet
                status, body = health.status_code, health.get_data(as_text=True)
                break
            except OSError:
                assert server.poll() is None, server.communicate()[0]
                assert time.monotonic() < deadline, "the installed server did not answer"
                time.sleep(0.2)
        assert (status, json.loads(body)) == (200, {"status": "ok"})
        keys = calls.get("/api/v1/keys", headers=english).get_data(as_text=True)
        assert len(json.loads(keys)["keys"]) == 1
        signin = calls.get("/signin", headers=french)
        headers, page = signin.headers, signin.get_data(as_text=True)
        assert headers.get("Content-Language") == "fr" and "Se connecter" in page
        page = calls.get("/signin", headers=english).get_data(as_text=True)
        assert "Sign in" in page
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()
