"""The migrations build the schema from an empty database, match the models, guard the log, and keep what an
evening's log held before its entries kept a version."""

from __future__ import annotations

import json

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.exc import DBAPIError

from benchmarks.scratch import scratch_postgres, scratch_sqlite
from nj_ledger import new_game
from nj_ledger.store import Store, make_engine
from nj_ledger.store.migrate import alembic_config, current_revision, head_revision, is_current, upgrade
from nj_ledger.store.models import Base

TABLES = {"clubs", "tokens", "players", "games", "game_players", "events", "idempotency_keys", "checkpoints",
          "signing_keys", "shares", "club_feed", "evenings", "evening_log", "evening_tables", "table_tokens",
          "game_results", "seat_results", "score_rollups", "seasons", "deal_analyses", "phone_codes",
          "evening_checkpoints", "erasures", "redactions", "alembic_version"}


@pytest.fixture
def empty_url(backend: str, tmp_path):
    with (scratch_sqlite(tmp_path) if backend == "sqlite" else scratch_postgres()) as url:
        yield url


def test_upgrade_builds_every_table_from_an_empty_database(empty_url: str) -> None:
    assert current_revision(empty_url) is None
    upgrade(empty_url)
    engine = make_engine(empty_url)
    try:
        assert set(inspect(engine).get_table_names()) == TABLES
        assert {c["name"] for c in inspect(engine).get_columns("events")} == {
            "game_id", "seq", "deal", "type", "data", "v", "recorded_at", "hash"}
    finally:
        engine.dispose()
    assert current_revision(empty_url) == head_revision() and is_current(empty_url)
    upgrade(empty_url)  # a second upgrade has nothing to do
    assert current_revision(empty_url) == head_revision()


def test_the_migrations_and_the_models_describe_the_same_schema(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    finally:
        engine.dispose()
    assert differences == []


def test_the_database_refuses_to_update_or_delete_an_event(store: Store, club) -> None:
    game = store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 40)).game
    for statement in ("UPDATE events SET deal = 9 WHERE game_id = :game",
                      "DELETE FROM events WHERE game_id = :game"):
        with pytest.raises(DBAPIError, match="append-only"), store.db.writing() as session:
            session.execute(text(statement), {"game": game.id})
    assert [r["seq"] for r in store.games.records(club.id, game.id)] == [1]


def test_the_database_refuses_to_update_or_delete_an_evening_decision(store: Store, club) -> None:
    from nj_ledger.evenings import decide_creation

    created = decide_creation(name="Jeudi", played_on="2026-11-26", players=["Ana", "Ben", "Chloé"], rounds=1,
                              rules="classic", starting_chips=60, seating=[[["Ana", "Ben", "Chloé"]]])
    read, _ = store.evenings.create_evening(club.id, created, {"role": "scorer"})
    for statement in ("UPDATE evening_log SET type = 'x' WHERE evening_id = :evening",
                      "DELETE FROM evening_log WHERE evening_id = :evening"):
        with pytest.raises(DBAPIError, match="append-only"), store.db.writing() as session:
            session.execute(text(statement), {"evening": read.info.id})
    assert [item["seq"] for item in store.evenings.evening(club.id, read.info.id).entries] == [1]


