"""Migration 0012: members and seasons stored before under a decomposed name are found by the name typed now.

Keys used to be the name without case only; "Chloé" stored with its é as an e
and an accent had a key no name typed now makes, and the same name typed again
would have made a second member. The upgrade makes the keys again, composed;
two rows of one name in both forms stay two rows (nothing is merged, no event
is touched), and the downgrade gives the old keys back.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import insert, select

from benchmarks.scratch import scratch_postgres, scratch_sqlite
from nj_ledger.store import Store, make_engine
from nj_ledger.store.errors import PlayerExists
from nj_ledger.store.migrate import alembic_config, upgrade
from nj_ledger.store.models import Club, Player
from nj_ledger.store.projections.models import Season
from nj_ledger.store.projections.seasons import find_season

MOMENT = datetime(2026, 1, 10, 20, tzinfo=UTC)
BEFORE = "0011_phone_codes"


def decomposed(name: str) -> str:
    return unicodedata.normalize("NFD", name)


@pytest.fixture
def old_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database at the revision before, holding names stored decomposed, with the keys it made then."""
    with scratch_sqlite(tmp_path) if backend == "sqlite" else scratch_postgres() as url:
        upgrade(url, BEFORE)
        rows = [(1, "club-1", decomposed("Chloé")), (2, "club-1", "Ana"), (3, "club-2", "Léa"),
                (4, "club-2", decomposed("Léa")), (5, "club-2", decomposed("ÉLISE"))]
        engine = make_engine(url)
        try:
            with engine.begin() as connection:
                connection.execute(insert(Club.__table__), [
                    {"id": club, "name": club, "created_at": MOMENT} for club in ("club-1", "club-2")])
                connection.execute(insert(Player.__table__), [
                    {"id": number, "club_id": club, "name": name, "name_key": name.casefold(), "created_at": MOMENT}
                    for number, club, name in rows])
                connection.execute(insert(Season.__table__), [{
                    "id": 1, "club_id": "club-1", "name": decomposed("Été"), "name_key": decomposed("été"),
                    "starts_on": MOMENT.date(), "ends_on": MOMENT.date(), "created_at": MOMENT,
                    "qualifying_evenings": 0, "best_evenings": None}])
        finally:
            engine.dispose()
        yield url


def keys(url: str) -> dict[int, str]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return dict(connection.execute(select(Player.id, Player.name_key)).all())
    finally:
        engine.dispose()


def test_members_stored_decomposed_are_found_by_the_name_typed_now(old_url: str) -> None:
    old = keys(old_url)
    upgrade(old_url)
    new = keys(old_url)
    assert new[1] == "chloé" != old[1] and new[2] == old[2] == "ana" and new[5] == "élise"
    assert (new[3], new[4]) == ("léa", old[4])  # one name in both forms: the key stays the composed row's
    store = Store(old_url)
    try:
        with pytest.raises(PlayerExists):
            store.clubs.add_player("club-1", "Chloé")
        with pytest.raises(PlayerExists):
            store.clubs.add_player("club-2", "élise")
        assert [p.name for p in store.clubs.players("club-1")] == ["Ana", decomposed("Chloé")]  # names as they were
        found = find_season(store.db, "club-1", "été")
        assert found is not None and found.name == decomposed("Été")
    finally:
        store.close()
    command.downgrade(alembic_config(old_url), BEFORE)
    assert keys(old_url) == old
