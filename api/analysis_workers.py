"""Where a server's deal analyses run: processes of their own, a bounded queue, and a limit per club.

An analysis is seconds of CPU (docs/ANALYSIS.md). Run in a thread of the server, it held the interpreter lock
the requests beside it needed: sixteen asked through one share link took the scorers' appends' p99 from 38 to
135 ms, and they queued without bound. So, in each process of the server:

- **Processes.** Each analysis runs in one of ``NJ_LEDGER_ANALYSIS_PROCESSES`` processes (default 1), started
  when the first analysis is asked and kept (:mod:`nj_ledger.analysis_worker`: niced, its memory and each
  analysis's CPU time limited, ended with the server). A thread of the server per process hands it one
  analysis at a time and waits for its answer without holding the lock; the answer is kept in the store from
  that thread.
- **A bounded queue.** At most ``NJ_LEDGER_ANALYSIS_QUEUE`` analyses (default 8) wait for a process; past
  them, 503 ``analyses-busy`` with ``Retry-After``.
- **A limit per club.** A club (its tokens, its share links and its tables' tokens alike) has at most
  ``NJ_LEDGER_ANALYSIS_PER_CLUB`` analyses (default 2) waiting or running; past them, 429
  ``too-many-analyses`` with ``Retry-After``. Asking again for an analysis already waiting or running costs
  nothing and is answered 202 as before.
- **Limits of the process.** ``NJ_LEDGER_ANALYSIS_MEMORY`` megabytes of address space (default 1,024: the
  default budget's searches take some 350 MB) and ``NJ_LEDGER_ANALYSIS_SECONDS`` of CPU an analysis (default
  60, far past what the budget lets one take); past either, the analysis is answered ``failed`` (logged, tried
  again when the server restarts) and a fresh process takes the next.

Each setting is read from the app's configuration (the tests), else from the environment, else its default.
The limits hold per process of the server: ``--workers N`` has N times as many.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from flask import current_app

from nj_ledger.analysis_worker import DONE, MEMORY, Limits, serve
from nj_ledger.deal_analysis import DEFAULT_LIMIT
from nj_ledger.events import Event
from nj_ledger.state import GameState
from nj_ledger.store import Store

from . import metrics
from .problems import Problem

LOG = logging.getLogger(__name__)
# Each setting: its default, and the least it may be.
SETTINGS = {"NJ_LEDGER_ANALYSIS_PROCESSES": (1, 1), "NJ_LEDGER_ANALYSIS_QUEUE": (8, 0),
            "NJ_LEDGER_ANALYSIS_PER_CLUB": (2, 0), "NJ_LEDGER_ANALYSIS_SECONDS": (60, 0.1),
            "NJ_LEDGER_ANALYSIS_MEMORY": (1024, 64), "NJ_LEDGER_ANALYSIS_LIMIT": (DEFAULT_LIMIT, 1)}
BUSY_RETRY = 10  # seconds a client refused for the queue or its club's limit waits before asking again
NO_ANSWER = 4  # an analysis's process that has not answered within this many times its CPU limit is ended

Key = tuple[str, int, int, str]  # game, deal, the deal's last event's seq and hash


def setting(name: str, config: Mapping[str, Any] | None = None) -> float:
    """Setting ``name`` (:data:`SETTINGS`) from the app's configuration (``config``, else the current app's), else
    the environment, else its default. ValueError for a value that is not a number, or too small."""
    default, least = SETTINGS[name]
    value = (current_app.config if config is None else config).get(name)
    if value is None:
        value = os.environ.get(name) or default
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not number >= least:
        raise ValueError(f"{name} must be a number, {least} or more, not {value!r}")
    return number


@dataclass
class Job:
    """One analysis to compute: the deal as it stood (its start, its events), the budget, and where to keep it."""

    key: Key
    club: str
    store: Store
    start: GameState
    events: list[tuple[int, Event]]
    limit: int


class Worker:
    """One analysis process, started when first needed and again after it ended."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.process: BaseProcess | None = None
        self.connection: Connection | None = None

    def analyse(self, job: Job) -> tuple[str, Any]:
        """``(DONE, analysis)``, or ``(FAILED or MEMORY, why)``."""
        if self.process is None or self.connection is None or not self.process.is_alive():
            self._start()
        assert self.connection is not None
        try:
            self.connection.send((job.start, job.events, job.limit))
            if not self.connection.poll(NO_ANSWER * self.limits.seconds):
                return "failed", f"no answer within {NO_ANSWER * self.limits.seconds:.0f} s: ended ({self.stop()})"
            answer: tuple[str, Any] = self.connection.recv()
        except (EOFError, OSError):
            return "failed", f"its process ended ({self.stop()})"
        if answer[0] == MEMORY:
            self.stop()
        return answer

    def _start(self) -> None:
        self.stop()
        context = multiprocessing.get_context("spawn")  # never a fork of a server's threads and connections
        ours, theirs = context.Pipe()
        process = context.Process(target=serve, args=(theirs, self.limits), name="nj-ledger-analysis", daemon=True)
        process.start()
        theirs.close()
        self.process, self.connection = process, ours

    def stop(self) -> str:
        """End the process (if it has not ended); how it ended."""
        process, connection = self.process, self.connection
        self.process = self.connection = None
        if connection is not None:
            connection.close()
        if process is None:
            return "not started"
        process.join(1)
        if process.exitcode is None:
            process.kill()
            process.join()
        code = process.exitcode
        process.close()
        if code is not None and code < 0:
            return f"signal {-code}" + (" (past its CPU time)" if -code == getattr(signal, "SIGXCPU", None) else "")
        return f"exit code {code}"

    def kill(self) -> None:
        """End the process at once, from another thread than the one it answers (which then sees it ended)."""
        process = self.process
        try:
            if process is not None and process.pid is not None:
                os.kill(process.pid, signal.SIGKILL)
        except (ProcessLookupError, ValueError):  # ended already (ValueError: and closed by its own thread)
            pass


