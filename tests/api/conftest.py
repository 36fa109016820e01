"""API tests: the app on SQLite and on PostgreSQL, clubs made through the API, small helpers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import create_app
from nj_ledger.store import Store
from support.http import ADMIN_TOKEN, PLAYERS, Calls, Club, assert_problem  # noqa: F401 - fixtures use them
from nj_ledger.store.scratch import (
    BACKENDS,
    REQUIRE_POSTGRES_ENV,
    migrated_database,
    postgres_required,
    postgres_unreachable,
    postgres_url,
)



@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgresql":
        reason = postgres_unreachable(postgres_url())
        if reason is not None:
            if postgres_required():
                pytest.fail(f"{reason} ({REQUIRE_POSTGRES_ENV}=1 makes this a failure)")
            pytest.skip(reason)
    return str(request.param)


@pytest.fixture(scope="session")
def database_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with migrated_database(backend, tmp_path_factory.mktemp(backend)) as url:
        yield url


@pytest.fixture(scope="session")
def store(database_url: str) -> Iterator[Store]:
    store = Store(database_url)
    yield store
    store.close()


@pytest.fixture(scope="session")
def app(store: Store) -> Flask:
    return create_app({"DATABASE_URL": store.url, "STORE": store, "ADMIN_TOKEN": ADMIN_TOKEN})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def calls(client: FlaskClient) -> Calls:
    return Calls(client)


@pytest.fixture
def club(calls: Calls) -> Club:
    return calls.club()


@pytest.fixture
def problem():
    return assert_problem
