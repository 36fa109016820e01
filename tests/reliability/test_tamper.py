"""Tampering with the stored log, straight in SQL, and the audit that reports it.

The database refuses to update or delete an event (or a checkpoint) while its
triggers are in place; an intruder who drops them can edit, delete or reorder
rows, and the hash chain names the first bad seq. Re-chaining the log after an
edit (every hash recomputed) gets past the chain, but not past the signed
checkpoints, nor does deleting or forging those.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine, delete, select, text, update
from sqlalchemy.exc import DBAPIError

from api.context import store as app_store
from nj_ledger.chain import GENESIS, event_hash, sign_checkpoint
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from nj_ledger.store.checkpoints import Checkpoint, checkpoint_key, checkpoints
from nj_ledger.store.log import record_of, records_query
from nj_ledger.store.migrate import alembic_config
from nj_ledger.store.models import EventRecord, Game
from nj_ledger.store.scratch import migrated_database

from .helpers import Calls, Club, serving

TRIGGERS = {
    "sqlite": {"events": ["events_no_update", "events_no_delete"],
               "checkpoints": ["checkpoints_no_update", "checkpoints_no_delete"]},
    "postgresql": {"events": ["events_no_change", "events_no_truncate"],
                   "checkpoints": ["checkpoints_no_change", "checkpoints_no_truncate"]},
}


@dataclass
class Table:
    """A stored game and the means to tamper with it and to audit it."""

    store: Store
    club: Club
    game: str
    calls: Calls

    @property
    def engine(self) -> Engine:
        return self.store.engine

    def records(self) -> list[dict]:
        with self.store.reading() as session:
            return [record_of(row) for row in session.execute(records_query(self.game))]

    def audit(self) -> dict:
        self.store.cache.clear()
        return self.calls.audit(self.club, self.game)

    def drop_guards(self, *tables: str) -> None:
        """What an intruder with the database's password does first (the tests share a database: once)."""
        with self.engine.begin() as connection:
            for table in tables:
                for trigger in TRIGGERS[self.store.dialect][table]:
                    on = f" ON {table}" if self.store.dialect == "postgresql" else ""
                    connection.execute(text(f"DROP TRIGGER IF EXISTS {trigger}{on}"))

    def rechain(self, start: int) -> None:
        """Recompute every hash from ``start`` on, and the game's head: the chain verifies again."""
        records = self.records()
        previous = GENESIS if start == 1 else records[start - 2]["hash"]
        with self.engine.begin() as connection:
            for record in records[start - 1:]:
                record["hash"] = previous = event_hash(previous, record)
                connection.execute(update(EventRecord).where(
                    EventRecord.game_id == self.game, EventRecord.seq == record["seq"]).values(hash=record["hash"]))
            connection.execute(update(Game).where(Game.id == self.game).values(
                head_hash=previous, version=len(records)))

    def signed(self) -> list[int]:
        return [checkpoint["seq"] for checkpoint in checkpoints(self.store, self.club.id, self.game)]


@pytest.fixture(scope="module")
def intruded(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, Calls]]:
    """A database the tampering tests share, each with a game of its own, and an app on it."""
    with migrated_database(backend, tmp_path_factory.mktemp("intruded")) as url, serving(url) as app:
        with app.app_context():
            store = app_store()
        yield store, Calls(app.test_client())


def stored_game(store: Store, calls: Calls) -> Table:
    info, token = store.create_club("Le Nain du Jeudi")
    game = simulate(seed=21, players=3, deals=3, starting_chips=200)
    created = store.create_game(info.id, game.events[0], game.actions)  # one transaction, as an import
    return Table(store, Club(info.id, token.secret), created.game.id, calls)


@pytest.fixture
def table(intruded: tuple[Store, Calls]) -> Table:
    return stored_game(*intruded)


@pytest.fixture
def guarded(fresh_url: str) -> Iterator[Table]:
    """A game in a database of its own, its guards in place."""
    with serving(fresh_url) as app:
        with app.app_context():
            store = app_store()
        yield stored_game(store, Calls(app.test_client()))


def first_seq(records: list[dict], kind: str, after: int = 1) -> int:
    return next(r["seq"] for r in records if r["type"] == kind and r["seq"] > after)


def assert_caught(report: dict, part: str, seq: int) -> None:
    assert report["ok"] is False
    assert report[part]["ok"] is False and report[part]["first_bad_seq"] == seq, report[part]
    assert any(f["severity"] == "error" and f["seq"] == seq for f in report["findings"]), report["findings"]


def test_an_untouched_game_audits_clean_with_its_checkpoints(table: Table) -> None:
    records = table.records()
    signed = [1] + [r["seq"] for r in records if r["type"] in ("deal_ended", "game_ended")]
    assert table.signed() == signed and len(signed) == 5  # the start, three deals, the end
    report = table.audit()
    assert report["ok"] and report["chain"]["ok"] and report["checkpoints"] == {
        "ok": True, "count": 5, "first_bad_seq": None}


def test_the_database_refuses_to_change_events_or_checkpoints(guarded: Table) -> None:
    table = guarded
    statements = [f"UPDATE {{table}} SET seq = seq + 1000 WHERE game_id = '{table.game}'",
                  f"DELETE FROM {{table}} WHERE game_id = '{table.game}'"]
    if table.store.dialect == "postgresql":
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


def test_the_key_file_is_made_once_private_and_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NJ_LEDGER_CHECKPOINT_KEY")
    key = checkpoint_key(tmp_path)
    path = tmp_path / "checkpoint.key"
    assert path.stat().st_mode & 0o777 == 0o600 and len(key) >= 32
    assert checkpoint_key(tmp_path) == key and path.read_text().strip().encode() == key
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.key"]
    monkeypatch.setenv("NJ_LEDGER_CHECKPOINT_KEY", "a configured key, long enough")
    assert checkpoint_key(tmp_path) == b"a configured key, long enough"
    monkeypatch.setenv("NJ_LEDGER_CHECKPOINT_KEY", "short")
    with pytest.raises(ValueError, match="at least 16"):
        checkpoint_key(tmp_path)


def test_processes_starting_together_agree_on_one_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    monkeypatch.delenv("NJ_LEDGER_CHECKPOINT_KEY")
    with multiprocessing.get_context("fork").Pool(4) as pool:  # forked before any key was read
        keys = pool.map(checkpoint_key, [tmp_path] * 8)
    assert len(set(keys)) == 1 and [p.name for p in tmp_path.iterdir()] == ["checkpoint.key"]


def test_the_migration_signs_the_games_stored_before_it(guarded: Table) -> None:
    table = guarded
    from alembic import command

    signed = table.signed()
    config = alembic_config(table.store.url)
    table.store.close()
    command.downgrade(config, "0002")
    command.upgrade(config, "head")
    assert table.signed() == signed
    assert table.audit()["checkpoints"] == {"ok": True, "count": len(signed), "first_bad_seq": None}
