"""The pages and their languages, through Flask's test client."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.context import EXTENSION
from nj_ledger import new_game
from support.apps import new_app


@dataclass
class Table:
    client: FlaskClient
    club: str
    headers: dict[str, str]
    game: str


@pytest.fixture(scope="module")
def app() -> Iterator[Flask]:
    app = new_app(url="sqlite://", MIGRATE=True, TESTING=True)
    yield app
    app.extensions[EXTENSION].close()


@pytest.fixture(scope="module")
def table(app: Flask) -> Table:
    """A club, its scorer token and a game whose first deal has just been dealt."""
    store = app.extensions[EXTENSION]
    club, token = store.clubs.create_club("Le Nain du Jeudi")
    game = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60), [{"type": "deal"}])
    return Table(app.test_client(), club.id, {"Authorization": f"Bearer {token.secret}"}, game.game.id)
