"""Clients that append to one game as fast as they can, in a thread or in a process of their own.

A process builds its own app and store on the database URL, as a second
server process would: only the database keeps the writers apart.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask

from nj_ledger.store.checkpoints import CHECKPOINT_KEY_ENV
from support.apps import serving

from .helpers import CHECKPOINT_KEY, adjust, alternating_adjust


@dataclass
class Outcome:
    """What one client saw: the seqs of each batch it appended, its conflicts, and anything else."""

    appended: list[list[int]] = field(default_factory=list)
    conflicts: int = 0
    others: list[tuple[int, Any]] = field(default_factory=list)


def append_many(app: Flask, token: str, game: str, attempts: int, if_match: bool, start: Any) -> Outcome:
    """``attempts`` appends of one adjustment each, with ``If-Match`` (the version last seen) or without."""
    client = app.test_client()
    outcome = Outcome()
    known = 1
    start.wait()
    for attempt in range(attempts):
        headers = {"Authorization": f"Bearer {token}"}
        if if_match:
            headers["If-Match"] = f'"{known}"'
            action = adjust(known)
        else:
            action = alternating_adjust(attempt)
        answer = client.post(f"/api/v1/games/{game}/actions", json={"actions": [action]}, headers=headers)
        body = answer.get_json()
        if answer.status_code == 201:
            outcome.appended.append([event["seq"] for event in body["events"]])
            known = body["state"]["version"]
        elif answer.status_code == 409 and body.get("code") == "version-conflict":
            outcome.conflicts += 1
            known = body["current_version"]
        else:
            outcome.others.append((answer.status_code, body))
    return outcome


def prepare_process() -> None:
    """A pool process's start: the tests' checkpoint key, and the app's modules imported before any race."""
    import api  # noqa: F401

    os.environ[CHECKPOINT_KEY_ENV] = CHECKPOINT_KEY


def process_client(url: str, token: str, game: str, attempts: int, if_match: bool, start: Any) -> Outcome:
    """The body of a client process: its own app and store, then :func:`append_many`."""
    with serving(url) as app:
        return append_many(app, token, game, attempts, if_match, start)


def in_threads(app: Flask, token: str, game: str, clients: int, attempts: int, if_match: bool) -> list[Outcome]:
    start = threading.Barrier(clients)
    outcomes: list[Outcome | BaseException] = []

    def client() -> None:
        try:
            outcomes.append(append_many(app, token, game, attempts, if_match, start))
        except BaseException as error:  # noqa: BLE001 - reported below
            outcomes.append(error)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    if failures:
        raise failures[0]
    return [outcome for outcome in outcomes if isinstance(outcome, Outcome)]


class ProcessClients:
    """Client processes, spawned once (nothing shared but the database) and used by many races.

    The pool grows to the largest race asked for: spawning a process and
    importing the app takes seconds, so the default suite's small races never
    pay for the slow suite's eight.
    """

    def __init__(self) -> None:
        self.context = multiprocessing.get_context("spawn")
        self.manager: Any = None
        self.pool: Any = None
        self.size = 0

    def race(self, url: str, token: str, game: str, clients: int, attempts: int, if_match: bool) -> list[Outcome]:
        if clients > self.size:
            self.close()
            self.manager = self.context.Manager()
            self.pool = self.context.Pool(clients, initializer=prepare_process)
            self.size = clients
        start = self.manager.Barrier(clients)
        pending = [self.pool.apply_async(process_client, (url, token, game, attempts, if_match, start))
                   for _ in range(clients)]
        return [result.get(timeout=900) for result in pending]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()  # every race has been collected: nothing is left to finish
            self.pool.join()
            self.manager.shutdown()
        self.pool = self.manager = None
        self.size = 0
