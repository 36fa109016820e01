"""An evening's log of decisions rewritten straight in SQL, as an intruder with the database's password would, on
both databases: the hash chain alone is recomputed past the edit, the signed checkpoints and the receipts members
hold are not. An honest evening audits clean; one stored before evenings were signed reads as not signed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.exc import DBAPIError

from nj_ledger import evenings as core
from nj_ledger.chain import GENESIS
from nj_ledger.receipts import from_b64url, verify
from nj_ledger.store import Store
from nj_ledger.store.evening_checkpoints import EveningCheckpoint
from nj_ledger.store.models import Evening, EveningEntry
from support.http import Calls, Club

PLAYERS = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny"]
GUARDS = {"sqlite": {"evening_log": ["evening_log_no_update", "evening_log_no_delete"],
                     "evening_checkpoints": ["evening_checkpoints_no_update", "evening_checkpoints_no_delete"]},
          "postgresql": {"evening_log": ["evening_log_no_change", "evening_log_no_truncate"],
                         "evening_checkpoints": ["evening_checkpoints_no_change", "evening_checkpoints_no_truncate"]}}
FR = {"Accept-Language": "fr-FR,fr;q=0.9"}


def created() -> tuple[str, dict]:
    return core.decide_creation(name="Jeudi", played_on="2026-11-26", players=PLAYERS, rounds=2, rules="classic",
                                starting_chips=60, seating=[[PLAYERS[:3], PLAYERS[3:]], [PLAYERS[::2], PLAYERS[1::2]]])


def url(club: Club, evening: str, part: str) -> str:
    return f"/api/v1/clubs/{club.id}/evenings/{evening}/{part}"


def an_evening(store: Store, calls: Calls) -> tuple[Club, str, list[dict]]:
    """An evening of its own club, with three adjustments recorded through the API; the receipts they answered."""
    info, token = store.clubs.create_club("Le Nain du Jeudi")
    club = Club(info.id, token.secret)
    read, _ = store.evenings.create_evening(info.id, created(), {"role": "operator"})
    assert read.receipt is not None and read.receipt["version"] == 1
    receipts = []
    for player, amount in (("Ana", 5), ("Ben", 3), ("Chloé", -2)):
        answer = calls.client.post(url(club, read.info.id, "decisions"), headers=club.auth, json={
            "type": "adjustment", "player": player, "amount": amount, "reason": "retard"})
        assert answer.status_code == 201, answer.get_json()
        receipts.append(answer.json["receipt"])
    return club, read.info.id, receipts


def drop_guards(store: Store, *tables: str) -> None:
    with store.db.engine.begin() as connection:
        for table in tables:
            for trigger in GUARDS[store.db.dialect][table]:
                on = f" ON {table}" if store.db.dialect == "postgresql" else ""
                connection.execute(text(f"DROP TRIGGER IF EXISTS {trigger}{on}"))


def rewrite(store: Store, evening: str, seq: int, change: dict) -> None:
    """Change the data of entry ``seq``, recompute every hash from it on and the evening's head: the chain holds."""
    drop_guards(store, "evening_log")
    with store.db.engine.begin() as connection:
        rows = connection.execute(select(EveningEntry.__table__).where(EveningEntry.evening_id == evening)
                                  .order_by(EveningEntry.seq)).mappings().all()
        previous = GENESIS
        for row in rows:
            item = {name: row[name] for name in core.HASHED}
            if row["seq"] == seq:
                item["data"] = {**item["data"], **change}
            digest = row["hash"] if row["seq"] < seq else core.entry_hash(previous, item)
            if row["seq"] >= seq:
                connection.execute(update(EveningEntry).where(EveningEntry.evening_id == evening,
                                                              EveningEntry.seq == row["seq"])
                                   .values(data=item["data"], hash=digest))
            previous = digest
        connection.execute(update(Evening).where(Evening.id == evening).values(head_hash=previous))