def test_an_evening_written_before_its_entries_kept_a_version_reads_as_version_1_and_audits_clean(
        empty_url: str) -> None:
    from alembic import command

    from nj_ledger.chain import GENESIS
    from nj_ledger.evenings import ADJUSTED, decide_creation, decide_mend, entry, entry_hash, first_bad_entry

    created = decide_creation(name="Jeudi", played_on="2026-11-26", players=["Ana", "Ben", "Chloé"], rounds=1,
                              rules="classic", starting_chips=60, seating=[[["Ana", "Ben", "Chloé"]]])
    upgrade(empty_url)
    store = Store(empty_url)
    try:  # an evening signed as the ledger signs them, whose rows then lose their version with the downgrade
        club, _ = store.clubs.create_club("Le Nain du Jeudi")
        signed = store.evenings.create_evening(club.id, created, {"role": "operator"})[0].info.id
        store.evenings.decide(club.id, signed, lambda state, _: decide_mend(
            state, ADJUSTED, {"player": "Ana", "amount": 5, "reason": "retard"}), {"role": "scorer"})
        hashes = [item["hash"] for item in store.evenings.evening(club.id, signed).entries]
    finally:
        store.close()
    command.downgrade(alembic_config(empty_url), "0014_evening_checkpoints")  # no row trigger fires
    items = [entry(1, *created, {"role": "operator"}, "2026-01-08T20:00:00.000000Z"),
             entry(2, ADJUSTED, {"player": "Ben", "amount": 3, "reason": "retard"}, {}, "2026-01-08T21:00:00.000000Z")]
    previous = GENESIS
    for item in items:
        item["hash"] = previous = entry_hash(previous, item)
    engine = make_engine(empty_url)
    try:
        assert "v" not in {c["name"] for c in inspect(engine).get_columns("evening_log")}
        with engine.begin() as connection:  # an evening older than signing, its rows written without a version
            connection.execute(text("INSERT INTO evenings (id, club_id, name, played_on, created_at, updated_at, "
                                    "version, head_hash, status) VALUES ('old-evening', :club, 'Jeudi', "
                                    "'2026-01-08', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 2, :head, 'open')"),
                               {"club": club.id, "head": previous})
            connection.execute(text('INSERT INTO evening_log (evening_id, seq, type, data, "by", recorded_at, hash) '
                                    "VALUES ('old-evening', :seq, :type, :data, :by, :recorded_at, :hash)"),
                               [{**item, "data": json.dumps(item["data"]), "by": json.dumps(item["by"])}
                                for item in items])
        upgrade(empty_url)  # no row trigger fires either
        with engine.connect() as connection:
            assert set(connection.execute(text("SELECT v FROM evening_log")).scalars()) == {1}
    finally:
        engine.dispose()
    store = Store(empty_url)
    try:
        read, checkpoints, _ = store.evenings.evening_audit(club.id, signed)
        assert [(item["hash"], item.v) for item in read.entries] == [(digest, 1) for digest in hashes]
        assert first_bad_entry(read.entries) is None
        assert checkpoints == {"ok": True, "signed_from": 1, "count": 2, "first_bad_seq": None}
        old, checkpoints, _ = store.evenings.evening_audit(club.id, "old-evening")
        assert [(item["hash"], item.v) for item in old.entries] == [(item["hash"], 1) for item in items]
        assert first_bad_entry(old.entries) is None and old.state.adjustments[0]["amount"] == 3
        assert checkpoints == {"ok": True, "signed_from": None, "count": 0, "first_bad_seq": None}
        store.evenings.decide(club.id, signed, lambda state, _: decide_mend(
            state, ADJUSTED, {"player": "Ben", "amount": 2, "reason": "retard"}), {"role": "scorer"})
        read, checkpoints, _ = store.evenings.evening_audit(club.id, signed)
        assert [item.v for item in read.entries] == [1, 1, 1]
        assert [item["hash"] for item in read.entries[:2]] == hashes
        assert checkpoints == {"ok": True, "signed_from": 1, "count": 3, "first_bad_seq": None}
        with pytest.raises(DBAPIError, match="append-only"), store.db.writing() as session:
            session.execute(text("UPDATE evening_log SET v = 2 WHERE evening_id = 'old-evening'"))
    finally:
        store.close()


def test_the_director_role_comes_over_tokens_a_phone_signed_in_with_and_goes_back(empty_url: str) -> None:
    """SQLite copies the tokens' table to widen its role check: the phone codes that name a token keep naming it,
    on the way up and on the way down (where the club's directors become scorers)."""
    from alembic import command

    upgrade(empty_url, "0015_evening_log_version")
    engine = make_engine(empty_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO clubs (id, name, created_at) VALUES "
                                    "('c1', 'Club', CURRENT_TIMESTAMP)"))
            connection.execute(text("INSERT INTO tokens (id, club_id, role, digest, label, created_at) VALUES "
                                    "(7, 'c1', 'scorer', 'd7', 'phone', CURRENT_TIMESTAMP)"))
            connection.execute(text("INSERT INTO phone_codes (id, club_id, role, digest, label, created_at, "
                                    "expires_at, used_at, token_id) VALUES (1, 'c1', 'scorer', 'p1', 'phone', "
                                    "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 7)"))
    finally:
        engine.dispose()
    upgrade(empty_url)
    engine = make_engine(empty_url)
    try:
        with engine.begin() as connection:
            assert connection.execute(text("SELECT token_id FROM phone_codes")).scalar_one() == 7
            connection.execute(text("INSERT INTO tokens (id, club_id, role, digest, label, created_at) VALUES "
                                    "(8, 'c1', 'director', 'd8', 'Jeanne', CURRENT_TIMESTAMP)"))
        with pytest.raises(DBAPIError), engine.begin() as connection:
            connection.execute(text("INSERT INTO tokens (id, club_id, role, digest, label, created_at) VALUES "
                                    "(9, 'c1', 'boss', 'd9', '', CURRENT_TIMESTAMP)"))
    finally:
        engine.dispose()
    command.downgrade(alembic_config(empty_url), "0015_evening_log_version")
    engine = make_engine(empty_url)
    try:
        with engine.begin() as connection:
            assert connection.execute(text("SELECT token_id FROM phone_codes")).scalar_one() == 7
            assert connection.execute(text("SELECT role FROM tokens ORDER BY id")).scalars().all() == ["scorer"] * 2
    finally:
        engine.dispose()


