"""API tests: the app on SQLite and on PostgreSQL, clubs made through the API, small helpers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import create_app
from nj_ledger.store import Store
from nj_ledger.store.scratch import (
    BACKENDS,
    REQUIRE_POSTGRES_ENV,
    migrated_database,
    postgres_required,
    postgres_unreachable,
    postgres_url,
)

ADMIN_TOKEN = "admin-token-for-the-tests"
PLAYERS = ["Ana", "Ben", "Chloé"]


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


@dataclass
class Club:
    id: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class Calls:
    """Short ways to make the calls most tests need."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def club(self, name: str = "Le Nain du Jeudi") -> Club:
        answer = self.client.post("/api/v1/clubs", json={"name": name},
                                  headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert answer.status_code == 201, answer.get_json()
        return Club(answer.json["id"], answer.json["token"])

    def token(self, club: Club, role: str) -> Club:
        answer = self.client.post(f"/api/v1/clubs/{club.id}/tokens", json={"role": role}, headers=club.auth)
        assert answer.status_code == 201, answer.get_json()
        return Club(club.id, answer.json["token"])

    def game(self, club: Club, players: list[str] | None = None, **options: Any) -> dict[str, Any]:
        body = {"players": players or PLAYERS, "rules": "classic", "starting_chips": 60, **options}
        answer = self.client.post(f"/api/v1/clubs/{club.id}/games", json=body, headers=club.auth)
        assert answer.status_code == 201, answer.get_json()
        return dict(answer.json)

    def act(self, club: Club, game: str, *actions: dict[str, Any], **headers: str) -> Any:
        extra = {name.replace("_", "-"): value for name, value in headers.items()}
        return self.client.post(f"/api/v1/games/{game}/actions", json={"actions": list(actions)},
                                headers={**club.auth, **extra})

    def events(self, club: Club, game: str) -> list[dict[str, Any]]:
        answer = self.client.get(f"/api/v1/games/{game}/events?limit=1000", headers=club.auth)
        assert answer.status_code == 200
        return list(answer.json["events"])


@pytest.fixture
def calls(client: FlaskClient) -> Calls:
    return Calls(client)


@pytest.fixture
def club(calls: Calls) -> Club:
    return calls.club()


def assert_problem(answer: Any, status: int, code: str) -> dict[str, Any]:
    """``answer`` is an RFC 9457 problem with this status and code."""
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert answer.mimetype == "application/problem+json"
    body = answer.get_json()
    assert {"type", "title", "status", "detail", "code"} <= set(body)
    assert (body["status"], body["code"]) == (status, code), body
    assert body["detail"] and "Traceback" not in answer.get_data(as_text=True)
    return dict(body)


@pytest.fixture
def problem():
    return assert_problem
