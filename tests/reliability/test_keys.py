"""One signing key, in one place: the instance folder never follows the working directory, and a server whose key
did not sign the database's games refuses to start until that key is rotated in on purpose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from api.context import store as app_store
from nj_ledger.receipts import Signer, b64url
from nj_ledger.store import SigningKeyError, Store
from nj_ledger.store.keys import register_key, registered_keys
from support.apps import new_app
from support.http import Calls, HttpClient, answers

from .helpers import ROOT, free_port

EXAMPLE = ROOT / "examples" / "dimanche-chez-jeanne.json"


def settings(url: str, instance: Path, **more: str) -> dict[str, str]:
    """The environment of a command on ``url`` with ``instance`` as its instance folder (and no key unless given)."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("NJ_LEDGER_SIGNING_KEY", "NJ_LEDGER_SIGNING_KEY_FILE", "NJ_LEDGER_CHECKPOINT_KEY")}
    return {**env, "NJ_LEDGER_DATABASE_URL": url, "NJ_LEDGER_INSTANCE": str(instance),
            "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)]), **more}


def command(env: dict[str, str], *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *arguments], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def serve(env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[str], int | None]:
    """``nj-ledger serve`` from ``cwd``: the process and its port once it answers, or None if it stopped."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port)], env=env,
                              cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return server, None
        if answers(port):
            return server, port
        time.sleep(0.1)
    server.kill()
    raise AssertionError("the server neither started nor stopped")


def stop(server: subprocess.Popen[str]) -> None:
    server.terminate()
    server.communicate(timeout=30)


def imported(env: dict[str, str], cwd: Path) -> tuple[str, str, str]:
    """The example game imported by the command line: its id, its club and the club's token."""
    done = command(env, "import", str(EXAMPLE), cwd=cwd)
    assert done.returncode == 0, done.stderr
    game = done.stdout.split("Game ")[1].split()[0]
    club = done.stdout.split("(")[1].split(")")[0]
    token = done.stdout.split("token: ")[1].split()[0]
    return game, club, token


def test_a_server_started_from_another_folder_signs_with_the_same_key(fresh_url: str, tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    env = settings(fresh_url, instance)
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    game, _, token = imported(env, here)
    assert [path.name for path in instance.iterdir()] == ["signing.key"]
    assert not (here / "instance").exists() and not (elsewhere / "instance").exists()
    listed = json.loads(command(env, "keys", "list", "--json", cwd=elsewhere).stdout)["keys"]
    server, port = serve(env, elsewhere)
    try:
        assert port is not None, server.communicate()[1]
        api = Calls(HttpClient(port, base="/api/v1", timeout=30))
        assert api.read("GET", "/keys")["keys"] == listed and len(listed) == 1
        report = api.read("GET", f"/games/{game}/audit", token=token)
        assert report["ok"] and report["checkpoints"]["ok"], report["findings"]
    finally:
        stop(server)


def test_a_foreign_key_stops_the_server_until_it_is_rotated_in(fresh_url: str, tmp_path: Path) -> None:
    env = settings(fresh_url, tmp_path / "instance")
    game, club, token = imported(env, tmp_path)  # signed with the instance folder's key
    heads = tmp_path / "heads.json"
    assert command(env, "heads", "export", club, "-o", str(heads), cwd=tmp_path).returncode == 0
    first = json.loads(command(env, "keys", "list", "--json", cwd=tmp_path).stdout)["keys"]

    other = Signer.generate()
    foreign = {**env, "NJ_LEDGER_SIGNING_KEY": b64url(other.seed)}
    server, port = serve(foreign, tmp_path)
    assert port is None and server.returncode != 0
    said = server.communicate()[1]
    assert f"{other.id}" in said and first[0]["id"] in said and "keys rotate --adopt --after KEY" in said, said
    assert "Traceback" not in said
    refused = command(foreign, "import", str(EXAMPLE), cwd=tmp_path)  # nothing signs under it either
    assert refused.returncode != 0 and "did not sign this database's games" in refused.stderr

    unnamed = command(foreign, "keys", "rotate", "--adopt", cwd=tmp_path)  # which key it follows is said
    assert unnamed.returncode != 0 and "--after KEY" in unnamed.stderr, unnamed.stderr
    every = json.loads(command(foreign, "keys", "list", "--all", "--json", cwd=tmp_path).stdout)["keys"]
    assert [(key["id"], key["follows"], key["genuine"]) for key in every] == [(first[0]["id"], None, True)]
    adopted = command(foreign, "keys", "rotate", "--adopt", "--after", first[0]["id"], cwd=tmp_path)
    assert adopted.returncode == 0 and other.id in adopted.stdout, adopted.stderr
    keys = json.loads(command(foreign, "keys", "list", "--json", cwd=tmp_path).stdout)["keys"]
    assert [key["id"] for key in keys] == [first[0]["id"], other.id]  # the adopted key vouches for the first
    server, port = serve(foreign, tmp_path)
    try:
        assert port is not None, server.communicate()[1]
        receipts = json.loads(heads.read_text())["receipts"]
        api = Calls(HttpClient(port, base="/api/v1", timeout=30))
        report = api.read("POST", f"/games/{game}/audit", {"receipts": receipts}, token=token)  # by the retired key
        assert report["ok"] and report["receipts"]["checked"] == 1, report["findings"]
        created = api.read("POST", f"/clubs/{club}/games", {"players": ["Ana", "Ben"], "starting_chips": 40},
                           token=token)
        assert created["receipt"]["key"] == other.id  # the key taken into use signs from now on
    finally:
        stop(server)

    retired = command(env, "import", str(EXAMPLE), cwd=tmp_path)  # the instance folder's key was retired
    assert retired.returncode != 0 and "retired" in retired.stderr
    assert command(env, "keys", "rotate", cwd=tmp_path).returncode != 0  # nor may it hand over to a new one
    env_rotation = command(foreign, "keys", "rotate", cwd=tmp_path)
    assert env_rotation.returncode != 0 and "NJ_LEDGER_SIGNING_KEY" in env_rotation.stderr

    (tmp_path / "instance" / "signing.key").write_text(b64url(other.seed) + "\n")  # the key signing now, in a file
    rotated = command(env, "keys", "rotate", cwd=tmp_path)  # a new key file, handed over by the old key
    assert rotated.returncode == 0, rotated.stderr
    assert command(env, "import", str(EXAMPLE), cwd=tmp_path).returncode == 0
    keys = json.loads(command(env, "keys", "list", "--json", cwd=tmp_path).stdout)["keys"]
    assert [key["id"] for key in keys][:2] == [first[0]["id"], other.id] and len(keys) == 3
    checked = command(env, "heads", "check", str(heads), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout


def test_a_server_that_may_not_sign_tells_its_client_that_much_only(fresh_url: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The key's path and ids are for the operator's log, not for a client (a key rotated in by another
    process after this one started)."""
    monkeypatch.setenv("NJ_LEDGER_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.delenv("NJ_LEDGER_SIGNING_KEY", raising=False)
    app = new_app(url=fresh_url)
    calls = Calls(app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    monkeypatch.setenv("NJ_LEDGER_SIGNING_KEY", b64url(Signer.generate().seed))
    with app.app_context():
        app_store().keys._signer = None  # as a minute later, when the key is checked again
    answer = calls.act(club, game, {"type": "deal"})  # 503: the server, not the request, is at fault
    body = answer.get_json()
    assert (answer.status_code, answer.mimetype, body["code"]) == (503, "application/problem+json", "signing-key")
    assert answer.headers["Retry-After"] and "operator" in body["detail"]
    assert str(tmp_path) not in json.dumps(body) and "NJ_LEDGER" not in json.dumps(body)
    assert len(calls.events(club, game)) == 1  # nothing stored


@pytest.mark.parametrize("setting", ["NJ_LEDGER_INSTANCE", "NJ_LEDGER_SIGNING_KEY_FILE"])
def test_a_relative_instance_or_key_path_is_refused(setting: str, fresh_url: str, tmp_path: Path) -> None:
    env = {**settings(fresh_url, tmp_path / "instance"), setting: "relative/place"}
    done = command(env, "keys", "list", cwd=tmp_path)
    assert done.returncode != 0 and f"{setting} must be an absolute path" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "relative").exists()


def test_a_key_an_intruder_adds_is_never_trusted_not_even_through_a_rotation(
        fresh_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row claiming to follow the real key retires it (anyone who may write to the database can stop the
    server anyway), but adopting a new key after the real one leaves the intruder's key unbelieved."""
    monkeypatch.setenv("NJ_LEDGER_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.delenv("NJ_LEDGER_SIGNING_KEY", raising=False)
    real = Store(fresh_url).keys.signer()
    intruder = Signer.generate()
    with Store(fresh_url).db.writing() as session:
        connection = session.connection()
        register_key(connection, intruder, registered_keys(connection)[0])  # it signs that it follows the real one
    with pytest.raises(SigningKeyError, match="retired"):
        Store(fresh_url).keys.signer()
    adopted = Signer.generate()
    monkeypatch.setenv("NJ_LEDGER_SIGNING_KEY", b64url(adopted.seed))
    with pytest.raises(SigningKeyError, match="--after KEY"):
        Store(fresh_url).keys.rotate_signing_key(adopt=True)  # which key it follows is never guessed from the rows
    store = Store(fresh_url)
    store.keys.rotate_signing_key(adopt=True, after=real.id)
    assert [key.id for key in Store(fresh_url).keys.signing_keys()] == [real.id, adopted.id]
    assert intruder.id not in Store(fresh_url).keys.verifying_keys()


def test_odd_input_to_the_commands_is_a_sentence_never_a_traceback(fresh_url: str, tmp_path: Path) -> None:
    env = settings(fresh_url, tmp_path / "instance")
    deep, long_number = tmp_path / "deep.json", tmp_path / "long.json"
    deep.write_text("[" * 100_000)
    long_number.write_text('{"receipts": [{"version": ' + "9" * 5000 + "}]}")
    odd = [
        (env, ["tokens", "revoke", "abc", "99999999999999999999"]),
        (env, ["tokens", "list", "caf\u00e9"]),
        (env, ["heads", "export", "x y"]),
        (env, ["heads", "check", str(deep)]),
        (env, ["heads", "check", str(long_number)]),
        ({**env, "NJ_LEDGER_DATABASE_URL": "nosuchkind://x"}, ["keys", "list"]),
        ({**env, "NJ_LEDGER_SIGNING_KEY_FILE": "/dev/zero"}, ["keys", "list"]),
    ]
    for environment, arguments in odd:
        done = command(environment, *arguments, cwd=tmp_path)
        assert done.returncode != 0 and "Traceback" not in done.stderr and done.stderr.strip(), (arguments, done)
