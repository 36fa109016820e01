"""What the server counts, for Prometheus: ``GET /metrics`` in its text format, across all the server's workers.

What is counted (every name starts ``nj_ledger_``):

- ``http_requests_total{route, method, status}`` and the histogram
  ``http_request_duration_seconds{route, method}``: the route is the app's
  endpoint (``games.Actions``, ``unmatched`` for a path no route takes), never
  the URL, whose ids would make a series per game;
- ``refusals_total{code}``: every problem+json answer, by its ``code``
  (``out-of-sequence``, ``version-conflict``, ``not-found``…);
- ``actions_appended_total`` and ``events_recorded_total{source}``: table
  actions recorded, and the events written for them (``actions``), for a new
  game (``new-game``) or an import (``import``); a retry answered from its
  ``Idempotency-Key`` counts nothing;
- ``stream_followers{kind}``: streams open now (``game``, ``club``,
  ``evening``, ``table``);
- ``analyses_queued`` and ``analyses_running``: deal analyses waiting for the
  solver and being solved (:mod:`api.analysis`);
- ``database_errors_total{kind}`` and ``database_retries_total{reason}``: what
  the store tells its watcher (:class:`nj_ledger.store.base.StoreWatcher`).

Several workers. ``nj-ledger serve`` runs granian's worker processes, each with
its own counters; a scrape reaches one of them. prometheus_client's
multi-process mode has each process write its values to files of a private
folder that the server makes for the run (``PROMETHEUS_MULTIPROC_DIR``, set by
:mod:`api.serving` before the workers start), and whichever worker answers a
scrape adds up every process's files. That mode is chosen when prometheus_client
is first imported, so it is imported here only when an app is made, in the
worker, never when the package is: the server's own process imports the app
before it sets the folder. A worker that died leaves its counts in the sum (a
count never goes back), and its open streams and analyses are taken out at the
next scrape. Made by ``create_app`` alone (the tests, one process), the app
counts in the process's default registry.

What it costs a request: a counter and a histogram bucket written to the
worker's files (their labelled series looked up once), and for an append its
events and actions: 7 to 12 µs of CPU per append, measured in one process
against the same appends with nothing counted (about 800 µs each). A refusal's
body is read back for its code.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson
from flask import Flask, Response, current_app, request
from flask.views import MethodView
from flask_smorest import Api, Blueprint

from nj_ledger.store import Store
from nj_ledger.store.base import StoreWatcher

from .accesslog import RECEIVED, method
from .problems import PROBLEM_JSON, Problem
from .proxies import Network, networks, within

if TYPE_CHECKING:
    from prometheus_client import Counter, Gauge, Histogram

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"
READERS = "nj_ledger.metrics_readers"  # app.extensions: who may read /metrics (this machine, and METRICS_FROM)
THIS_MACHINE = networks("127.0.0.0/8,::1", "the loopback")
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)  # seconds
FOLLOWER_KINDS = ("game", "club", "evening", "table")
_CODE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")  # a problem's code as the app writes them; anything else: "other"
_LIVE_GAUGES = re.compile(r"gauge_live\w*?_(\d+)\.db")

blp = Blueprint("metrics", __name__, description="What the server counts (Prometheus).")


class Instruments:
    """The process's counters, gauges and histograms (made once a process: prometheus_client refuses two of
    one name)."""

    def __init__(self) -> None:
        from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics, values

        if os.environ.get(MULTIPROCESS_ENV) and not getattr(values.ValueClass, "_multiprocess", False):
            values.ValueClass = values.get_value_class()  # imported before the folder was set: count in files now
        disable_created_metrics()  # no `_created` series, as in multi-process mode: one app, one text either way
        self.requests: Counter = Counter("nj_ledger_http_requests", "Requests answered, by route, method and status.",
                                         ["route", "method", "status"])
        self.latency: Histogram = Histogram(
            "nj_ledger_http_request_duration_seconds", "Time from a request's arrival at a worker to its answer "
            "(a stream: to its head), by route and method.", ["route", "method"], buckets=BUCKETS)
        self.refusals: Counter = Counter("nj_ledger_refusals", "Answers that are problems, by their code.", ["code"])
        self.actions: Counter = Counter("nj_ledger_actions_appended", "Table actions recorded (POST …/actions).")
        self.events: Counter = Counter("nj_ledger_events_recorded", "Events written to games' logs, by what wrote "
                                       "them: actions, new-game, import.", ["source"])
        self.followers: Gauge = Gauge("nj_ledger_stream_followers", "Streams open now, by what they follow.",
                                      ["kind"], multiprocess_mode="livesum")
        self.analyses_queued: Gauge = Gauge("nj_ledger_analyses_queued", "Deal analyses waiting for the solver.",
                                            multiprocess_mode="livesum")
        self.analyses_running: Gauge = Gauge("nj_ledger_analyses_running", "Deal analyses being solved.",
                                             multiprocess_mode="livesum")
        self.database_errors: Counter = Counter(
            "nj_ledger_database_errors", "Database errors, by kind: connect, disconnect, transient, other.", ["kind"])
        self.database_retries: Counter = Counter(
            "nj_ledger_database_retries", "Write transactions run again, by why: lost-race, transient.", ["reason"])
        for kind in FOLLOWER_KINDS:  # shown at 0 before the first stream
            self.followers.labels(kind)
        self._answered: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        self._recorded: dict[str, Any] = {}

    def answered(self, route: str, verb: str, status: int, seconds: float) -> None:
        """Count one answer and its time; the labelled series are looked up once per (route, method, status)."""
        series = self._answered.get((route, verb, status))
        if series is None:
            series = (self.requests.labels(route, verb, str(status)), self.latency.labels(route, verb))
            self._answered[(route, verb, status)] = series
        series[0].inc()
        series[1].observe(seconds)

    def recorded(self, source: str) -> Any:
        """The count of events written by ``source`` (its series looked up once)."""
        series = self._recorded.get(source)
        if series is None:
            series = self._recorded[source] = self.events.labels(source)
        return series


class _Counting(StoreWatcher):
    """The store's watcher that counts what it is told."""

    def __init__(self, instruments: Instruments) -> None:
        self.instruments = instruments

    def database_error(self, kind: str) -> None:
        self.instruments.database_errors.labels(kind).inc()

    def retried(self, reason: str) -> None:
        self.instruments.database_retries.labels(reason).inc()


