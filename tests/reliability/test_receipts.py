"""Receipts members keep, and the audit that holds the log to them.

An intruder with the database's password can cut a log back to an earlier
batch, delete the later checkpoints and lower the game's summary: nothing left
in the database shows it. An intruder who also holds the private key can
rewrite the open deal with the engine and sign the new head. Either way the
receipt a member kept from the last acknowledged append no longer matches, and
the audit says so with the first event in doubt; so does a heads file kept
away from the server.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import delete, insert

from cli.commands import main
from nj_ledger.receipts import Signer, b64url, from_b64url, verify
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from nj_ledger.store.checkpoints import Checkpoint
from nj_ledger.store.keys import configured_signer
from nj_ledger.store.models import SigningKey
from support.http import Calls, Club, assert_problem

from .tampering import Table


def recorded(store: Store, calls: Calls, *, deals: int, ended: bool) -> tuple[Table, list[dict[str, Any]]]:
    """A game recorded batch by batch through the API, and the receipt of every batch, as a scorer keeps them."""
    info, token = store.clubs.create_club("Le Nain du Jeudi")
    club = Club(info.id, token.secret)
    played = simulate(seed=33, players=3, deals=deals, starting_chips=200)
    created = calls.client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth, json={
        "players": list(played.events[0].data["players"]), "rules": played.events[0].data["rules"],
        "starting_chips": 200})
    assert created.status_code == 201, created.json
    receipts = [created.json["receipt"]]
    batches = played.batches if ended else played.batches[:-3]  # the open deal: its last batches never sent
    for batch in batches:
        answer = calls.act(club, created.json["id"], *batch)
        assert answer.status_code == 201, answer.get_json()
        receipts.append(answer.json["receipt"])
    if ended:
        assert answer.json["state"]["status"] == "ended"
    else:
        assert answer.json["state"]["status"] == "playing"
    return Table(store, club, created.json["id"], calls), receipts


def held_audit(table: Table, receipts: list[dict[str, Any]]) -> dict[str, Any]:
    table.store.games.cache.clear()
    answer = table.calls.client.post(f"/api/v1/games/{table.game}/audit", json={"receipts": receipts},
                                     headers=table.club.auth)
    assert answer.status_code == 200, answer.get_json()
    return dict(answer.json)


def public_keys(calls: Calls) -> dict[str, bytes]:
    return {key["id"]: from_b64url(key["public_key"]) for key in calls.client.get("/api/v1/keys").json["keys"]}


def test_every_acknowledged_write_answers_a_receipt_anyone_can_check(intruded: tuple[Store, Calls]) -> None:
    store, calls = intruded
    table, receipts = recorded(store, calls, deals=2, ended=False)
    keys = public_keys(calls)  # no token: anyone may check a receipt
    records = table.records()
    hashes = {r["seq"]: r["hash"] for r in records}
    assert [r["version"] for r in receipts] == sorted({r["version"] for r in receipts})
    for receipt in receipts:  # the open deal's batches too
        assert verify(receipt, keys) and receipt["game"] == table.game
        assert receipt["head"] == hashes[receipt["version"]]
    assert receipts[-1]["version"] == len(records)
    state = calls.client.get(f"/api/v1/games/{table.game}", headers=table.club.auth).json
    assert state["receipt"] == receipts[-1]  # a member following the game gets the head's receipt too
    report = held_audit(table, receipts)
    assert report["ok"] and report["receipts"] == {"ok": True, "checked": len(receipts), "skipped": 0,
                                                   "first_bad_seq": None, "findings": []}
    forged = {**receipts[-1], "version": receipts[-1]["version"] + 1}
    report = held_audit(table, [forged, {**receipts[0], "game": "another"}])
    assert not report["ok"] and report["receipts"]["skipped"] == 1
    assert [f["code"] for f in report["receipts"]["findings"]] == ["receipt-bad-signature"]


@pytest.mark.parametrize("ended", [True, False], ids=["ended-game", "open-deal"])
def test_a_log_cut_back_to_a_batch_passes_the_database_but_not_the_receipts(
        intruded: tuple[Store, Calls], ended: bool, tmp_path: Path) -> None:
    store, calls = intruded
    table, receipts = recorded(store, calls, deals=3, ended=ended)
    heads = tmp_path / "heads.json"
    exported = CliRunner().invoke(main, ["heads", "export", table.club.id, "-o", str(heads)],
                                  env={"NJ_LEDGER_DATABASE_URL": store.db.url})
    assert exported.exit_code == 0, exported.output
    before = receipts[-1]["version"]
    cut = receipts[len(receipts) // 2]["version"]  # the end of a batch, with its checkpoint
    table.cut(cut)

    report = table.audit()  # what the database alone says: nothing is missing
    assert report["ok"] and report["events"] == cut, report["findings"]

    report = held_audit(table, receipts)
    assert not report["ok"] and report["receipts"]["first_bad_seq"] == cut + 1
    past = [f for f in report["receipts"]["findings"] if f["code"] == "receipt-past-end"]
    assert len(past) == sum(r["version"] > cut for r in receipts) and past[-1]["seq"] == before
    assert f"events {cut + 1} to {before} were removed" in past[-1]["message"]

    checked = CliRunner().invoke(main, ["heads", "check", str(heads)], env={"NJ_LEDGER_DATABASE_URL": store.db.url})
    assert checked.exit_code == 1 and f"{table.game}: FAILED" in checked.output, checked.output
    assert "receipt-past-end" in checked.output


def first_announcement_dropped() -> Any:
    """The engine's rewrite an intruder makes: the first honour announced in the tail is no longer announced."""
    dropped: list[dict[str, Any]] = []

    def change(action: dict[str, Any]) -> dict[str, Any]:
        if action["type"] == "play" and action.get("announced") and not dropped:
            dropped.append(action)
            return {**action, "announced": []}
        return action

    return change


