"""The scoreboard workload: a club of 100,000 ended games, and how fast its scoreboard answers.

Filling: a pool of simulated games (one deal each, 3 to 5 players) is dealt out
to a roster of members, a hundred games a day, and stored with
:func:`nj_ledger.store.projections.bulk.bulk_load` — the rows an import of each
game would write (game, seats, chained records, scoreboard rows), a thousand
games per transaction. Recasting a pooled game for other players changes only
the names in ``game_started`` and in the ``game_ended`` standings, which is
what the engine itself would record (the tests check it).

Measuring: scoreboard requests through the Flask test client with a viewer
token, a mix of periods (all time, a season with odd edge days, the last month,
a rating sort with ``min_games``, CSV), p50 and p99 in milliseconds; then the
rate of ``rebuild`` (events of the club's logs per second).

    $ python -m benchmarks.scoreboard sqlite:///scoreboard.sqlite 100000
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from benchmarks.scratch import migrated_database, postgres_unreachable, postgres_url
from nj_ledger import new_game
from nj_ledger.events import Event
from nj_ledger.simulator import SimulatedGame, simulate
from nj_ledger.store import Store
from nj_ledger.store.migrate import upgrade
from nj_ledger.store.projections import rebuild
from nj_ledger.store.projections.bulk import BulkGame, bulk_load

from .results import percentile, row

FULL_GAMES = 100_000
QUICK_GAMES = 2_000
TARGET_P99_MS = 50.0
POOL = 400  # distinct simulated games, recast for other players
ROSTER = 40  # members of the club
GAMES_PER_DAY = 100
FIRST_DAY = date(2023, 1, 2)

Echo = Callable[[str], None]


def recast(game: SimulatedGame, names: Sequence[str]) -> list[Event]:
    """``game``'s log as the same table would have recorded it with ``names`` in its seats."""
    started = new_game(list(names), game.rules, game.starting_chips, game.events[0].data.get("dealer"))
    events = [started, *game.events[1:]]
    last = events[-1]
    if last.type == "game_ended":
        standings = [{**row, "name": names[row["seat"]]} for row in last.data["standings"]]
        events[-1] = Event(last.type, {**last.data, "standings": standings}, last.deal, last.v)
    return events


def roster(size: int = ROSTER) -> list[str]:
    """Members' names: "Member 01"…"""
    return [f"Member {number:02d}" for number in range(1, size + 1)]


