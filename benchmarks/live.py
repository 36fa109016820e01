"""(c) Live appends through HTTP: four clients, one table action per request, several games each.

The server is ``nj-ledger serve --workers N`` (granian) with a worker per core
(at most one per client), each running one request at a time (its default).
Each client thread has its own keep-alive connection and plays its games'
actions in turn (one action of one game, then one of the next game…), as
scorers at several tables would. The figures are the actions stored per
second over the whole run and each request's latency.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from nj_ledger.simulator import SimulatedGame

from .data import PROFILE
from .results import percentile, row
from .server import Client, new_club, serving

CLIENTS = 4
WORKERS = max(1, min(CLIENTS, os.cpu_count() or 1))  # `nj-ledger serve --workers`: one per core


def _play(port: int, token: str, games: list[tuple[str, list[dict[str, Any]]]], latencies: list[float],
          errors: list[str]) -> None:
    client = Client(port, token)
    try:
        queues = [(game_id, list(actions)) for game_id, actions in games]
        position = 0
        while any(actions for _, actions in queues):
            for game_id, actions in queues:
                if position >= len(actions):
                    continue
                started = time.perf_counter()
                status, body = client.fetch("POST", f"/api/v1/games/{game_id}/actions",
                                            {"actions": [actions[position]]})
                latencies.append(time.perf_counter() - started)
                if status != 201:
                    errors.append(f"{status}: {body.decode(errors='replace')}")
                    return
            position += 1
            queues = [(game_id, actions) for game_id, actions in queues if position < len(actions)]
    finally:
        client.close()


def live_appends(games: list[SimulatedGame]) -> list[dict[str, Any]]:
    """Rows for actions/s, p50 and p99 of appending ``games`` (split among the clients) on SQLite."""
    with tempfile.TemporaryDirectory(prefix="nj-bench-") as folder:
        url = f"sqlite:///{Path(folder) / 'live.sqlite'}"
        with serving(url, workers=WORKERS) as server:
            club, token = new_club(server)
            setup = Client(server.port, token)
            plans: list[list[tuple[str, list[dict[str, Any]]]]] = [[] for _ in range(CLIENTS)]
            for index, game in enumerate(games):
                status, body = setup.post(f"/api/v1/clubs/{club}/games", {
                    "players": game.players, "rules": PROFILE, "starting_chips": game.starting_chips,
                    "dealer": game.events[0].data["dealer"],
                })
                if status != 201:
                    raise RuntimeError(f"creating a game answered {status}: {body}")
                plans[index % CLIENTS].append((body["id"], game.actions))
            setup.close()
            latencies: list[list[float]] = [[] for _ in range(CLIENTS)]
            errors: list[str] = []
            threads = [threading.Thread(target=_play, args=(server.port, token, plans[k], latencies[k], errors))
                       for k in range(CLIENTS)]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            seconds = time.perf_counter() - started
    if errors:
        raise RuntimeError(f"a live append was refused: {errors[0]}")
    samples = [latency * 1000 for client in latencies for latency in client]
    label = f"{len(samples)} actions, {len(games)} games, {CLIENTS} clients, {WORKERS} server workers"
    return [
        row(f"live appends, HTTP, SQLite ({label})", "actions/s", len(samples) / seconds, at_least=1000),
        row("live appends, latency p50", "ms", percentile(samples, 50)),
        row("live appends, latency p99", "ms", percentile(samples, 99), at_most=25),
    ]
