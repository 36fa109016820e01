"""The migrations build the schema from an empty database, match the models, and guard the log."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.exc import DBAPIError

from benchmarks.scratch import scratch_postgres, scratch_sqlite
from nj_ledger import new_game
from nj_ledger.store import Store, make_engine
from nj_ledger.store.migrate import current_revision, head_revision, is_current, upgrade
from nj_ledger.store.models import Base

TABLES = {"clubs", "tokens", "players", "games", "game_players", "events", "idempotency_keys", "checkpoints",
          "signing_keys", "shares", "club_feed", "evenings", "evening_log", "evening_tables", "table_tokens",
          "game_results", "seat_results", "score_rollups", "seasons", "deal_analyses", "phone_codes",
          "evening_checkpoints", "alembic_version"}


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
