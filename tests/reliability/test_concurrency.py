"""Concurrent writers on one game, in threads and in separate processes, on SQLite (a WAL file) and PostgreSQL.

With ``If-Match`` every success gets its own seqs and the log has no gap; every
loser is told 409 ``version-conflict``. Without it the appends queue up and
none is lost. Either way the game's state is a replay of its log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.apps import serving
from support.http import Calls, Club, HttpApp
from support.scale import scaled, sized

from .helpers import check_store, replayed_view, start_server
from .workers import Outcome, ProcessClients, in_threads


def race(url: str, runner: ProcessClients | None, clients: int, attempts: int, if_match: bool) -> None:
    """``clients`` writers (threads, or the processes of ``runner``) on one new game, then every check."""
    with serving(url) as app:
        calls = Calls(app.test_client())
        club = calls.club()
        game = calls.game(club)["id"]
        if runner is None:
            outcomes = in_threads(app, club.token, game, clients, attempts, if_match)
        else:
            outcomes = runner.race(url, club.token, game, clients, attempts, if_match)
    check_race(url, club, game, outcomes, clients, attempts, if_match)


def check_race(url: str, club: Club, game: str, outcomes: list[Outcome], clients: int, attempts: int,
               if_match: bool) -> dict[str, Any]:
    """Every check of a race, on a fresh app (nothing cached: the log decides); the game's state."""
    assert len(outcomes) == clients
    check_outcomes(outcomes, clients * attempts, if_match)

    with serving(url) as app:  # nothing cached: the log decides
        fresh = Calls(app.test_client())
        events = fresh.events(club, game)
        state = fresh.state(club, game)
        audit = fresh.audit(club, game)
    appended = sorted(seq for outcome in outcomes for batch in outcome.appended for seq in batch)
    assert appended == list(range(2, len(events) + 1)), "a seq was given twice, or a success is missing"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    successes = sum(len(outcome.appended) for outcome in outcomes)
    assert [e["type"] for e in events].count("adjust") == successes
    identity = ("id", "club", "title", "date", "receipt")  # the game's, not its log's
    assert {k: v for k, v in state.items() if k not in identity} == replayed_view(events)
    assert (state["receipt"]["version"], state["receipt"]["head"]) == (len(events), events[-1]["hash"])
    assert state["version"] == len(events)
    chips = [seat["chips"] for seat in state["players"]]
    if if_match:  # the chip went out and came back, one success after the other
        assert chips == [60 - successes % 2, 60 + successes % 2, 60]
    else:  # every client sent its chip out and back the same number of times
        assert chips == [60, 60, 60] and successes == clients * attempts
    assert audit["ok"] and audit["chain"]["checked"] == len(events), audit["findings"][:3]
    check_store(url)
    return state


def check_outcomes(outcomes: list[Outcome], attempts: int, if_match: bool) -> None:
    others = [other for outcome in outcomes for other in outcome.others]
    assert others == [], others[:3]
    successes = sum(len(outcome.appended) for outcome in outcomes)
    conflicts = sum(outcome.conflicts for outcome in outcomes)
    assert successes + conflicts == attempts
    assert all(len(batch) == 2 for outcome in outcomes for batch in outcome.appended)
    if not if_match:
        assert conflicts == 0


def runner(mode: str, request: pytest.FixtureRequest) -> ProcessClients | None:
    return request.getfixturevalue("process_clients") if mode == "processes" else None


@scaled
@pytest.mark.parametrize("if_match", [True, False], ids=["if-match", "no-if-match"])
@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_concurrent_writers_lose_and_duplicate_nothing(fresh_url, mode, if_match, request) -> None:
    """Four writers, 50 attempts each in make test; eight in make test-slow, 1,000 attempts each with If-Match
    (every writer but one loses each race) and 100 without (they queue up)."""
    clients, attempts = sized((4, 50), (8, 1000 if if_match else 100))
    race(fresh_url, runner(mode, request), clients=clients, attempts=attempts, if_match=if_match)


@pytest.mark.parametrize("if_match", [True, False], ids=["if-match", "queued"])
def test_two_server_workers_lose_and_duplicate_nothing(fresh_url: str, tmp_path: Path, if_match: bool) -> None:
    """`nj-ledger serve --workers 2`: two processes, each with caches of its own, serve one game to four
    clients over HTTP; the same guarantees hold, and either worker then serves the replayed state."""
    with (tmp_path / "server.log").open("wb") as log:
        server, port = start_server(fresh_url, tmp_path, log, workers=2)
        try:
            app = HttpApp(port)
            calls = Calls(app.test_client())
            club = calls.club()
            game = calls.game(club)["id"]
            outcomes = in_threads(app, club.token, game, 4, 40, if_match)  # type: ignore[arg-type]
            served = [Calls(app.test_client()).state(club, game) for _ in range(6)]  # new connections
        finally:
            server.terminate()
            server.wait(timeout=30)
    state = check_race(fresh_url, club, game, outcomes, 4, 40, if_match)
    assert all(seen == state for seen in served)