def audit(calls: Calls, club: Club, evening: str, receipts: list[dict] | None = None, **headers: str) -> dict:
    if receipts is None:
        answer = calls.client.get(url(club, evening, "decisions"), headers={**club.auth, **headers})
    else:
        answer = calls.client.post(url(club, evening, "audit"), headers={**club.auth, **headers},
                                   json={"receipts": receipts})
    assert answer.status_code == 200, answer.get_json()
    return dict(answer.json)


def test_an_honest_evening_audits_clean_and_its_receipts_check(intruded: tuple[Store, Calls]) -> None:
    store, calls = intruded
    club, evening, receipts = an_evening(store, calls)
    report = audit(calls, club, evening)
    assert report["ok"] is True and report["first_bad_seq"] is None and report["findings"] == []
    assert report["chain"] == {"ok": True, "first_bad_seq": None}
    assert report["checkpoints"] == {"ok": True, "signed": True, "signed_from": 1, "count": 4, "first_bad_seq": None}
    head = calls.client.get(url(club, evening, "receipt"), headers=club.auth)
    assert head.status_code == 200 and head.headers["ETag"] == '"4"'
    assert head.json == {"evening": evening, "version": 4, "receipt": receipts[-1]}
    keys = {key["id"]: from_b64url(key["public_key"]) for key in calls.client.get("/api/v1/keys").json["keys"]}
    assert all(verify(receipt, keys) for receipt in receipts)
    assert [receipt["version"] for receipt in receipts] == [2, 3, 4] and "game" not in receipts[0]
    checked = audit(calls, club, evening, [*receipts, {**receipts[0], "evening": "elsewhere1"}])
    assert checked["ok"] is True and checked["receipts"] == {
        "ok": True, "checked": 3, "skipped": 1, "first_bad_seq": None, "findings": []}


def test_a_rewritten_and_rechained_decision_is_caught_by_the_checkpoints_and_a_receipt(
        intruded: tuple[Store, Calls]) -> None:
    store, calls = intruded
    club, evening, receipts = an_evening(store, calls)
    ranked = calls.client.get(url(club, evening, "ranking"), headers=club.auth).json
    rewrite(store, evening, 2, {"amount": 500})  # Ana's +5 made +500
    assert store.evenings.evening(club.id, evening).state.adjustments[0]["amount"] == 500
    assert core.first_bad_entry(store.evenings.evening(club.id, evening).entries) is None  # the chain alone says "ok"
    assert calls.client.get(url(club, evening, "ranking"), headers=club.auth).json != ranked
    report = audit(calls, club, evening)
    assert report["chain"] == {"ok": True, "first_bad_seq": None}
    assert report["ok"] is False and report["first_bad_seq"] == 2
    assert report["checkpoints"]["ok"] is False and report["checkpoints"]["first_bad_seq"] == 2
    assert [(f["severity"], f["seq"], f["code"]) for f in report["findings"]] == [("error", 2, "checkpoint-mismatch")]
    assert report["findings"][0]["message"] == ("The evening's log was altered after the ledger signed it at "
                                                "decision 2: it no longer matches what was signed.")
    french = audit(calls, club, evening, **FR)["findings"][0]["message"]
    assert french.startswith("Le journal de la soirée a été altéré") and "décision 2\u00a0:" in french
    # the receipt of the last decision, held by a member before the rewrite, catches it below it
    held = audit(calls, club, evening, [receipts[-1]])
    assert held["ok"] is False and held["receipts"]["ok"] is False and held["receipts"]["first_bad_seq"] == 4
    assert [f["code"] for f in held["receipts"]["findings"]] == ["receipt-head-differs"]
    assert held["first_bad_seq"] == 2  # the first decision altered, as the checkpoints name it


