"""Every route's access rules: 401 without a valid token, 403 for a viewer's writes, 404 across clubs."""

from __future__ import annotations

import pytest

from support.apps import new_app
from support.http import ADMIN_TOKEN, Calls, Club

DOCUMENT = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben"], "rules": "classic",
            "starting_chips": 40, "actions": []}
READS = [
    ("GET", "/api/v1/clubs/{club}", None),
    ("GET", "/api/v1/clubs/{club}/players", None),
    ("GET", "/api/v1/clubs/{club}/games", None),
    ("GET", "/api/v1/games/{game}", None),
    ("GET", "/api/v1/games/{game}/events", None),
    ("GET", "/api/v1/games/{game}/taps?cards=5H", None),
    ("GET", "/api/v1/games/{game}/deals/1/replay", None),
    ("GET", "/api/v1/games/{game}/audit", None),
    ("GET", "/api/v1/games/{game}/export?format=json", None),
]
WRITES = [
    ("POST", "/api/v1/clubs/{club}/tokens", {"role": "viewer"}),
    ("POST", "/api/v1/clubs/{club}/players", {"name": "Zoé"}),
    ("POST", "/api/v1/clubs/{club}/games", {"players": ["Ana", "Ben"], "starting_chips": 40}),
    ("POST", "/api/v1/games/{game}/actions", {"actions": [{"type": "play", "seat": 0, "cards": ["5H"]}]}),
    ("POST", "/api/v1/clubs/{club}/imports", DOCUMENT),
]


@pytest.fixture
def table(calls: Calls, club: Club) -> dict[str, str]:
    game = calls.game(club)
    assert calls.act(club, game["id"], {"type": "deal"}).status_code == 201
    return {"club": club.id, "game": game["id"]}


@pytest.mark.parametrize(("method", "path", "body"), READS + WRITES)
def test_no_token_or_a_wrong_one_is_401(calls, problem, table, method, path, body) -> None:
    for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic YTpi"},
                    {"Authorization": f"Bearer {ADMIN_TOKEN}"}):
        answer = calls.send(method, path.format(**table), body, headers=headers)
        problem(answer, 401, "unauthorized")
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(("method", "path", "body"), READS)
def test_a_viewer_reads(calls, club, table, method, path, body) -> None:
    viewer = calls.token(club, "viewer")
    assert calls.send(method, path.format(**table), body, club=viewer).status_code == 200


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_a_viewer_may_not_write(calls, club, problem, table, method, path, body) -> None:
    viewer = calls.token(club, "viewer")
    problem(calls.send(method, path.format(**table), body, club=viewer), 403, "forbidden")
    assert len(calls.events(club, table["game"])) == 17


@pytest.mark.parametrize(("method", "path", "body"), READS + WRITES)
def test_another_clubs_token_finds_nothing(calls, problem, table, method, path, body) -> None:
    neighbour = calls.club("Les Voisins")
    problem(calls.send(method, path.format(**table), body, club=neighbour), 404, "not-found")


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_a_scorer_writes(calls, club, table, method, path, body) -> None:
    answer = calls.send(method, path.format(**table), body, club=club)
    assert answer.status_code == 201, answer.get_json()


def test_creating_a_club_needs_the_admin_token(client, club, problem) -> None:
    problem(client.post("/api/v1/clubs", json={"name": "X"}), 401, "unauthorized")
    problem(client.post("/api/v1/clubs", json={"name": "X"}, headers=club.auth), 403, "forbidden")
    answer = client.post("/api/v1/clubs", json={"name": "X"}, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert answer.status_code == 201 and set(answer.json) == {"id", "name", "created_at", "token"}
    assert answer.headers["Cache-Control"] == "no-store"


def test_without_an_admin_token_configured_no_club_can_be_created(store, problem) -> None:
    app = new_app(store, ADMIN_TOKEN=None)
    answer = app.test_client().post("/api/v1/clubs", json={"name": "X"}, headers={"Authorization": "Bearer x"})
    body = problem(answer, 403, "forbidden")
    assert "NJ_LEDGER_ADMIN_TOKEN" in body["detail"]


def test_tokens_made_through_the_api_have_the_role_asked(client, calls, club) -> None:
    scorer = calls.token(club, "scorer")
    answer = client.post(f"/api/v1/clubs/{club.id}/players", json={"name": "Gaston"}, headers=scorer.auth)
    assert answer.status_code == 201
    default = client.post(f"/api/v1/clubs/{club.id}/tokens", json={}, headers=club.auth)
    assert default.status_code == 201 and default.json["role"] == "viewer"
