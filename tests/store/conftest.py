"""Store tests run on SQLite and on PostgreSQL (a private schema per run, dropped afterwards)."""

from __future__ import annotations

import pytest

from nj_ledger.store import ClubInfo, Store
from support.backends import backend, database_url, store  # noqa: F401 - fixtures of every database test


@pytest.fixture
def club(store: Store) -> ClubInfo:
    return store.clubs.create_club("Le Nain du Jeudi")[0]
