"""`GET /metrics`, read with prometheus_client's own parser: what it counts moves with the requests.

The app made by ``create_app`` alone counts in the process's default registry,
shared by every app of the test session: each test reads the counts before and
after what it does and compares the two.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

from api.analysis import RUNS
from api.analysis_workers import Job
from api.context import store as app_store
from api.metrics import forget_dead_processes
from nj_ledger.store import Store
from nj_ledger.store.base import LostRace
from support.apps import new_app
from support.http import Calls, Club

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: Any) -> tuple[Samples, dict[str, str]]:
    """Every sample of ``GET /metrics`` by (name, labels), and each family's type, as Prometheus reads them."""
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer.mimetype == "text/plain", answer.headers
    samples: Samples = {}
    types = {}
    for family in text_string_to_metric_families(answer.get_data(as_text=True)):
        types[family.name] = family.type
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples, types


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def moved(client: Any, name: str, action: Callable[[], Any], **labels: str) -> float:
    """How much the sample ``name{labels}`` moved while ``action`` ran."""
    before, _ = scrape(client)
    action()
    after, _ = scrape(client)
    return value(after, name, **labels) - value(before, name, **labels)


def test_metrics_need_no_token_and_parse_as_prometheus_text(client) -> None:
    samples, types = scrape(client)
    assert types["nj_ledger_http_requests"] == "counter"
    assert types["nj_ledger_http_request_duration_seconds"] == "histogram"
    assert types["nj_ledger_stream_followers"] == "gauge"
    assert {"nj_ledger_refusals", "nj_ledger_actions_appended", "nj_ledger_events_recorded",
            "nj_ledger_analyses_queued", "nj_ledger_analyses_running", "nj_ledger_database_errors",
            "nj_ledger_database_retries"} <= set(types)
    assert ("nj_ledger_stream_followers", (("kind", "table"),)) in samples  # shown at 0 before any stream


def test_requests_are_counted_by_route_never_by_url(client, calls: Calls, club: Club) -> None:
    game = calls.game(club)["id"]
    route = {"route": "games.Game", "method": "GET"}
    before, _ = scrape(client)
    for _ in range(3):
        assert client.get(f"/api/v1/games/{game}", headers=club.auth).status_code == 200
    assert client.get("/api/v1/games/nosuchgame", headers=club.auth).status_code == 404
    after, _ = scrape(client)
    assert value(after, "nj_ledger_http_requests_total", status="200", **route) - value(
        before, "nj_ledger_http_requests_total", status="200", **route) == 3
    assert value(after, "nj_ledger_http_requests_total", status="404", **route) - value(
        before, "nj_ledger_http_requests_total", status="404", **route) == 1
    assert value(after, "nj_ledger_http_request_duration_seconds_count", **route) - value(
        before, "nj_ledger_http_request_duration_seconds_count", **route) == 4
    assert value(after, "nj_ledger_http_request_duration_seconds_bucket", le="+Inf", **route) - value(
        before, "nj_ledger_http_request_duration_seconds_bucket", le="+Inf", **route) == 4
    labels = {label for _, pairs in after for _, label in pairs}
    assert game not in labels and "nosuchgame" not in labels and not any("/" in label for label in labels)
    assert moved(client, "nj_ledger_http_requests_total", lambda: client.get("/no/such/page"),
                 route="unmatched", method="GET", status="404") == 1


def test_refusals_are_counted_by_code(client, calls: Calls, club: Club) -> None:
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    assert moved(client, "nj_ledger_refusals_total", lambda: calls.act(
        club, game, {"type": "play", "seat": 2, "cards": ["KS"]}), code="not-your-turn") == 1
    assert moved(client, "nj_ledger_refusals_total", lambda: calls.act(
        club, game, {"type": "pass", "seat": 0}, If_Match='"1"'), code="version-conflict") == 1
    assert moved(client, "nj_ledger_refusals_total", lambda: client.get(f"/api/v1/games/{game}"),
                 code="unauthorized") == 1
    assert moved(client, "nj_ledger_refusals_total", lambda: client.get("/api/v1/nowhere", headers=club.auth),
                 code="not-found") == 1


def test_appends_are_counted_and_an_answered_retry_is_not(client, calls: Calls, club: Club) -> None:
    before, _ = scrape(client)
    game = calls.game(club)["id"]
    dealt = calls.act(club, game, {"type": "deal"}, Idempotency_Key="metrics-deal-1")
    assert dealt.status_code == 201
    again = calls.act(club, game, {"type": "deal"}, Idempotency_Key="metrics-deal-1")
    assert again.status_code == 201 and again.json == dealt.json
    after, _ = scrape(client)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("nj_ledger_actions_appended_total") == 1
    assert grew("nj_ledger_events_recorded_total", source="actions") == len(dealt.json["events"]) > 1
    assert grew("nj_ledger_events_recorded_total", source="new-game") == 1


