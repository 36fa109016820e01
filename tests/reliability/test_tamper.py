"""Tampering with the stored log, straight in SQL, and the audit that reports it.

The database refuses to update or delete an event (or a checkpoint) while its
triggers are in place; an intruder who drops them can edit, delete or reorder
rows, and the hash chain names the first bad seq. Re-chaining the log after an
edit (every hash recomputed) gets past the chain, but not past the signed
checkpoints, nor does deleting or forging those. What the database alone cannot
show is in tests/reliability/test_receipts.py.
"""

from __future__ import annotations

import multiprocessing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.exc import DBAPIError

from nj_ledger.chain import sign_checkpoint
from nj_ledger.receipts import Signer, b64url
from nj_ledger.store import SigningKeyError
from nj_ledger.store.checkpoints import Checkpoint, checkpoint_rows, checkpoints
from nj_ledger.store.keys import (
    SIGNING_KEY_ENV,
    SIGNING_KEY_FILE_ENV,
    configured_signer,
    key_file,
    make_key_file,
)
from nj_ledger.store.migrate import alembic_config
from nj_ledger.store.models import EventRecord, Game

from .helpers import CHECKPOINT_KEY
from .tampering import Table, assert_caught, first_seq


def test_an_untouched_game_audits_clean_with_its_checkpoints(table: Table) -> None:
    records = table.records()
    signed = [1] + [r["seq"] for r in records if r["type"] in ("deal_ended", "game_ended")]
    assert table.signed() == signed and len(signed) == 5  # the start, three deals, the end (the batch's end)
    report = table.audit()
    assert report["ok"] and report["chain"]["ok"] and report["checkpoints"] == {
        "ok": True, "count": 5, "first_bad_seq": None}
    assert report["head"] == {"ok": True, "version": len(records), "last_seq": len(records), "first_bad_seq": None}


def test_the_database_refuses_to_change_events_or_checkpoints(guarded: Table) -> None:
    table = guarded
    statements = [f"UPDATE {{table}} SET seq = seq + 1000 WHERE game_id = '{table.game}'",
                  f"DELETE FROM {{table}} WHERE game_id = '{table.game}'"]
    if table.store.db.dialect == "postgresql":
        statements.append("TRUNCATE {table} CASCADE")
    for name in ("events", "checkpoints"):
        for statement in statements:
            with pytest.raises(DBAPIError, match="append-only"), table.engine.begin() as connection:
                connection.execute(text(statement.format(table=name)))
    assert [r["seq"] for r in table.records()] == list(range(1, len(table.records()) + 1))
    assert table.audit()["ok"]


def test_an_edited_event_breaks_the_chain_at_its_seq(table: Table) -> None:
    seq = first_seq(table.records(), "transfer", after=5)
    table.drop_guards("events")
    with table.engine.begin() as connection:
        record = connection.execute(select(EventRecord.data).where(
            EventRecord.game_id == table.game, EventRecord.seq == seq)).scalar_one()
        connection.execute(update(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq == seq)
                           .values(data={**record, "amount": record["amount"] + 10}))
    report = table.audit()
    assert_caught(report, "chain", seq)
    assert not report["recomputation"]["ok"] or not report["conservation"]["ok"]


def test_an_edited_timestamp_or_hash_breaks_the_chain_at_its_seq(table: Table) -> None:
    table.drop_guards("events")
    with table.engine.begin() as connection:
        connection.execute(update(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq == 7)
                           .values(recorded_at="2020-01-01T00:00:00.000000Z"))
    assert_caught(table.audit(), "chain", 7)
    with table.engine.begin() as connection:
        connection.execute(update(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq == 3)
                           .values(hash="0" * 64))
    assert_caught(table.audit(), "chain", 3)


def test_a_deleted_event_breaks_the_chain_where_it_was(table: Table) -> None:
    seq = first_seq(table.records(), "play")
    table.drop_guards("events")
    with table.engine.begin() as connection:
        connection.execute(delete(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq == seq))
    assert_caught(table.audit(), "chain", seq)


def test_reordered_events_break_the_chain_at_the_first_moved(table: Table) -> None:
    seq = first_seq(table.records(), "play")
    table.drop_guards("events")
    with table.engine.begin() as connection:
        for old, new in ((seq, 10**6), (seq + 1, seq), (10**6, seq + 1)):
            connection.execute(update(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq == old)
                               .values(seq=new))
    assert_caught(table.audit(), "chain", seq)


def test_a_rechained_edit_passes_the_chain_but_not_the_signed_checkpoints(table: Table) -> None:
    records = table.records()
    backdated = 2  # the first deal: only its timestamp changes, nothing the engine recomputes
    table.drop_guards("events")
    with table.engine.begin() as connection:
        connection.execute(update(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq == backdated)
                           .values(recorded_at="2020-01-01T00:00:00.000000Z"))
    table.rechain(backdated)
    report = table.audit()
    assert report["chain"]["ok"] and report["conservation"]["ok"] and report["recomputation"]["ok"]
    assert_caught(report, "checkpoints", first_seq(records, "deal_ended"))


