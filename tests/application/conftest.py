"""The application's use cases run on SQLite and on PostgreSQL (a private schema per run, dropped afterwards)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nj_ledger.store import ClubInfo, Store
from support.backends import backend, database_url, store  # noqa: F401 - fixtures of every database test

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json"


@pytest.fixture
def club(store: Store) -> ClubInfo:
    return store.clubs.create_club("Le Nain du Jeudi")[0]


@pytest.fixture
def document() -> dict:
    """The Sunday example: its first 22 actions settle deal 1, the 23rd deals deal 2."""
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))