class Analyses:
    """The analyses of this process of the server: those waiting and running (by key and by club), those that
    failed (not tried again until the server restarts: each request then answers ``failed``, never a 202
    loop), and the processes that compute them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready = threading.Condition(self.lock)
        self.waiting: deque[Job] = deque()
        self.asked: set[Key] = set()  # waiting or running
        self.failed: set[Key] = set()
        self.clubs: Counter[str] = Counter()
        self.workers: list[Worker] = []
        self.closed = False

    def start(self, job: Job) -> bool:
        """Queue ``job`` unless it waits or runs already; False: it failed before. Past the queue or the club's
        limit, a :class:`~api.problems.Problem` (503, 429)."""
        with self.lock:
            if job.key in self.failed:
                return False
            if job.key in self.asked:
                return True
            if self.clubs[job.club] >= setting("NJ_LEDGER_ANALYSIS_PER_CLUB"):
                raise Problem(429, "too-many-analyses", "This club has {count} analyses waiting or being computed "
                              "already: ask again in {seconds} seconds.",
                              params={"count": self.clubs[job.club], "seconds": BUSY_RETRY},
                              headers={"Retry-After": str(BUSY_RETRY)})
            if len(self.waiting) >= setting("NJ_LEDGER_ANALYSIS_QUEUE"):
                raise Problem(503, "analyses-busy", "The server has as many analyses waiting as it takes: ask "
                              "again in {seconds} seconds.", params={"seconds": BUSY_RETRY},
                              headers={"Retry-After": str(BUSY_RETRY)})
            self.asked.add(job.key)
            self.clubs[job.club] += 1
            self.waiting.append(job)
            metrics.analysis_queued()
            wanted = int(setting("NJ_LEDGER_ANALYSIS_PROCESSES"))
            while len(self.workers) < wanted:
                self._add_worker()
            self.ready.notify()
        return True

    def _add_worker(self) -> None:
        limits = Limits(int(setting("NJ_LEDGER_ANALYSIS_MEMORY") * 2**20), setting("NJ_LEDGER_ANALYSIS_SECONDS"))
        worker = Worker(limits)
        self.workers.append(worker)
        # A daemon thread: a server that stops does not wait for an analysis (its process ends with the server).
        threading.Thread(target=self._serve, args=(worker,), name="deal-analysis", daemon=True).start()

    def _serve(self, worker: Worker) -> None:
        while True:
            with self.ready:
                while not self.waiting and not self.closed:
                    self.ready.wait()
                if self.closed:
                    worker.stop()
                    return
                job = self.waiting.popleft()
            metrics.analysis_started()
            try:
                self._run(worker, job)
            finally:
                with self.lock:
                    self.asked.discard(job.key)
                    self.clubs[job.club] -= 1
                    if not self.clubs[job.club]:
                        del self.clubs[job.club]
                metrics.analysis_ended()

    def _run(self, worker: Worker, job: Job) -> None:
        game, deal, seq, digest = job.key
        try:
            outcome, body = worker.analyse(job)
            if outcome == DONE:
                job.store.analyses.keep_deal_analysis(game, deal, seq, digest, body)
                return
            LOG.error("the analysis of deal %s of game %s failed: %s", deal, game, body)
        except Exception:
            LOG.exception("the analysis of deal %s of game %s failed", deal, game)
        with self.lock:
            self.failed.add(job.key)

    def close(self) -> None:
        """End the analysis processes and the threads that serve them (an app that is done with: the tests)."""
        with self.lock:
            self.closed = True
            self.ready.notify_all()
            workers = list(self.workers)
        for worker in workers:
            worker.kill()


__all__ = ["SETTINGS", "Analyses", "Job", "Worker", "setting"]