def test_the_open_deal_rewritten_with_the_engine_is_caught(intruded: tuple[Store, Calls]) -> None:
    store, calls = intruded
    table, receipts = recorded(store, calls, deals=3, ended=False)
    deal_start = max(r["seq"] for r in table.records() if r["type"] == "deal")
    after = max(r["version"] for r in receipts if r["version"] < deal_start)  # the batch before the open deal
    played = [r for r in table.records() if r["seq"] > after and r["type"] == "play" and r["data"]["announced"]]
    assert played, "the open deal announces an honour"
    table.rewrite_tail(after, first_announcement_dropped())
    report = table.audit()  # without the key the new head has no valid checkpoint
    assert not report["ok"] and not report["checkpoints"]["ok"]
    assert report["chain"]["ok"] and report["recomputation"]["ok"] and report["conservation"]["ok"]

    signer = configured_signer()  # the intruder also holds the private key: signs the new head
    assert signer is not None
    table.sign_head(signer)
    assert table.audit()["ok"]  # the database and its key now vouch for the rewritten log
    report = held_audit(table, receipts)
    assert not report["ok"]
    assert report["receipts"]["first_bad_seq"] is not None and report["receipts"]["first_bad_seq"] > after
    codes = [f["code"] for f in report["receipts"]["findings"]]
    assert "receipt-head-differs" in codes and set(codes) <= {"receipt-past-end", "receipt-head-differs"}


def test_receipts_of_a_heads_file_check_clean_on_an_untouched_club(intruded: tuple[Store, Calls],
                                                                  tmp_path: Path) -> None:
    store, calls = intruded
    table, _ = recorded(store, calls, deals=1, ended=True)
    heads = tmp_path / "heads.json"
    env = {"NJ_LEDGER_DATABASE_URL": store.db.url}
    assert CliRunner().invoke(main, ["heads", "export", table.club.id, "-o", str(heads)], env=env).exit_code == 0
    document = json.loads(heads.read_text())
    assert document["format"] == "nj-ledger/heads" and document["club"] == table.club.id
    assert [r["game"] for r in document["receipts"]] == [table.game]
    assert all(verify(r, public_keys(calls)) for r in document["receipts"])
    checked = CliRunner().invoke(main, ["heads", "check", str(heads)], env=env)
    assert checked.exit_code == 0 and "1 of 1 games hold to their receipts." in checked.output, checked.output
    report = held_audit(table, document["receipts"])  # the API takes the file's receipts as they are
    assert report["ok"] and report["receipts"]["checked"] == 1


def test_a_read_never_signs_a_head(intruded: tuple[Store, Calls]) -> None:
    """A head without its checkpoint (deleted by an intruder) gets no receipt from a read: a reader could
    otherwise have any head signed, and put the signature back as a checkpoint."""
    store, calls = intruded
    table, receipts = recorded(store, calls, deals=1, ended=False)
    table.drop_guards("checkpoints")
    with table.engine.begin() as connection:
        connection.execute(delete(Checkpoint).where(Checkpoint.game_id == table.game,
                                                    Checkpoint.seq == receipts[-1]["version"]))
    before = table.signed()
    state = calls.client.get(f"/api/v1/games/{table.game}", headers=table.club.auth).json
    assert state["receipt"] is None and table.signed() == before
    assert not table.audit()["checkpoints"]["ok"]  # the head's checkpoint is missed


def test_a_key_added_to_the_database_is_not_believed(intruded: tuple[Store, Calls]) -> None:
    """An intruder adds a key of their own to the database (its id its own hash, listed first) and signs the
    rewritten open deal with it: neither the audit nor GET /keys believes that key."""
    store, calls = intruded
    table, receipts = recorded(store, calls, deals=2, ended=False)
    after = receipts[len(receipts) // 2]["version"]
    table.rewrite_tail(after, first_announcement_dropped())
    intruder = Signer.generate()
    with table.engine.begin() as connection:
        connection.execute(insert(SigningKey), {"number": -1, "id": intruder.id, "algorithm": "Ed25519",
                                                "public_key": b64url(intruder.public_key),
                                                "created_at": datetime.now(UTC)})
    table.sign_head(intruder)
    store.keys.forget_keys()  # as a process that reads the keys afresh
    report = table.audit()
    assert not report["ok"] and not report["checkpoints"]["ok"]
    assert intruder.id not in {key["id"] for key in calls.client.get("/api/v1/keys").json["keys"]}


def test_nothing_is_signed_on_top_of_a_head_the_ledger_did_not_sign(intruded: tuple[Store, Calls],
                                                                     tmp_path: Path) -> None:
    """A log rewritten and re-chained outside the ledger: the next append is refused (its receipt would vouch
    for the rewrite), and a heads file leaves the game out."""
    store, calls = intruded
    table, receipts = recorded(store, calls, deals=2, ended=False)
    version = table.rewrite_tail(receipts[1]["version"], first_announcement_dropped())
    answer = calls.act(table.club, table.game, {"type": "undo"})
    assert_problem(answer, 409, "log-damaged")
    assert len(table.records()) == version
    heads = tmp_path / "heads.json"
    exported = CliRunner().invoke(main, ["heads", "export", table.club.id, "-o", str(heads)],
                                  env={"NJ_LEDGER_DATABASE_URL": store.db.url})
    assert exported.exit_code == 1 and f"{table.game} (version {version}) left out" in exported.stderr
    assert table.game not in {r["game"] for r in json.loads(heads.read_text())["receipts"]}
