"""GET /games/{game}/deals/{n}/analysis: a settled deal's review by the solver, computed off the request and kept."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from api.analysis import RUNS
from nj_ledger.deal_analysis import DEFAULT_LIMIT
from nj_ledger.store import Store
from nj_ledger.store.documents import import_document
from nj_ledger.store.models import DealAnalysis
from support.apps import new_app
from support.http import Calls, Club, assert_problem

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json"


def first_deal(store: Store, club: Club) -> str:
    """Deal 1 of the Sunday example, settled, the next deal not dealt yet."""
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["actions"] = document["actions"][:22]
    return import_document(store.games, club.id, document).game.id


def settled_answer(client: Any, url: str, headers: dict[str, str]) -> Any:
    for _ in range(600):
        answer = client.get(url, headers=headers)
        if answer.status_code != 202:
            return answer
        assert answer.headers["Retry-After"] == "2" and answer.json["status"] == "computing"
        time.sleep(0.05)
    raise AssertionError("the analysis did not end")


def test_202_while_it_runs_then_200_with_every_reviewed_decision(app: Flask, client, calls: Calls, club: Club,
                                                                 store: Store) -> None:
    app.config["NJ_LEDGER_ANALYSIS_LIMIT"] = 20_000
    game = first_deal(store, club)
    url = f"/api/v1/games/{game}/deals/1/analysis"
    first = client.get(url, headers=club.auth)
    assert first.status_code == 202 and first.headers["Retry-After"] == "2"
    answer = settled_answer(client, url, club.auth)
    assert answer.status_code == 200
    body = answer.json
    assert body["status"] == "partial" and body["from_seq"] == body["decisions"][0]["seq"]
    assert [(d["seat"], d["lost"], d["mark"]) for d in body["decisions"]] == [
        (3, 23, "blunder"), (0, 0, "best"), (1, 0, "best"), (2, 0, "best")]
    assert body["decisions"][0]["best"][0]["cards"] == ["7C"]
    assert body["thresholds"] == {"inaccuracy": 1, "mistake": 5, "blunder": 15}
    assert body["expected"][-1]["values"] == list(store.games.game_state(club.id, game)[1].balances)
    assert "budget" in body["message"]
    french = client.get(url, headers={**club.auth, "Accept-Language": "fr"}).json["message"]
    assert french != body["message"] and "budget" in french
    with store.db.reading() as session:  # computed once, whatever the number of requests
        assert session.scalar(select(func.count()).select_from(DealAnalysis).where(DealAnalysis.game_id == game)) == 1


def test_too_large_for_the_budget_is_a_200_that_says_so(app: Flask, client, club: Club, store: Store) -> None:
    app.config["NJ_LEDGER_ANALYSIS_LIMIT"] = 1
    game = first_deal(store, club)
    answer = settled_answer(client, f"/api/v1/games/{game}/deals/1/analysis", club.auth)
    assert answer.status_code == 200 and answer.json["status"] == "too-large" and answer.json["decisions"] == []


def test_an_unsettled_deal_an_unknown_deal_and_another_clubs_game(client, calls: Calls, club: Club, store: Store,
                                                                   problem) -> None:
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "deal"}).status_code in (200, 201)
    problem(client.get(f"/api/v1/games/{game}/deals/1/analysis", headers=club.auth), 409, "deal-not-settled")
    problem(client.get(f"/api/v1/games/{game}/deals/2/analysis", headers=club.auth), 404, "not-found")
    other = calls.club("Un autre club")
    settled = first_deal(store, club)
    problem(client.get(f"/api/v1/games/{settled}/deals/1/analysis", headers=other.auth), 404)


def test_a_share_of_the_game_reads_it(app: Flask, client, club: Club, store: Store) -> None:
    app.config["NJ_LEDGER_ANALYSIS_LIMIT"] = 20_000
    game = first_deal(store, club)
    secret = client.post(f"/api/v1/clubs/{club.id}/shares", json={"game": game}, headers=club.auth).json["secret"]
    answer = settled_answer(client, f"/api/v1/games/{game}/deals/1/analysis", {"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 200 and answer.json["decisions"][0]["mark"] == "blunder"


def test_an_undo_and_a_redo_make_another_analysis(app: Flask, client, calls: Calls, club: Club, store: Store,
                                                  problem) -> None:
    app.config["NJ_LEDGER_ANALYSIS_LIMIT"] = 20_000
    game = first_deal(store, club)
    url = f"/api/v1/games/{game}/deals/1/analysis"
    before = settled_answer(client, url, club.auth).json
    assert calls.act(club, game, {"type": "undo", "reason": "wrong card"}).status_code in (200, 201)
    problem(client.get(url, headers=club.auth), 409, "deal-not-settled")
    last = json.loads(EXAMPLE.read_text(encoding="utf-8"))["actions"][21]  # the play that settled the deal
    assert calls.act(club, game, last).status_code in (200, 201)
    assert client.get(url, headers=club.auth).status_code == 202  # the deal's events changed: computed again
    after = settled_answer(client, url, club.auth).json
    assert after["head"]["seq"] > before["head"]["seq"]
    assert [d["mark"] for d in after["decisions"]] == [d["mark"] for d in before["decisions"]]
    with store.db.reading() as session:
        assert session.scalar(select(func.count()).select_from(DealAnalysis).where(DealAnalysis.game_id == game)) == 2


def test_a_deal_settled_by_count_is_analysed_on_sampled_deals_and_says_so(app: Flask, client, calls: Calls,
                                                                         club: Club) -> None:
    app.config["NJ_LEDGER_ANALYSIS_LIMIT"] = DEFAULT_LIMIT
    # tests/core/test_settle_by_count.py's deal: recorded without hands, the losers' hands told by count
    game = calls.game(club, ["A", "B", "C"], rules={"profile": "classic", "players": [3],
                                                    "deal_table": {"3": [4, 40]}}, starting_chips=100)["id"]
    for action in ({"type": "deal"}, {"type": "play", "seat": 0, "cards": ["AC", "2C"]},
                   {"type": "play", "seat": 1, "cards": ["3D"]}, {"type": "play", "seat": 2, "cards": ["4D"]},
                   {"type": "play", "seat": 0, "cards": ["5C", "6C"]},
                   {"type": "reveal", "seat": 1, "count": 3, "points": 27, "honours": ["QS"]},
                   {"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]}):
        assert calls.act(club, game, action).status_code in (200, 201), action
    url = f"/api/v1/games/{game}/deals/1/analysis"
    body = settled_answer(client, url, club.auth).json
    assert body["status"] == "done" and len(body["decisions"]) == 4
    assert body["sampled"]["samples"] == 8 and body["sampled"]["hidden"] == 3 and body["sampled"]["deals"] > 8
    assert body["expected"][-1]["values"] == [131, 49, 39]  # what the counts paid, whatever the hidden cards
    assert "means over 8 deals" in body["message"]
    french = client.get(url, headers={**club.auth, "Accept-Language": "fr"}).json["message"]
    assert "moyennes sur 8 donnes" in french


@pytest.fixture
def own_app(store: Store) -> Iterator[Callable[..., Flask]]:
    """Apps of their own (the session's app keeps its analysis process and its settings), their analysis processes
    ended afterwards."""
    made: list[Flask] = []

    def make(**settings: Any) -> Flask:
        made.append(new_app(store, **settings))
        return made[-1]

    yield make
    for app in made:
        app.extensions[RUNS].close()


def test_an_analysis_past_its_cpu_time_fails_says_so_and_is_not_started_again(own_app: Callable[..., Flask],
                                                                              store: Store, caplog) -> None:
    # the whole default budget of deal 1 takes some 3 s of CPU: its process is ended past half a second
    app = own_app(NJ_LEDGER_ANALYSIS_SECONDS=0.5, NJ_LEDGER_ANALYSIS_LIMIT=DEFAULT_LIMIT)
    client = app.test_client()
    club = Calls(client).club()
    game = first_deal(store, club)
    url = f"/api/v1/games/{game}/deals/1/analysis"
    answer = settled_answer(client, url, club.auth)
    assert answer.status_code == 200 and answer.json["status"] == "failed" and "log" in answer.json["message"]
    assert "journal" in client.get(url, headers={**club.auth, "Accept-Language": "fr"}).json["message"]
    assert client.get(url, headers=club.auth).json["status"] == "failed"  # not started again
    assert "past its CPU time" in caplog.text
    with store.db.reading() as session:  # nothing kept: a restart tries again
        assert session.scalar(select(func.count()).select_from(DealAnalysis).where(DealAnalysis.game_id == game)) == 0


def test_an_analysis_past_its_memory_fails_and_the_next_one_gets_a_fresh_process(own_app: Callable[..., Flask],
                                                                                 store: Store, caplog) -> None:
    # the default budget's searches take some 350 MB: past 300 MB of address space, MemoryError
    app = own_app(NJ_LEDGER_ANALYSIS_MEMORY=300, NJ_LEDGER_ANALYSIS_LIMIT=DEFAULT_LIMIT)
    client = app.test_client()
    club = Calls(client).club()
    game = first_deal(store, club)
    answer = settled_answer(client, f"/api/v1/games/{game}/deals/1/analysis", club.auth)
    assert answer.status_code == 200 and answer.json["status"] == "failed"
    assert "past its memory (300 MB" in caplog.text
    app.config["NJ_LEDGER_ANALYSIS_LIMIT"] = 20_000  # within the memory: a fresh process computes it
    other = first_deal(store, club)
    assert settled_answer(client, f"/api/v1/games/{other}/deals/1/analysis", club.auth).json["status"] == "partial"


def test_past_the_clubs_limit_429_and_past_the_queue_503_each_with_retry_after(own_app: Callable[..., Flask],
                                                                              store: Store) -> None:
    app = own_app(NJ_LEDGER_ANALYSIS_PER_CLUB=1, NJ_LEDGER_ANALYSIS_QUEUE=1, NJ_LEDGER_ANALYSIS_LIMIT=DEFAULT_LIMIT)
    client = app.test_client()
    calls = Calls(client)
    ours, theirs, third = calls.club(), calls.club("Un autre club"), calls.club("Un troisième club")
    games = {club.id: [first_deal(store, club) for _ in range(2)] for club in (ours, theirs, third)}

    def ask(club: Club, index: int, **headers: str) -> Any:
        return client.get(f"/api/v1/games/{games[club.id][index]}/deals/1/analysis", headers={**club.auth, **headers})

    assert ask(ours, 0).status_code == 202  # computed (some 3 s of CPU: the default budget)
    analyses = app.extensions[RUNS]
    for _ in range(200):  # taken by the process: nothing waits
        if not analyses.waiting:
            break
        time.sleep(0.01)
    assert ask(ours, 0).status_code == 202  # the same analysis again: not one more
    refused = ask(ours, 1)
    body = assert_problem(refused, 429, "too-many-analyses")
    assert refused.headers["Retry-After"] == "10" and "10 seconds" in body["detail"]
    french = assert_problem(ask(ours, 1, **{"Accept-Language": "fr"}), 429, "too-many-analyses")
    assert french["detail"] != body["detail"] and "10 secondes" in french["detail"]
    assert ask(theirs, 0).status_code == 202  # waits: the queue's one place
    busy = ask(third, 0)
    body = assert_problem(busy, 503, "analyses-busy")
    assert busy.headers["Retry-After"] == "10"
    french = assert_problem(ask(third, 0, **{"Accept-Language": "fr"}), 503, "analyses-busy")
    assert french["detail"] != body["detail"]
    # once the first is done and the next taken by the process, the club may ask for its next one
    assert settled_answer(client, f"/api/v1/games/{games[ours.id][0]}/deals/1/analysis", ours.auth).status_code == 200
    for _ in range(200):
        if not analyses.waiting:
            break
        time.sleep(0.01)
    assert ask(ours, 1).status_code == 202


def test_a_setting_that_is_not_one_stops_the_app_when_it_is_made(store: Store) -> None:
    for wrong in ({"NJ_LEDGER_ANALYSIS_QUEUE": "many"}, {"NJ_LEDGER_ANALYSIS_PROCESSES": 0}):
        with pytest.raises(ValueError, match=next(iter(wrong))):
            new_app(store, **wrong)
