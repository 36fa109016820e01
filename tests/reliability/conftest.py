"""Reliability tests: the store and the API on SQLite and PostgreSQL, under load, faults, bad input and intruders.

A session database per back end serves the API tests; tests that tamper with
tables, kill processes or count every row get a fresh database of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from api.context import store as app_store
from benchmarks.scratch import migrated_database
from nj_ledger.store import Store
from nj_ledger.store.checkpoints import CHECKPOINT_KEY_ENV
from support.apps import app, calls, client, club, serving  # noqa: F401 - fixtures of every HTTP test
from support.backends import backend, database_url, store  # noqa: F401 - fixtures of every database test
from support.http import Calls

from .helpers import CHECKPOINT_KEY
from .tampering import Table, stored_game
from .workers import ProcessClients


@pytest.fixture(autouse=True)
def _checkpoint_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test signs and checks checkpoints with one known key (never the instance folder's)."""
    monkeypatch.setenv(CHECKPOINT_KEY_ENV, CHECKPOINT_KEY)


@pytest.fixture
def fresh_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database of this test's own, at the latest schema."""
    with migrated_database(backend, tmp_path) as url:
        yield url


@pytest.fixture(scope="session")
def process_clients() -> Iterator[ProcessClients]:
    """Client processes for the races, started once per session."""
    clients = ProcessClients()
    yield clients
    clients.close()


@pytest.fixture(scope="module")
def intruded(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, Calls]]:
    """A database the tampering tests of a module share, each with a game of its own, and an app on it."""
    with migrated_database(backend, tmp_path_factory.mktemp("intruded")) as url, serving(url) as app:
        with app.app_context():
            store = app_store()
        yield store, Calls(app.test_client())


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
