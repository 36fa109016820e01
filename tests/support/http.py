"""Short ways to talk to the API in tests: clubs, tokens, games, actions, and problem checks."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask.testing import FlaskClient

ADMIN_TOKEN = os.environ["NJ_LEDGER_TEST_ADMIN_TOKEN"]  # made for the run by tests/conftest.py
PLAYERS = ["Ana", "Ben", "Chloé"]


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

    def act(self, club: Club, game: str, *actions: Any, headers: Mapping[str, str] | None = None,
            **named: str) -> Any:
        """Post ``actions``; headers given as a mapping or by name (``If_Match=...`` is ``If-Match``)."""
        extra = {name.replace("_", "-"): value for name, value in named.items()}
        return self.client.post(f"/api/v1/games/{game}/actions", json={"actions": list(actions)},
                                headers={**club.auth, **(headers or {}), **extra})

    def state(self, club: Club, game: str) -> dict[str, Any]:
        answer = self.client.get(f"/api/v1/games/{game}", headers=club.auth)
        assert answer.status_code == 200, answer.get_json()
        return dict(answer.json)

    def events(self, club: Club, game: str) -> list[dict[str, Any]]:
        """The whole log, page after page."""
        events: list[dict[str, Any]] = []
        while True:
            answer = self.client.get(f"/api/v1/games/{game}/events?limit=1000&after={len(events)}",
                                     headers=club.auth)
            assert answer.status_code == 200, answer.get_json()
            events += answer.json["events"]
            if answer.json["next"] is None:
                return events

    def audit(self, club: Club, game: str) -> dict[str, Any]:
        answer = self.client.get(f"/api/v1/games/{game}/audit", headers=club.auth)
        assert answer.status_code == 200, answer.get_json()
        return dict(answer.json)


PROBLEM_FIELDS = {"type", "title", "status", "detail", "code"}


def assert_problem(answer: Any, status: int | None = None, code: str | None = None) -> dict[str, Any]:
    """``answer`` is an RFC 9457 problem (with this status and code, when given), and never a server error
    unless that is the status asked for."""
    text = answer.get_data(as_text=True)
    assert answer.status_code < 500 or answer.status_code == status, text
    assert answer.mimetype == "application/problem+json", (answer.status_code, answer.mimetype, text)
    body = answer.get_json()
    assert set(body) >= PROBLEM_FIELDS, body
    assert body["status"] == answer.status_code and isinstance(body["code"], str) and body["code"], body
    assert body["detail"] and "Traceback" not in text
    if status is not None:
        assert answer.status_code == status, text
    if code is not None:
        assert body["code"] == code, body
    return dict(body)


def verified_receipt(client: FlaskClient, body: dict[str, Any], game: str, version: int) -> dict[str, Any]:
    """The receipt an answer carries: for ``game`` at ``version``, signed by a key that ``GET /keys`` lists."""
    from nj_ledger.receipts import from_b64url, verify

    receipt = body["receipt"]
    assert (receipt["game"], receipt["version"]) == (game, version), receipt
    keys = {key["id"]: from_b64url(key["public_key"]) for key in client.get("/api/v1/keys").json["keys"]}
    assert verify(receipt, keys), receipt
    return dict(receipt)


def without_receipt(body: dict[str, Any]) -> dict[str, Any]:
    """An answer's body without its receipt (signed at each write: two games never share one)."""
    return {name: value for name, value in body.items() if name != "receipt"}
