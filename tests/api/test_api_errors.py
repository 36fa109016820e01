"""Every error is problem+json, and a refused request leaves the log as it was."""

from __future__ import annotations

import pytest

from support.apps import new_app


@pytest.fixture
def game(calls, club) -> str:
    return str(calls.game(club)["id"])


def test_malformed_json_is_400_invalid_json(client, club, game, problem) -> None:
    answer = client.post(f"/api/v1/games/{game}/actions", data='{"actions": [', content_type="application/json",
                         headers=club.auth)
    problem(answer, 400, "invalid-json")


@pytest.mark.parametrize("body", [
    {"actions": "deal"},
    {"actions": [1, 2]},
    {"actions": []},
    {},
    [{"type": "deal"}],
    None,
])
def test_a_body_of_the_wrong_shape_is_422_invalid_request(client, club, game, problem, body) -> None:
    answer = client.post(f"/api/v1/games/{game}/actions", json=body, headers=club.auth)
    assert problem(answer, 422, "invalid-request")["errors"]


def test_unknown_fields_and_wrong_types_name_the_field(client, club, problem) -> None:
    answer = client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth,
                         json={"players": ["Ana", "Ben"], "starting_chips": "sixty", "colour": "red"})
    body = problem(answer, 422, "invalid-request")
    assert set(body["errors"]) == {"starting_chips", "colour"}
    assert body["errors"]["colour"] == ["Unknown field."]


def test_a_body_that_is_not_json_is_415(client, club, game, problem) -> None:
    answer = client.post(f"/api/v1/games/{game}/actions", data="actions=deal",
                         content_type="application/x-www-form-urlencoded", headers=club.auth)
    problem(answer, 415, "unsupported-media-type")
    answer = client.post(f"/api/v1/games/{game}/actions", data=b'{"actions": []}', headers=club.auth)
    problem(answer, 415, "unsupported-media-type")


def test_an_oversized_body_is_413(store, club, problem) -> None:
    app = new_app(store, MAX_CONTENT_LENGTH=1000)
    answer = app.test_client().post(f"/api/v1/clubs/{club.id}/players", headers=club.auth,
                                    json={"name": "x" * 2000})
    problem(answer, 413, "request-too-large")


def test_unknown_paths_and_methods(client, club, game, problem) -> None:
    problem(client.get("/api/v1/nothing-here"), 404, "not-found")
    problem(client.get(f"/api/v1/games/{game}x", headers=club.auth), 404, "not-found")
    answer = client.delete(f"/api/v1/games/{game}", headers=club.auth)
    problem(answer, 405, "method-not-allowed")
    assert "GET" in answer.headers["Allow"]
    problem(client.get(f"/api/v1/games/{game}/deals/7/replay", headers=club.auth), 404, "not-found")


@pytest.mark.parametrize(("actions", "code", "index"), [
    ([{"type": "play", "seat": 0, "cards": ["5H"]}], "no-deal-in-progress", 0),
    ([{"type": "deal"}, {"type": "deal"}], "deal-in-progress", 1),
    ([{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["ZZ"]}], "invalid-card", 1),
    ([{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["5H"]}, {"type": "play", "seat": 1, "cards": ["9C"]}],
     "out-of-sequence", 2),
    ([{"type": "shuffle"}], "invalid-action", 0),
    ([{"type": "deal", "dealer": 9}], "unknown-seat", 0),
])
def test_an_illegal_action_is_refused_with_its_index_and_nothing_is_stored(
        calls, club, game, problem, actions, code, index) -> None:
    before = calls.events(club, game)
    body = problem(calls.act(club, game, *actions), 422, code)
    assert body["index"] == index
    assert calls.events(club, game) == before


def test_an_unexpected_failure_is_a_generic_problem_without_details(store, club, game, problem, monkeypatch) -> None:
    app = new_app(store)

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(store.games, "game_state", broken)
    answer = app.test_client().get(f"/api/v1/games/{game}", headers=club.auth)
    body = problem(answer, 500, "internal-error")
    assert "secret" not in answer.get_data(as_text=True) and "RuntimeError" not in body["detail"]


def test_bad_precondition_headers_are_400(calls, club, game, problem) -> None:
    problem(calls.act(club, game, {"type": "deal"}, If_Match="yesterday"), 400, "invalid-header")
    problem(calls.act(club, game, {"type": "deal"}, Idempotency_Key="k" * 201), 400, "invalid-header")
    assert len(calls.events(club, game)) == 1


def test_bad_query_parameters_are_422(client, club, game, problem) -> None:
    problem(client.get(f"/api/v1/clubs/{club.id}/games?status=lost", headers=club.auth), 422, "invalid-request")
    problem(client.get(f"/api/v1/clubs/{club.id}/games?limit=0", headers=club.auth), 422, "invalid-request")
    problem(client.get(f"/api/v1/games/{game}/events?after=-1", headers=club.auth), 422, "invalid-request")
