"""The scoreboard workload's bulk path writes what the store's own path writes, and its quick variant runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from benchmarks.scoreboard import bench, club_games, recast, workload
from nj_ledger import execute, new_game, replay
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from nj_ledger.store.projections import rebuild
from nj_ledger.store.projections.bulk import BulkGame, bulk_load

from .test_projections import assert_matches_the_log, projection_rows

MOMENT = datetime(2026, 4, 2, 19, 30, tzinfo=UTC)


@pytest.mark.parametrize("seed", range(12))
def test_a_recast_game_is_what_the_engine_records_for_those_players(seed: int) -> None:
    game = simulate(seed, "classic", players=3 + seed % 3, deals=1 + seed % 2)
    names = [f"Member {n}" for n in range(len(game.players), 0, -1)]
    started = new_game(names, game.rules, game.starting_chips, game.events[0].data["dealer"])
    _, events = execute(replay([started]), game.actions)
    assert [e.to_dict() for e in recast(game, names)] == [e.to_dict() for e in [started, *events]]


def rows(store: Store, game_id: str) -> dict[str, Any]:
    """What the store holds of a game, without its id."""
    with store.db.reading() as session:
        def fetch(query: str) -> list[tuple[Any, ...]]:
            return [tuple(row) for row in session.execute(text(query), {"game": game_id})]

        return {
            "game": fetch("SELECT created_at, updated_at, played_on, version, head_hash, status, profile, "
                          "player_names, starting_chips, deals_played, meta, source_digest "
                          "FROM games WHERE id = :game"),
            "seats": fetch("SELECT g.seat, p.name FROM game_players g JOIN players p ON p.id = g.player_id "
                           "WHERE g.game_id = :game ORDER BY g.seat"),
            "events": fetch("SELECT seq, deal, type, data, v, recorded_at, hash FROM events WHERE game_id = :game "
                            "ORDER BY seq"),
            "checkpoints": fetch("SELECT seq, head_hash FROM checkpoints WHERE game_id = :game ORDER BY seq"),
            "results": fetch("SELECT played_on, end_key IS NOT NULL, reason, players, deals, starting_chips "
                             "FROM game_results WHERE game_id = :game"),
            "seat_results": fetch("SELECT s.seat, p.name, s.deals_played, s.deals_won, s.grand_operas, "
                                  "s.honours_taken, s.honour_chips, s.betes_paid, s.ruins, s.chips, s.net, s.rank, "
                                  "s.win_units, s.rating_mu, s.rating_sigma, s.chips_by_deal FROM seat_results s "
                                  "JOIN players p ON p.id = s.player_id WHERE s.game_id = :game ORDER BY s.seat"),
        }


def test_the_bulk_path_writes_the_rows_of_an_import(store: Store, monkeypatch) -> None:
    imported, _ = store.clubs.create_club("Importé")
    loaded, _ = store.clubs.create_club("Chargé en bloc")
    games = [simulate(seed, "classic", players=3, deals=2) for seed in (21, 22, 23)]
    names = [["Ana", "Ben", "Chloé"], ["Ben", "Chloé", "Denis"], ["Ana", "Chloé", "Denis"]]
    moments = [MOMENT + timedelta(minutes=number) for number in range(3)]
    meta = {"date": "2026-04-01", "title": "Soirée"}
    bulk_load(store.games, loaded.id, [BulkGame(recast(game, who), moment, meta)
                                 for game, who, moment in zip(games, names, moments, strict=True)], batch=2)
    for game, who, moment in zip(games, names, moments, strict=True):
        monkeypatch.setattr("nj_ledger.store.games.utcnow", lambda moment=moment: moment)
        store.games.create_game(imported.id, new_game(who, game.rules, game.starting_chips), game.actions, meta=meta)
    monkeypatch.undo()
    first = [g.id for g in sorted(store.games.list_games(imported.id), key=lambda g: g.created_at)]
    second = [g.id for g in sorted(store.games.list_games(loaded.id), key=lambda g: g.created_at)]
    for one, other in zip(first, second, strict=True):
        assert rows(store, one) == rows(store, other)
        assert rows(store, one)["events"]
    assert projection_rows(store, loaded.id)["score_rollups"]
    assert_matches_the_log(store, loaded.id)


def test_the_scoreboard_workload_on_a_small_club(database_url: str, store: Store) -> None:
    result = bench(database_url, 60, requests=15)
    assert result["fill"]["games"] == 60 and result["fill"]["events"] > 60 * 20
    latency = result["latency"]
    assert latency["requests"] == 15 and latency["players"] > 0 and latency["p50"] <= latency["p99"]
    assert result["rebuild"]["games"] == 60 and result["rebuild"]["events"] == result["fill"]["events"]
    assert_matches_the_log(store, result["club"])
    before = projection_rows(store, result["club"])
    rebuild(store.db, result["club"])
    assert projection_rows(store, result["club"]) == before


def test_the_workload_spreads_games_over_days_in_order() -> None:
    games = list(club_games(250, per_day=100))
    assert [g.moment for g in games] == sorted(g.moment for g in games)
    assert len({g.moment.date() for g in games}) == 3
    assert all(g.events[-1].type == "game_ended" for g in games)


@pytest.mark.slow
def test_the_quick_workload_reports_both_databases() -> None:
    lines = workload(quick=True)
    names = [line["name"] for line in lines]
    assert any("SQLite" in name for name in names)
    for line in lines:
        if line["ours"] is not None and line["unit"] == "ms":
            assert line["target"] == "≤ 50 ms" and line["met"] in (True, False)
