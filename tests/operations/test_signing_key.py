"""The signing key's backup and restore (docs/DEPLOY.md, "The signing key"): the key is never in a backup; it is
copied apart once; a server restored with it back signs with the same key, which the old receipts' readers
trust. A restore without it refuses and says how; with the key lost, another is taken into use after the old
one, and the old receipts still verify."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from api.context import store as app_store
from nj_ledger.receipts import Signer, b64url, from_b64url
from nj_ledger.store import SigningKeyError, Store
from nj_ledger.store.database import INSTANCE_ENV
from support.apps import new_app

from .helpers import Filled, destroy, fill, fingerprint, nj_ledger


def another_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server's machine is lost: a new instance folder, with no key in it."""
    folder = tmp_path / "new-machine"
    folder.mkdir()
    monkeypatch.setenv(INSTANCE_ENV, str(folder))
    return folder


def served(url: str) -> Flask:
    return new_app(url=url)


def audits(app: Flask, club: Filled) -> list[dict[str, Any]]:
    client = app.test_client()
    return [client.post(f"/api/v1/games/{game}/audit", json={"receipts": receipts}, headers=club.auth).get_json()
            for game, receipts in club.receipts.items()]


def new_game_receipt(app: Flask, club: Filled) -> dict[str, Any]:
    answer = app.test_client().post(f"/api/v1/clubs/{club.club}/games", headers=club.auth, json={
        "players": ["Ana", "Ben", "Chloé"], "rules": "classic", "starting_chips": 60})
    assert answer.status_code == 201, answer.get_json()
    return dict(answer.get_json()["receipt"])


def closed(app: Flask) -> None:
    with app.app_context():
        app_store().close()


def test_the_key_kept_apart_and_put_back_signs_on_after_a_restore(fresh_url: str, instance: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    club = fill(fresh_url, 3)
    key = next(iter(club.receipts.values()))[0]["key"]
    seed = (instance / "signing.key").read_text(encoding="ascii").strip()
    backup = tmp_path / "backup.tar"
    nj_ledger("backup", str(backup))
    written = backup.read_bytes()
    assert seed.encode() not in written and from_b64url(seed) not in written  # never in a backup
    kept = tmp_path / "kept-apart" / "nj-ledger-signing.key"  # the copy docs/DEPLOY.md makes, once
    subprocess.run(["install", "-D", "-m", "600", str(instance / "signing.key"), str(kept)], check=True)

    destroy(fresh_url)
    machine = another_machine(tmp_path, monkeypatch)
    refused = nj_ledger("restore", str(backup), expect=1).stderr
    assert refused.startswith("Error: signing-key: There is no signing key at ") and key in refused
    assert "Put back the copy of the signing key" in refused and "Nothing was changed." in refused
    (machine / "signing.key").write_text(b64url(Signer.generate().seed) + "\n", encoding="ascii")
    refused = nj_ledger("restore", str(backup), expect=1).stderr
    assert "did not sign this backup's games" in refused and "--other-key" in refused
    assert fingerprint(fresh_url) is None

    subprocess.run(["install", "-m", "600", str(kept), str(machine / "signing.key")], check=True)  # put back
    said = nj_ledger("restore", str(backup)).stdout
    assert f"Receipts are signed with key {key}" in said
    app = served(fresh_url)
    try:
        assert [k["id"] for k in app.test_client().get("/api/v1/keys").get_json()["keys"]] == [key]
        assert all(report["ok"] and report["receipts"]["checked"] == 1 for report in audits(app, club))
        assert new_game_receipt(app, club)["key"] == key  # the restored server signs on with the same key
    finally:
        closed(app)


def test_with_the_key_lost_another_is_taken_into_use_after_it_and_old_receipts_verify(
        fresh_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    club = fill(fresh_url, 2)
    old = next(iter(club.receipts.values()))[0]["key"]
    backup = tmp_path / "backup.tar"
    nj_ledger("backup", str(backup))
    destroy(fresh_url)
    another_machine(tmp_path, monkeypatch)
    new = Signer.generate()
    monkeypatch.setenv("NJ_LEDGER_SIGNING_KEY", b64url(new.seed))  # the new machine's key, in its settings

    restored = nj_ledger("restore", "--other-key", str(backup))
    assert "Warning: The signing key" in restored.stderr and f"keys rotate --adopt --after {old}" in restored.stderr
    store = Store(fresh_url)
    try:
        with pytest.raises(SigningKeyError):  # the server would not start: its key did not sign these games
            store.keys.signer()
    finally:
        store.close()
    assert f"Key {new.id} signs from now on" in nj_ledger("keys", "rotate", "--adopt", "--after", old).stdout
    app = served(fresh_url)
    try:
        assert [k["id"] for k in app.test_client().get("/api/v1/keys").get_json()["keys"]] == [old, new.id]
        assert all(report["ok"] for report in audits(app, club))  # the old receipts still verify
        assert new_game_receipt(app, club)["key"] == new.id
    finally:
        closed(app)
