"""(d) Replay: rebuilding a game from its stored log, and the replay endpoint on a large store.

Reducer: the store reads a game's records from a SQLite file and folds them
into its state (its state cache emptied first), against eventsourcing's
``repository.get`` of an aggregate with the same number of events from the
same kind of file. Endpoint: ``GET /games/{game}/deals/{n}/replay`` of random
deals through the real server, on the store the memory workload filled, timed
until the whole answer is read (the client's JSON parsing of its hundred-odd
states is not the server's latency); the game's first replay (which folds its
whole log once and keeps the state at each deal's start) is reported on its
own line.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from nj_ledger.simulator import SimulatedGame
from nj_ledger.store import Store
from nj_ledger.store.documents import import_document
from nj_ledger.store.migrate import upgrade

from . import peer
from .data import document, plain
from .results import percentile, row
from .server import Client, serving

ROUNDS = 3
FIRST_REPLAY_TIMEOUT = 1800.0  # the first replay of a game of a million events folds them all


def _best_rate(count: int, work: Any) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return count / best


def reducer(game: SimulatedGame) -> dict[str, Any]:
    count = len(game.events)
    with tempfile.TemporaryDirectory(prefix="nj-bench-") as folder:
        url = f"sqlite:///{Path(folder) / 'ours.sqlite'}"
        upgrade(url)
        store = Store(url)
        try:
            club, _ = store.clubs.create_club("Bench")
            game_id = import_document(store.games, club.id, document(game)).game.id

            def load() -> None:
                store.games.cache.clear()
                if store.games.game_state(club.id, game_id)[1].version != count:
                    raise RuntimeError("the replayed state is not at the game's version")

            ours = _best_rate(count, load)
        finally:
            store.close()
        app = peer.sqlite_app(str(Path(folder) / "peer.sqlite"))
        aggregate = peer.save_game(app, game.events[0].data, list(plain(game.events[1:])))

        def get() -> None:
            if app.repository.get(aggregate).events != count:
                raise RuntimeError("the peer's aggregate misses events")

        theirs = _best_rate(count, get)
        app.close()
    return row(f"replay: load a game's state from SQLite ({count} events)", "events/s", ours, peer=theirs,
               min_peer=2.0)


def endpoint(database_url: str, club_id: str, token: str, game_id: str, deals: int, requests: int,
             events: int, seed: int = 11) -> list[dict[str, Any]]:
    """p50 and p99 of replaying random deals of ``game_id`` through the server."""
    rng = random.Random(seed)
    samples: list[float] = []
    with serving(database_url) as server:
        client = Client(server.port, token, timeout=FIRST_REPLAY_TIMEOUT)
        try:
            started = time.perf_counter()
            status, body = client.get(f"/api/v1/games/{game_id}/deals/{deals}/replay")  # folds the log once
            first = (time.perf_counter() - started) * 1000
            if status != 200:
                raise RuntimeError(f"replay answered {status}: {body}")
            for _ in range(requests):
                number = rng.randint(1, deals)
                started = time.perf_counter()
                status, raw = client.fetch("GET", f"/api/v1/games/{game_id}/deals/{number}/replay")
                samples.append((time.perf_counter() - started) * 1000)
                if status != 200 or json.loads(raw)["deal"] != number:
                    raise RuntimeError(f"replay of deal {number} answered {status}")
        finally:
            client.close()
    label = f"{requests} random deals of {deals}, store of {events} events"
    return [
        row(f"replay endpoint p50 ({label})", "ms", percentile(samples, 50)),
        row("replay endpoint p99", "ms", percentile(samples, 99), at_most=10),
        row("replay endpoint, the game's first replay (folds its log once)", "ms", first),
    ]
