"""(g) The longest replay the bounds allow, alone and sixteen at once, and what it costs the other requests.

One deal at the bound (``nj_ledger.bounds.MAX_DEAL_EVENTS``): eight players with
their hands dealt (the largest states to show), then a card laid and withdrawn
again and again until the next pair would pass the bound, as a replay bomb is
built. Through the real server (``nj-ledger serve``, one process): the answer's
size and the time to make it (and to answer it again, kept); then 16 clients
each replaying such deals nobody asked for before, at once, while a seventeenth
reads a game's state every 20 ms, whose latencies are compared with the same
reads on an idle server; the server's peak memory (its ``VmHWM``) is read when
the replays end.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from nj_ledger import new_game
from nj_ledger.bounds import MAX_DEAL_EVENTS
from nj_ledger.cards import DECK
from nj_ledger.errors import RuleViolation
from nj_ledger.store import Store
from nj_ledger.store.migrate import upgrade

from .results import percentile, row
from .server import Client, serving

PLAYERS = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo"]
CONCURRENT = 16
PROBE_EVERY = 0.02  # seconds between two reads of the probe client


def bomb_actions(pairs: int) -> list[dict[str, Any]]:
    """A deal of eight dealt hands, then ``pairs`` times the same card laid and withdrawn."""
    cards = [str(card) for card in DECK]
    hands = [cards[seat * 6:(seat + 1) * 6] for seat in range(8)]
    pair: list[dict[str, Any]] = [{"type": "play", "seat": 0, "cards": [hands[0][0]]},
                                  {"type": "undo", "reason": "again"}]
    return [{"type": "deal", "hands": hands}, *(pair * pairs)]


def longest_deal(store: Store, club: str) -> tuple[str, int]:
    """A game whose deal 1 is as long as the bounds allow: its id and its number of events."""
    pairs = MAX_DEAL_EVENTS // 2
    while True:
        try:
            created = store.games.create_game(club, new_game(PLAYERS, "classic", 100), bomb_actions(pairs))
            return created.game.id, created.game.version
        except RuleViolation:  # past the bound: one pair fewer
            pairs -= 1


def _peak_rss_mb(pid: int) -> float:
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc: peak memory unknown")


def _probe(port: int, token: str, path: str, stop: threading.Event, samples: list[float]) -> None:
    client = Client(port, token)
    try:
        while not stop.is_set():
            started = time.perf_counter()
            status, _ = client.fetch("GET", path)
            samples.append((time.perf_counter() - started) * 1000)
            if status != 200:
                raise RuntimeError(f"the probe's read answered {status}")
            time.sleep(PROBE_EVERY)
    finally:
        client.close()


def workload(quick: bool) -> list[dict[str, Any]]:
    rounds = 1 if quick else 3
    with tempfile.TemporaryDirectory(prefix="nj-bench-") as folder:
        url = f"sqlite:///{Path(folder) / 'longest.sqlite'}"
        upgrade(url)
        store = Store(url)
        try:
            club, token = store.clubs.create_club("Bench")
            made = [longest_deal(store, club.id) for _ in range(CONCURRENT * rounds + 3)]
        finally:
            store.close()
        games = [game for game, _ in made]
        events = made[0][1]
        with serving(url) as server:
            client = Client(server.port, token.secret)
            try:
                alone: list[float] = []
                for game in games[-3:]:  # each made anew: nobody asked for it before
                    started = time.perf_counter()
                    status, body = client.fetch("GET", f"/api/v1/games/{game}/deals/1/replay")
                    alone.append((time.perf_counter() - started) * 1000)
                    if status != 200:
                        raise RuntimeError(f"the replay answered {status}")
                size = len(body)
                started = time.perf_counter()
                client.fetch("GET", f"/api/v1/games/{games[-1]}/deals/1/replay")
                again = (time.perf_counter() - started) * 1000
                state = f"/api/v1/games/{games[-1]}"
                idle: list[float] = []
                for _ in range(50):
                    started = time.perf_counter()
                    client.fetch("GET", state)
                    idle.append((time.perf_counter() - started) * 1000)
            finally:
                client.close()

            stop = threading.Event()
            probed: list[float] = []
            probe = threading.Thread(target=_probe, args=(server.port, token.secret, state, stop, probed))
            failures: list[str] = []
            spans: list[float] = []

            def replayer(mine: list[str]) -> None:
                each = Client(server.port, token.secret)
                try:
                    for game in mine:
                        started = time.perf_counter()
                        status, _ = each.fetch("GET", f"/api/v1/games/{game}/deals/1/replay")
                        spans.append((time.perf_counter() - started) * 1000)
                        if status != 200:
                            failures.append(str(status))
                finally:
                    each.close()

            replayers = [threading.Thread(target=replayer, args=(games[n:CONCURRENT * rounds:CONCURRENT],))
                         for n in range(CONCURRENT)]
            probe.start()
            started = time.perf_counter()
            for thread in replayers:
                thread.start()
            for thread in replayers:
                thread.join()
            wall = time.perf_counter() - started
            stop.set()
            probe.join()
            peak = _peak_rss_mb(server.pid)
        if failures:
            raise RuntimeError(f"concurrent replays answered {failures[:3]}")
    label = f"{events - 1} events in the deal, 8 players"
    return [
        row(f"longest replay: answer size ({label})", "MB", size / 1e6, at_most=10,
            note=f"a deal holds at most {MAX_DEAL_EVENTS} events"),
        row("longest replay: time, made (median of 3)", "ms", statistics.median(alone),
            note=f"asked again, it is kept: {again:.1f} ms"),
        row(f"longest replay: {CONCURRENT} different at once, each (p99)", "ms", percentile(spans, 99),
            note=f"{CONCURRENT} clients x {rounds} replays of deals nobody asked for before, in {wall:.1f} s, "
                 "`nj-ledger serve`"),
        row(f"longest replay: server peak RSS, {CONCURRENT} at once", "MB", peak, at_most=250),
        row("longest replay: another client's read while they run (p99)", "ms", percentile(probed, 99),
            note=f"the same read on the idle server: p99 {percentile(idle, 99):.1f} ms; {len(probed)} reads "
                 "during the replays"),
    ]