def test_deleting_the_checkpoints_of_a_rechained_log_is_found_too(table: Table) -> None:
    records = table.records()
    table.drop_guards("events", "checkpoints")
    with table.engine.begin() as connection:
        connection.execute(update(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq == 2)
                           .values(recorded_at="2020-01-01T00:00:00.000000Z"))
        connection.execute(delete(Checkpoint).where(Checkpoint.game_id == table.game, Checkpoint.seq > 1))
    table.rechain(2)
    assert_caught(table.audit(), "checkpoints", first_seq(records, "deal_ended"))


def test_checkpoints_signed_again_without_the_key_are_found(table: Table) -> None:
    records = table.records()
    table.drop_guards("events", "checkpoints")
    with table.engine.begin() as connection:
        connection.execute(update(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq == 2)
                           .values(recorded_at="2020-01-01T00:00:00.000000Z"))
    table.rechain(2)
    forged = b"a key guessed by the intruder"
    with table.engine.begin() as connection:
        for record in table.records():
            if record["seq"] in table.signed():
                connection.execute(update(Checkpoint).where(
                    Checkpoint.game_id == table.game, Checkpoint.seq == record["seq"]).values(
                    head_hash=record["hash"], signature=sign_checkpoint(forged, table.game, record["seq"],
                                                                        record["hash"])))
    assert_caught(table.audit(), "checkpoints", 1)
    assert records[0]["hash"] == table.records()[0]["hash"]  # only the signatures gave it away at seq 1


def test_a_log_cut_short_is_found_by_the_checkpoints_past_its_end(table: Table) -> None:
    records = table.records()
    cut = first_seq(records, "deal_ended")  # a whole deal survives: the chain and the engine agree
    table.drop_guards("events")
    with table.engine.begin() as connection:
        connection.execute(delete(EventRecord).where(EventRecord.game_id == table.game, EventRecord.seq > cut))
        connection.execute(update(Game).where(Game.id == table.game).values(
            version=cut, head_hash=records[cut - 1]["hash"], status="ready"))
    report = table.audit()
    assert report["chain"]["ok"] and report["recomputation"]["ok"]
    assert_caught(report, "checkpoints", first_seq(records, "deal_ended", after=cut))


def test_the_signing_key_file_is_made_once_private_and_shared(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SIGNING_KEY_FILE_ENV, str(tmp_path / "keys" / "signing.key"))
    monkeypatch.delenv(SIGNING_KEY_ENV, raising=False)
    assert configured_signer() is None  # never made by reading it
    signer = make_key_file(key_file())
    path = tmp_path / "keys" / "signing.key"
    assert path.stat().st_mode & 0o777 == 0o600 and path.read_text().strip() == b64url(signer.seed)
    assert configured_signer() == signer and make_key_file(key_file()) == signer  # made once: the first one stays
    assert [p.name for p in path.parent.iterdir()] == ["signing.key"]
    monkeypatch.setenv(SIGNING_KEY_ENV, b64url(bytes(range(32))))
    assert configured_signer() == Signer.from_seed(bytes(range(32)))
    monkeypatch.setenv(SIGNING_KEY_ENV, "not a key")
    with pytest.raises(SigningKeyError, match="holds no signing key"):
        configured_signer()


def test_processes_starting_together_agree_on_one_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SIGNING_KEY_ENV, raising=False)
    with multiprocessing.get_context("fork").Pool(4) as pool:  # forked before any key was read
        keys = pool.map(made_key_id, [tmp_path / "signing.key"] * 8)
    assert len(set(keys)) == 1 and [p.name for p in tmp_path.iterdir()] == ["signing.key"]


def made_key_id(path: Path) -> str:
    return make_key_file(path).id


def test_no_hmac_checkpoint_is_believed_even_with_its_key(guarded: Table) -> None:
    """HMAC checkpoints were signed again by the migration that brought receipts: one put there since (with a
    key file written into the instance folder, or the configured HMAC key) is not believed, and nothing is
    signed on top of a head it stands for."""
    table = guarded
    records = table.records()
    table.drop_guards("checkpoints")
    with table.engine.begin() as connection:
        connection.execute(delete(Checkpoint).where(Checkpoint.game_id == table.game))
        connection.execute(insert(Checkpoint), checkpoint_rows(CHECKPOINT_KEY.encode(), table.game, records,
                                                               datetime.now(UTC)))
    assert {c["key_id"] for c in checkpoints(table.store.db, table.club.id, table.game)} == {None}
    report = table.audit()
    assert_caught(report, "checkpoints", 1)


def test_the_migration_signs_the_games_stored_before_it(guarded: Table) -> None:
    table = guarded
    from alembic import command

    signed = table.signed()
    config = alembic_config(table.store.db.url)
    table.store.close()
    command.downgrade(config, "0002")
    command.upgrade(config, "0003")  # HMAC checkpoints, as before receipts
    with table.engine.connect() as connection:
        before = connection.execute(text("SELECT signature FROM checkpoints WHERE game_id = :game"),
                                    {"game": table.game}).scalars().all()
    assert len(before) == len(signed) and all(len(signature) == 64 for signature in before)  # hex HMACs
    command.upgrade(config, "head")  # each one checked with its key, and signed again
    assert table.signed() == signed
    assert None not in {c["key_id"] for c in checkpoints(table.store.db, table.club.id, table.game)}
    assert table.audit()["checkpoints"] == {"ok": True, "count": len(signed), "first_bad_seq": None}