def test_deleting_the_checkpoints_too_does_not_make_an_evening_older_than_signing(
        intruded: tuple[Store, Calls]) -> None:
    store, calls = intruded
    an_evening(store, calls)  # another evening, signed, left alone
    club, evening, receipts = an_evening(store, calls)
    rewrite(store, evening, 3, {"amount": 300})
    drop_guards(store, "evening_checkpoints")
    with store.db.engine.begin() as connection:
        connection.execute(delete(EveningCheckpoint).where(EveningCheckpoint.evening_id == evening))
    report = audit(calls, club, evening)
    assert report["ok"] is False and report["checkpoints"]["first_bad_seq"] == 1
    assert "not-signed" not in [f["code"] for f in report["findings"]]
    held = audit(calls, club, evening, [receipts[1]])  # the receipt of decision 3
    assert [f["code"] for f in held["receipts"]["findings"]] == ["receipt-head-differs"]
    head = calls.client.get(url(club, evening, "receipt"), headers=club.auth).json
    assert head["receipt"] is None


def test_an_evening_older_than_signing_reads_as_not_signed_then_signed_from_its_next_decision(
        intruded: tuple[Store, Calls]) -> None:
    store, calls = intruded
    info, token = store.clubs.create_club("Le Vieux Club")
    club = Club(info.id, token.secret)
    evening = "old" + info.id[:9]
    kind, data = created()
    items = [core.entry(1, kind, data, {"role": "operator"}, "2026-01-08T20:00:00.000000Z"),
             core.entry(2, core.ADJUSTED, {"player": "Ana", "amount": 5, "reason": "retard"}, {"role": "scorer"},
                        "2026-01-08T21:00:00.000000Z")]
    previous = GENESIS
    for item in items:
        item["hash"] = previous = core.entry_hash(previous, item)
    moment = datetime(2026, 1, 8, 20, tzinfo=UTC)
    with store.db.engine.begin() as connection:  # as the ledger wrote it before evenings were signed
        connection.execute(insert(Evening), {"id": evening, "club_id": info.id, "name": "Jeudi",
                                             "played_on": moment.date(), "created_at": moment, "updated_at": moment,
                                             "version": 2, "head_hash": previous, "status": "open"})
        connection.execute(insert(EveningEntry), [{"evening_id": evening, **item} for item in items])
    report = audit(calls, club, evening)
    assert report["ok"] is True and report["first_bad_seq"] is None
    assert report["checkpoints"] == {"ok": True, "signed": False, "signed_from": None, "count": 0,
                                     "first_bad_seq": None}
    assert [(f["severity"], f["seq"], f["code"]) for f in report["findings"]] == [("info", None, "not-signed")]
    assert report["findings"][0]["message"].startswith("Not signed (older than signing)")
    assert audit(calls, club, evening, **FR)["findings"][0]["message"].startswith(
        "Non signée (antérieure à la signature)\u00a0:")
    assert calls.client.get(url(club, evening, "receipt"), headers=club.auth).json["receipt"] is None
    answer = calls.client.post(url(club, evening, "decisions"), headers=club.auth, json={
        "type": "adjustment", "player": "Ben", "amount": 2, "reason": "retard"})
    assert answer.status_code == 201 and answer.json["receipt"]["version"] == 3
    report = audit(calls, club, evening)
    assert report["ok"] is True and report["findings"] == []
    assert report["checkpoints"] == {"ok": True, "signed": True, "signed_from": 3, "count": 1, "first_bad_seq": None}
    rewrite(store, evening, 2, {"amount": 50})  # below the first signature: it vouches for it through the chain
    assert audit(calls, club, evening)["checkpoints"]["first_bad_seq"] == 3


def test_the_database_refuses_to_change_an_evening_checkpoint(fresh_url: str) -> None:
    store = Store(fresh_url)
    try:
        info, _ = store.clubs.create_club("Le Nain du Jeudi")
        read, _ = store.evenings.create_evening(info.id, created(), {"role": "operator"})
        statements = ["UPDATE evening_checkpoints SET seq = seq + 10 WHERE evening_id = :evening",
                      "DELETE FROM evening_checkpoints WHERE evening_id = :evening"]
        for statement in statements:
            with pytest.raises(DBAPIError, match="append-only"), store.db.engine.begin() as connection:
                connection.execute(text(statement), {"evening": read.info.id})
        assert store.evenings.evening_receipt(info.id, read.info.id)[1] == read.receipt
    finally:
        store.close()

