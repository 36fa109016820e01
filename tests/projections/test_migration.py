"""Upgrading a database that already holds ended games counts them on the scoreboard."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import insert

from benchmarks.scratch import scratch_postgres, scratch_sqlite
from nj_ledger import new_game
from nj_ledger.simulator import simulate
from nj_ledger.store import Store, make_engine
from nj_ledger.store.log import GENESIS, chain_records
from nj_ledger.store.migrate import upgrade
from nj_ledger.store.models import Club, EventRecord, Game, GamePlayer, Player
from nj_ledger.store.projections import scoreboard

from .reference import expected_scoreboard

MOMENT = datetime(2026, 1, 10, 20, tzinfo=UTC)


@pytest.fixture
def empty_url(backend: str, tmp_path):
    with (scratch_sqlite(tmp_path) if backend == "sqlite" else scratch_postgres()) as url:
        yield url


def store_at_the_first_revision(url: str, names: list[str], seeds: range) -> None:
    """Clubs, members, games and logs written as revision 0001 knew them."""
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(insert(Club.__table__), [{"id": "club-1", "name": "Ancien", "created_at": MOMENT}])
            connection.execute(insert(Player.__table__), [
                {"id": number, "club_id": "club-1", "name": name, "name_key": name.casefold(), "created_at": MOMENT}
                for number, name in enumerate(names, start=1)])
            for seed in seeds:
                game = simulate(seed, "classic", players=len(names), deals=2)
                records = chain_records(GENESIS, 0, [new_game(names, game.rules, game.starting_chips),
                                                     *game.events[1:]], MOMENT)
                state = game.state
                assert state is not None
                connection.execute(insert(Game.__table__), [{
                    "id": f"game-{seed}", "club_id": "club-1", "created_at": MOMENT, "updated_at": MOMENT,
                    "played_on": MOMENT.date(), "version": len(records), "head_hash": records[-1]["hash"],
                    "status": state.status, "profile": "classic", "player_names": names,
                    "starting_chips": state.starting_chips, "deals_played": state.deals_played, "meta": {}}])
                connection.execute(insert(GamePlayer.__table__), [
                    {"game_id": f"game-{seed}", "seat": seat, "player_id": seat + 1} for seat in range(len(names))])
                connection.execute(insert(EventRecord.__table__), [{"game_id": f"game-{seed}", **r} for r in records])
    finally:
        engine.dispose()


def test_the_upgrade_counts_the_games_that_had_ended(empty_url: str) -> None:
    upgrade(empty_url, "0001")
    store_at_the_first_revision(empty_url, ["Ana", "Ben", "Chloé"], range(3))
    upgrade(empty_url)
    store = Store(empty_url)
    try:
        expected = expected_scoreboard(store, "club-1")
        lines = {line.name.casefold(): line for line in scoreboard(store.db, "club-1")}
        assert {key: (line.games, line.net) for key, line in lines.items()} == {
            key: (want.games, want.net) for key, want in expected.items()}
        assert all(line.games == 3 for line in lines.values())
    finally:
        store.close()
