"""API tests: the app on SQLite and on PostgreSQL, clubs made through the API, small helpers."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import create_app
from nj_ledger.store import Store
from support.backends import backend, database_url, store  # noqa: F401 - fixtures of every database test
from support.http import ADMIN_TOKEN, PLAYERS, Calls, Club, assert_problem  # noqa: F401 - fixtures use them


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