def club_games(count: int, seed: int = 0, per_day: int = GAMES_PER_DAY) -> Iterator[BulkGame]:
    """``count`` ended games, ``per_day`` a day from :data:`FIRST_DAY`, each recorded a minute after the last."""
    rng = random.Random(seed)
    pool = [simulate(seed + number, "classic", players=3 + number % 3, deals=1) for number in range(min(POOL, count))]
    members = roster()
    for number in range(count):
        game = pool[rng.randrange(len(pool))]
        day = FIRST_DAY + timedelta(days=number // per_day)
        moment = datetime(day.year, day.month, day.day, 8, tzinfo=UTC) + timedelta(minutes=number % per_day)
        yield BulkGame(recast(game, rng.sample(members, len(game.players))), moment)


def fill(store: Store, club_id: str, games: int, *, seed: int = 0, echo: Echo | None = None) -> dict[str, Any]:
    """Store ``games`` simulated games in the club; how many events, and how long it took."""
    started = time.perf_counter()
    stored = events = 0
    step = 10_000
    chunk: list[BulkGame] = []

    def flush() -> None:
        nonlocal stored, events
        stored += bulk_load(store.games, club_id, chunk)
        events += sum(len(game.events) for game in chunk)
        if echo is not None:
            echo(f"  {stored:,} games, {events:,} events stored ({time.perf_counter() - started:,.0f} s)")
        chunk.clear()

    for game in club_games(games, seed):
        chunk.append(game)
        if len(chunk) == step:
            flush()
    if chunk:
        flush()
    return {"games": stored, "events": events, "seconds": time.perf_counter() - started}


@dataclass(frozen=True)
class Query:
    kind: str
    path: str


def queries(club_id: str, games: int, count: int, seed: int = 1) -> list[Query]:
    """A mix of scoreboard requests over the club's days."""
    rng = random.Random(seed)
    days = max(1, games // GAMES_PER_DAY)
    last = FIRST_DAY + timedelta(days=days - 1)
    base = f"/api/v1/clubs/{club_id}/scoreboard"
    found = []
    for _ in range(count):
        kind = rng.choice(("all time", "season", "last month", "rating sort", "csv"))
        if kind == "all time":
            path = base
        elif kind == "season":
            start = FIRST_DAY + timedelta(days=rng.randrange(days))
            path = f"{base}?from={start}&to={start + timedelta(days=rng.randrange(30, 365))}"
        elif kind == "last month":
            path = f"{base}?from={last - timedelta(days=30)}&to={last}"
        elif kind == "rating sort":
            path = f"{base}?sort=-rating&min_games={rng.randrange(1, 50)}"
        else:
            path = f"{base}?format=csv&sort=name"
        found.append(Query(kind, path))
    return found


def measure(store: Store, club_id: str, games: int, requests: int) -> dict[str, Any]:
    """Latencies of scoreboard requests (ms): p50 and p99 over all, and the p99 of each kind."""
    from api import create_app

    app = create_app({"DATABASE_URL": store.db.url, "STORE": store})
    client = app.test_client()
    token = store.tokens.create_token(club_id, "viewer", "scoreboard bench").secret
    headers = {"Authorization": f"Bearer {token}"}
    for query in queries(club_id, games, 10, seed=2):  # warm up: connections, statement caches
        client.get(query.path, headers=headers)
    samples: dict[str, list[float]] = {}
    rows = 0
    for query in queries(club_id, games, requests):
        started = time.perf_counter()
        answer = client.get(query.path, headers=headers)
        elapsed = (time.perf_counter() - started) * 1000
        assert answer.status_code == 200, answer.get_data(as_text=True)
        if query.kind == "all time":
            rows = len(answer.get_json()["rows"])
        samples.setdefault(query.kind, []).append(elapsed)
    everything = [ms for kind in samples.values() for ms in kind]
    return {"p50": percentile(everything, 50), "p99": percentile(everything, 99), "requests": len(everything),
            "players": rows, "p99_by_kind": {kind: round(percentile(ms, 99), 2) for kind, ms in samples.items()}}


def bench(url: str, games: int, *, requests: int = 500, echo: Echo | None = None) -> dict[str, Any]:
    """Fill a new club of the database at ``url`` (migrated here) with ``games`` games and measure it."""
    upgrade(url)
    store = Store(url)
    try:
        club, _ = store.clubs.create_club("Scoreboard bench")
        filled = fill(store, club.id, games, echo=echo)
        if echo is not None:
            echo(f"  measuring {requests} scoreboard requests")
        latency = measure(store, club.id, games, requests)
        if echo is not None:
            echo("  rebuilding the club's scoreboard tables")
        rebuilt = rebuild(store.db, club.id)
        return {"backend": store.db.dialect, "club": club.id, "fill": filled, "latency": latency,
                "rebuild": {"games": rebuilt.games, "events": rebuilt.events, "seconds": rebuilt.seconds,
                            "events_per_second": rebuilt.events_per_second}}
    finally:
        store.close()


def workload(quick: bool = False, server: str | None = None, echo: Echo | None = None) -> list[dict[str, Any]]:
    """The report's lines: scoreboard p99 and rebuild rate, on SQLite and on PostgreSQL."""
    games = QUICK_GAMES if quick else FULL_GAMES
    lines: list[dict[str, Any]] = []
    backends = [("SQLite", "sqlite")]
    reason = postgres_unreachable(server or postgres_url())
    if reason is None:
        backends.append(("PostgreSQL", "postgresql"))
    for label, backend in backends:
        with migrated_database(backend) as url:
            result = bench(url, games, requests=200 if quick else 500, echo=echo)
        latency, filled, rebuilt = result["latency"], result["fill"], result["rebuild"]
        note = (f"{games:,} games, {filled['events']:,} events filled in {filled['seconds']:,.0f} s; "
                f"p50 {latency['p50']:.1f} ms over {latency['requests']} requests; "
                f"p99 by kind {latency['p99_by_kind']}")
        lines.append(row(f"scoreboard p99 ({label}, {games:,} games)", "ms", latency["p99"],
                         at_most=TARGET_P99_MS, note=note))
        lines.append(row(f"scoreboard rebuild ({label})", "events/s", rebuilt["events_per_second"],
                         note=f"{rebuilt['games']:,} games in {rebuilt['seconds']:,.1f} s"))
    if reason is not None:
        lines.append({**row("scoreboard (PostgreSQL)", "ms", None), "note": reason})
    return lines


if __name__ == "__main__":  # python -m benchmarks.scoreboard URL GAMES
    target, count = sys.argv[1], int(sys.argv[2])
    print(bench(target, count, echo=print))