def test_a_database_whose_members_were_erased_does_not_go_back_before_erasures(empty_url: str) -> None:
    """The redacted records verify only through their erasures: the downgrade that would drop them refuses."""
    from alembic import command

    upgrade(empty_url)
    store = Store(empty_url)
    try:
        club, _ = store.clubs.create_club("Le Nain du Jeudi")
        store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 40))
        store.erasures.erase(club.id, "Ana", "asked", {"role": "operator"})
    finally:
        store.close()
    command.downgrade(alembic_config(empty_url), "0017_erasures")  # the redactions' content is let go of
    with pytest.raises(RuntimeError, match="members were erased"):
        command.downgrade(alembic_config(empty_url), "0016_director_tokens")
    assert current_revision(empty_url) == "0017_erasures"
    upgrade(empty_url)
    assert current_revision(empty_url) == head_revision()


def test_a_redacted_record_changes_only_to_what_its_redaction_recorded(store: Store, club) -> None:
    """Once redacted, an event's data (or an evening decision's, or who made it) may be written only as its latest
    redaction names it: anything else is refused by the database itself."""
    from nj_ledger.evenings import decide_creation

    game = store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 40)).game
    created = decide_creation(name="Jeudi", played_on="2026-11-26", players=["Ana", "Ben", "Chloé"], rounds=1,
                              rules="classic", starting_chips=60, seating=[[["Ana", "Ben", "Chloé"]]])
    evening = store.evenings.create_evening(club.id, created, {"role": "scorer", "label": "Ana"})[0].info.id
    store.erasures.erase(club.id, "Ana", "asked", {"role": "operator"})
    with store.db.reading() as session:
        stored = session.execute(text("SELECT CAST(data AS TEXT) FROM events WHERE game_id = :game AND seq = 1"),
                                 {"game": game.id}).scalar_one()
    assert "Joueur 1" in stored and "Ana" not in stored
    value = ":data" if store.db.engine.dialect.name == "sqlite" else "CAST(:data AS JSON)"
    for statement, values in [
            (f"UPDATE events SET data = {value} WHERE game_id = :log AND seq = 1",
             {"data": stored.replace("Ben", "Bo")}),
            (f"UPDATE events SET data = {value} WHERE game_id = :log AND seq = 1",
             {"data": stored.replace("Joueur 1", "Ana")}),
            (f'UPDATE evening_log SET "by" = {value} WHERE evening_id = :log AND seq = 1', {"data": '{"role":"x"}'}),
            *([("UPDATE events SET data = 42 WHERE game_id = :log", {}),  # not a text: no digest, never allowed
               ("UPDATE events SET data = CAST(:data AS BLOB) WHERE game_id = :log", {"data": stored}),
               ("UPDATE events SET deal = NULL WHERE game_id = :log AND seq = 1", {})]
              if store.db.engine.dialect.name == "sqlite" else [])]:
        log = game.id if "events" in statement else evening
        with pytest.raises(DBAPIError, match="append-only"), store.db.writing() as session:
            session.execute(text(statement), {**values, "log": log})
    with store.db.writing() as session:  # what the redaction recorded is what the record holds: let through
        session.execute(text(f"UPDATE events SET data = {value} WHERE game_id = :log AND seq = 1"),
                        {"data": stored, "log": game.id})
    assert store.games.records(club.id, game.id)[0]["data"]["players"] == ["Joueur 1", "Ben"]
