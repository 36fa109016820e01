"""``nj-ledger projections rebuild``: the scoreboard's tables again from the log, the same."""

from __future__ import annotations

from datetime import date

from click.testing import CliRunner

from cli.commands import main
from nj_ledger.store import Store
from nj_ledger.store.projections import scoreboard

from .conftest import Table, record
from .test_projections import projection_rows


def rebuild_command(database_url: str, *arguments: str) -> str:
    result = CliRunner().invoke(main, ["projections", "rebuild", *arguments],
                                env={"NJ_LEDGER_DATABASE_URL": database_url}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_rebuild_counts_every_ended_game_again_and_changes_nothing(database_url: str, store: Store) -> None:
    club, _ = store.clubs.create_club("Reconstruit")
    for seed in range(3):
        record(store, club.id, Table(seed=seed, names=["Ana", "Ben", "Chloé"], day=date(2026, 2, 1 + seed)))
    record(store, club.id, Table(seed=8, names=["Ana", "Ben"], day=date(2026, 2, 9), batches=2))
    before = projection_rows(store, club.id)
    output = rebuild_command(database_url, "--club", club.id)
    assert "3 games" in output and "events/s" in output
    assert projection_rows(store, club.id) == before
    everything = rebuild_command(database_url)
    assert "games" in everything
    assert projection_rows(store, club.id) == before
    assert [line.games for line in scoreboard(store.db, club.id)] == [3, 3, 3]


def test_rebuild_of_a_club_without_games(database_url: str, store: Store) -> None:
    club, _ = store.clubs.create_club("Vide")
    assert "0 games (0 events)" in rebuild_command(database_url, "--club", club.id)