def test_every_answer_carries_a_request_id_of_the_servers_own(client, calls: Calls, club: Club,
                                                                       problem) -> None:
    game = calls.game(club)["id"]
    answers = [client.get("/api/v1/health"), client.get("/metrics"), client.get("/signin"),
               client.get("/api/v1/nowhere", headers=club.auth), client.get(f"/api/v1/games/{game}"),
               calls.act(club, game, {"type": "play", "seat": 2, "cards": ["KS"]}),
               client.post("/api/v1/clubs", data="{", content_type="application/json")]
    problem(answers[3], 404), problem(answers[4], 401), problem(answers[5], 422)
    ids = [answer.headers["X-Request-Id"] for answer in answers]
    assert len(set(ids)) == len(ids) and all(len(one) == 16 for one in ids)
    for unsafe in ("proxy-7f3a.b_2", "a" * 65, "two words", "<script>", "é"):  # no proxy: none is a proxy's
        replaced = client.get("/api/v1/nowhere", headers={"X-Request-Id": unsafe}).headers["X-Request-Id"]
        assert replaced != unsafe and len(replaced) == 16 and replaced.isalnum()


def test_the_figures_are_read_on_the_server_itself_or_from_the_addresses_named(store: Store, problem) -> None:
    app = new_app(store, PROXIES="127.0.0.1", METRICS_FROM="10.0.0.0/8")

    def read(peer: str, forwarded: str | None = None, language: str = "en") -> Any:
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = peer
        headers = {"Accept-Language": language, **({"X-Forwarded-For": forwarded} if forwarded else {})}
        return client.get("/metrics", headers=headers)

    assert read("127.0.0.1").status_code == 200 and read("::1").status_code == 200
    assert read("10.1.2.3").status_code == 200  # a scraper of the private network, named
    problem(read("192.168.1.30"), 403, "forbidden")  # a phone of the room's network
    refused = problem(read("127.0.0.1", "203.0.113.9"), 403, "forbidden")  # the internet, through the proxy
    assert "NJ_LEDGER_METRICS_FROM" in refused["detail"]
    assert "NJ_LEDGER_METRICS_FROM" in problem(read("192.168.1.30", language="fr"), 403)["detail"]


def test_stream_followers_are_counted_while_open(client, calls: Calls, club: Club) -> None:
    game = calls.game(club)["id"]
    before, _ = scrape(client)
    stream = client.get(f"/api/v1/games/{game}/stream", headers=club.auth, buffered=False)
    assert stream.status_code == 200 and stream.headers["X-Request-Id"]
    assert next(iter(stream.response)).startswith(b"retry:")  # the stream has started
    during, _ = scrape(client)
    stream.close()
    after, _ = scrape(client)
    game_kind = {"kind": "game"}
    assert value(during, "nj_ledger_stream_followers", **game_kind) == value(
        before, "nj_ledger_stream_followers", **game_kind) + 1
    assert value(after, "nj_ledger_stream_followers", **game_kind) == value(
        before, "nj_ledger_stream_followers", **game_kind)


def wait_until(condition: Callable[[], bool], what: str, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_analyses_queued_and_running_are_counted(app, client, monkeypatch) -> None:
    runs = app.extensions[RUNS]
    before, _ = scrape(client)
    gate = threading.Event()
    base = {name: value(before, name) for name in ("nj_ledger_analyses_queued", "nj_ledger_analyses_running")}
    monkeypatch.setenv("NJ_LEDGER_ANALYSIS_PROCESSES", "1")
    monkeypatch.setattr(runs, "_run", lambda worker, job: gate.wait(10))  # the analysis, held until let go

    def now(name: str) -> float:
        return value(scrape(client)[0], name) - base[name]

    def job(deal: int) -> Job:
        return Job(("metrics-game", deal, 1, "digest"), "metrics-club", None, None, [], 1)  # type: ignore[arg-type]

    try:
        with app.app_context():  # the settings are the app's
            assert runs.start(job(1)) and runs.start(job(2))  # the second waits behind the first: one process
        wait_until(lambda: now("nj_ledger_analyses_running") == 1 and now("nj_ledger_analyses_queued") == 1,
                   "one analysis running, one queued")
        gate.set()
        wait_until(lambda: now("nj_ledger_analyses_running") == 0 and now("nj_ledger_analyses_queued") == 0,
                   "the analyses are over")
    finally:
        gate.set()


def test_database_errors_and_retries_are_counted(app, client) -> None:
    with app.app_context():
        store = app_store()
    tries = iter([LostRace(), None])

    def attempt() -> str:
        lost = next(tries)
        if lost is not None:
            raise lost
        return "written"

    assert moved(client, "nj_ledger_database_retries_total", lambda: store.db.retrying(attempt),
                 reason="lost-race") == 1

    def bad_statement() -> None:
        try:
            with store.db.reading() as session:
                session.execute(text("SELECT * FROM no_such_table"))
        except Exception:  # noqa: BLE001 - the error is what is counted
            return
        raise AssertionError("the statement was not refused")

    assert moved(client, "nj_ledger_database_errors_total", bad_statement, kind="other") == 1


def test_a_dead_workers_open_streams_leave_the_sums_and_its_counts_stay(tmp_path: Path) -> None:
    gone = 2**22 + 12345  # above Linux's default pid_max: no such process
    for name in (f"gauge_livesum_{gone}.db", f"counter_{gone}.db", f"gauge_livesum_{os.getpid()}.db"):
        (tmp_path / name).write_bytes(b"")
    forget_dead_processes(str(tmp_path))
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [f"counter_{gone}.db", f"gauge_livesum_{os.getpid()}.db"])