_made: Instruments | None = None
_making = threading.Lock()


def instruments() -> Instruments:
    """This process's instruments, made at the first call (after ``PROMETHEUS_MULTIPROC_DIR`` is set)."""
    global _made
    if _made is None:
        with _making:
            if _made is None:
                _made = Instruments()
    return _made


def recorded(source: str, events: int, actions: int = 0) -> None:
    """``events`` written to a log by ``source`` (``actions``: a batch of ``actions`` table actions)."""
    made = instruments()
    made.recorded(source).inc(events)
    if actions:
        made.actions.inc(actions)


def follower(kind: str) -> Callable[[], None]:
    """Count a stream open (``kind``: what it follows); call what it returns when the stream is over."""
    gauge = instruments().followers.labels(kind)
    gauge.inc()
    return gauge.dec


def analysis_queued() -> None:
    instruments().analyses_queued.inc()


def analysis_started() -> None:
    made = instruments()
    made.analyses_queued.dec()
    made.analyses_running.inc()


def analysis_ended() -> None:
    instruments().analyses_running.dec()


def _code(response: Response) -> str:
    """The ``code`` of a problem answer (``other`` if it has none the app would write)."""
    try:
        code = orjson.loads(response.get_data()).get("code")
    except (orjson.JSONDecodeError, AttributeError):
        return "other"
    return code if isinstance(code, str) and _CODE.fullmatch(code) else "other"


def init_app(app: Flask, api: Api, store: Store) -> None:
    """Count every request and refusal of ``app``, what ``store`` tells, and serve ``GET /metrics``."""
    made = instruments()
    store.db.watcher = _Counting(made)
    app.extensions[READERS] = THIS_MACHINE + networks(app.config.get("METRICS_FROM"), "NJ_LEDGER_METRICS_FROM")

    def counted(response: Response) -> Response:
        asked = request._get_current_object()  # type: ignore[attr-defined]  # one look-up, not one per field
        started = asked.environ.get(RECEIVED)
        seconds = time.perf_counter() - started if started is not None else 0.0
        made.answered(asked.endpoint or "unmatched", method(asked.method), response.status_code, seconds)
        if response.mimetype == PROBLEM_JSON and not response.is_streamed:
            made.refusals.labels(_code(response)).inc()
        return response

    app.after_request_funcs.setdefault(None, []).insert(0, counted)  # after every other step: the answer as sent
    api.register_blueprint(blp)


def exposition() -> tuple[bytes, str]:
    """The text a scrape reads, and its content type: every worker's values added up when the server runs
    several (multi-process mode), else this process's."""
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    folder = os.environ.get(MULTIPROCESS_ENV)
    if not folder:
        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    forget_dead_processes(folder)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, folder)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def forget_dead_processes(folder: str) -> None:
    """Take the gauges of the processes that are gone (a worker killed and replaced) out of the sums: a dead
    worker has no stream open. Its counters stay, added in: a count never goes back."""
    from prometheus_client.multiprocess import mark_process_dead

    for name in os.listdir(folder):
        found = _LIVE_GAUGES.fullmatch(name)
        if found is None:
            continue
        pid = int(found.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, folder)
        except PermissionError:  # alive, another user's: not ours to judge
            pass


@blp.route("/metrics")
class Metrics(MethodView):
    @blp.doc(security=[], responses={"200": {
        "description": "Prometheus's text format: every worker's values added up.",
        "content": {"text/plain": {"schema": {"type": "string"}, "example": (
            '# HELP nj_ledger_http_requests_total Requests answered, by route, method and status.\n'
            '# TYPE nj_ledger_http_requests_total counter\n'
            'nj_ledger_http_requests_total{method="POST",route="games.Actions",status="201"} 1042.0\n')}}}})
    def get(self) -> Response:
        """What the server counts, for Prometheus: requests by route and status, their latency, table actions and
        refusals, open streams, analyses, database errors and retries. No token: it holds no personal data; it is
        read on the server itself (a client of another address, as the trusted proxies tell it, is answered 403,
        unless NJ_LEDGER_METRICS_FROM names it), and the reverse proxy answers 404 to it from outside."""
        readers: tuple[Network, ...] = current_app.extensions[READERS]
        if not within(request.remote_addr, readers):
            raise Problem(403, "forbidden", "The server's figures are read on the server itself (or from the "
                                            "addresses NJ_LEDGER_METRICS_FROM names).")
        body, content_type = exposition()
        return Response(body, 200, content_type=content_type, headers={"Cache-Control": "no-store"})
