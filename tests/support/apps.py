"""The API fixtures every HTTP test directory shares: one app per database back end, its client, the calls.

A conftest imports them (``from support.apps import app, calls, client, club, problem``) beside the back-end
fixtures of :mod:`support.backends`.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import create_app
from nj_ledger.store import Store
from support.http import ADMIN_TOKEN, Calls, Club, assert_problem


@pytest.fixture(scope="session")
def app(store: Store) -> Flask:
    return create_app({"DATABASE_URL": store.db.url, "STORE": store, "ADMIN_TOKEN": ADMIN_TOKEN})


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
def problem() -> Callable[..., dict[str, object]]:
    return assert_problem
