"""Idempotent retries: the first response again and nothing appended; a key reused for another request
refused; keys scoped to their club; and the same holds when the retries race each other."""

from __future__ import annotations

import threading
from typing import Any

from support.http import assert_problem

DEAL = {"type": "deal"}
ADJUST = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2, "reason": "a round of drinks"}


def test_a_retry_returns_the_first_response_and_appends_nothing(calls, club) -> None:
    game = calls.game(club)["id"]
    first = calls.act(club, game, DEAL, Idempotency_Key="deal-1")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    log = calls.events(club, game)
    for _ in range(3):
        again = calls.act(club, game, DEAL, Idempotency_Key="deal-1")
        assert (again.status_code, again.get_json()) == (201, first.get_json())
        assert again.headers["Idempotent-Replayed"] == "true" and again.headers["ETag"] == first.headers["ETag"]
        assert calls.events(club, game) == log


def test_a_retry_after_the_game_moved_on_still_answers_as_the_first_time(calls, club) -> None:
    game = calls.game(club)["id"]
    first = calls.act(club, game, ADJUST, Idempotency_Key="k-adjust")
    assert first.status_code == 201
    assert calls.act(club, game, DEAL).status_code == 201
    log = calls.events(club, game)
    again = calls.act(club, game, ADJUST, Idempotency_Key="k-adjust")
    assert (again.status_code, again.get_json()) == (201, first.get_json())
    assert again.json["state"]["version"] < len(log) and calls.events(club, game) == log


def test_the_same_key_with_another_body_or_game_is_refused(calls, club) -> None:
    game = calls.game(club)["id"]
    other_game = calls.game(club)["id"]
    assert calls.act(club, game, ADJUST, Idempotency_Key="k1").status_code == 201
    log, other_log = calls.events(club, game), calls.events(club, other_game)
    assert_problem(calls.act(club, game, {**ADJUST, "amount": 3}, Idempotency_Key="k1"), 422, "idempotency-mismatch")
    assert_problem(calls.act(club, game, ADJUST, DEAL, Idempotency_Key="k1"), 422, "idempotency-mismatch")
    assert_problem(calls.act(club, other_game, ADJUST, Idempotency_Key="k1"), 422, "idempotency-mismatch")
    assert calls.events(club, game) == log and calls.events(club, other_game) == other_log


def test_a_refusal_is_remembered_too(calls, club) -> None:
    game = calls.game(club)["id"]
    play = {"type": "play", "seat": 0, "cards": ["7D"]}
    first = calls.act(club, game, play, Idempotency_Key="too-early")
    assert_problem(first, 422, "no-deal-in-progress")
    assert calls.act(club, game, DEAL).status_code == 201
    log = calls.events(club, game)
    again = calls.act(club, game, play, Idempotency_Key="too-early")  # legal now, but this key already had its answer
    assert (again.status_code, again.get_json()) == (422, first.get_json())
    assert again.mimetype == "application/problem+json" and calls.events(club, game) == log


def test_keys_are_scoped_to_their_club(calls) -> None:
    ours, theirs = calls.club("Le Nain du Jeudi"), calls.club("Les Voisins")
    our_game, their_game = calls.game(ours)["id"], calls.game(theirs)["id"]
    mine = calls.act(ours, our_game, ADJUST, Idempotency_Key="shared-key")
    yours = calls.act(theirs, their_game, {**ADJUST, "amount": 5}, Idempotency_Key="shared-key")
    assert mine.status_code == yours.status_code == 201
    assert "Idempotent-Replayed" not in yours.headers
    assert [e["data"].get("amount") for e in calls.events(theirs, their_game)][1:] == [5, 5]
    assert [e["data"].get("amount") for e in calls.events(ours, our_game)][1:] == [2, 2]
    assert_problem(calls.act(theirs, our_game, ADJUST, Idempotency_Key="shared-key"), 404, "not-found")


def race(count: int, call: Any) -> list[Any]:
    """``count`` threads make ``call()`` at the same moment; their answers."""
    start = threading.Barrier(count)
    answers: list[Any] = [None] * count

    def one(position: int) -> None:
        start.wait()
        answers[position] = call()

    threads = [threading.Thread(target=one, args=(position,)) for position in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_racing_retries_append_once_and_all_get_the_first_response(app, calls, club) -> None:
    game = calls.game(club)["id"]

    def retry() -> tuple[int, Any]:
        answer = app.test_client().post(f"/api/v1/games/{game}/actions", json={"actions": [ADJUST]},
                                        headers={**club.auth, "Idempotency-Key": "racing"})
        return answer.status_code, answer.get_json()

    answers = race(8, retry)
    assert {status for status, _ in answers} == {201}
    assert all(body == answers[0][1] for _, body in answers)
    assert [e["type"] for e in calls.events(club, game)] == ["game_started", "adjust", "transfer"]


def test_racing_uses_of_one_key_on_two_games_append_once(app, calls, club) -> None:
    games = [calls.game(club)["id"] for _ in range(2)]

    def use(position: int) -> int:
        answer = app.test_client().post(f"/api/v1/games/{games[position % 2]}/actions", json={"actions": [ADJUST]},
                                        headers={**club.auth, "Idempotency-Key": "one-key-two-games"})
        if answer.status_code != 201:
            assert_problem(answer, 422, "idempotency-mismatch")
        return answer.status_code

    counter = iter(range(8))
    lock = threading.Lock()

    def next_use() -> int:
        with lock:
            position = next(counter)
        return use(position)

    statuses = race(8, next_use)
    assert 201 in statuses and set(statuses) <= {201, 422}
    appended = [len(calls.events(club, game)) - 1 for game in games]
    assert sorted(appended) == [0, 2]  # one game got the adjustment (and its transfer), once; the other nothing
