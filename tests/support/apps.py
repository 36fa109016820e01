"""The one way a test makes an app, and the API fixtures every HTTP test directory shares.

:func:`new_app` makes every app of the tests: the shared one of each back end (the ``app`` fixture), and those a
test needs of its own, on a store it is given or on the database at a URL (a store of the app's own), with the
settings it changes (rate limits, trusted proxies, the figures' addresses, streams' heartbeats, an access
log…). A conftest imports the fixtures (``from support.apps import app, calls, client, club, problem``) beside
the back-end fixtures of :mod:`support.backends`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import create_app
from api.context import EXTENSION
from nj_ledger.store import Store
from support.http import ADMIN_TOKEN, Calls, Club, assert_problem


def new_app(store: Store | None = None, *, url: str | None = None, **settings: Any) -> Flask:
    """An app on ``store`` (its database and the store itself), or on the database at ``url`` with a store of
    its own; the run's admin token unless ``settings`` name another (or ``None``); ``settings`` override the
    rest, by the names of the app's config (``PROXIES``, ``AUTH_FAILURE_LIMIT``, ``STREAM_HEARTBEAT``…)."""
    config: dict[str, Any] = {"ADMIN_TOKEN": ADMIN_TOKEN}
    if store is not None:
        config.update(DATABASE_URL=store.db.url, STORE=store)
    if url is not None:
        config["DATABASE_URL"] = url
    config.update(settings)
    return create_app(config)


@contextmanager
def serving(url: str, **settings: Any) -> Iterator[Flask]:
    """An app with a store of its own on ``url`` (nothing cached), its store closed afterwards."""
    made = new_app(url=url, **settings)
    try:
        yield made
    finally:
        made.extensions[EXTENSION].close()


@pytest.fixture(scope="session")
def app(store: Store) -> Flask:
    return new_app(store)


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
