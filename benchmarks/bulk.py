"""(a, b) Bulk import of simulated deals: the ledger's import against eventsourcing and the raw driver.

Ours: each game's document goes through :func:`~nj_ledger.store.documents.import_document`
(executed by the engine, hash-chained, one transaction per game). Peer: each
game's events saved as one aggregate with ``Application.save``. Raw: the very
rows our store wrote, inserted with ``sqlite3.executemany`` (SQLite) or
``COPY`` (PostgreSQL), one transaction per game.

Each line is the best of :data:`ROUNDS` rounds, the three contenders taking
turns, each round on fresh databases: on this machine one import moves by 15%
from one round to the next, and a process's first round also pays for its
caches (ours some 10%, the peer's less). The ratio of every round is kept in the
line's note.
"""

from __future__ import annotations

import gc
import secrets
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from benchmarks.scratch import postgres_unreachable, scratch_postgres
from nj_ledger.simulator import SimulatedGame
from nj_ledger.store import Store
from nj_ledger.store.documents import import_document
from nj_ledger.store.migrate import upgrade
from nj_ledger.store.rows import event_rows

from . import peer
from .data import document, plain
from .results import row, skipped

EVENTS_DDL = (
    "CREATE TABLE events (game_id VARCHAR(24) NOT NULL, seq INTEGER NOT NULL, deal INTEGER NOT NULL, "
    "type VARCHAR(24) NOT NULL, data {json} NOT NULL, v INTEGER NOT NULL, recorded_at VARCHAR(32) NOT NULL, "
    "hash VARCHAR(64) NOT NULL, CONSTRAINT pk_events PRIMARY KEY (game_id, seq), "
    "CONSTRAINT ck_events_seq_positive CHECK (seq >= 1))"
)
COPY = "COPY events FROM STDIN"
EVENTS_INDEX = "CREATE INDEX ix_events_deal_starts ON events (game_id, deal, seq) WHERE type = 'deal'"  # as the store's
Rows = list[list[tuple[Any, ...]]]
ROUNDS = 3


def _events_per_second(count: int, work: Callable[[], None]) -> float:
    """``count`` over the time ``work`` takes. What the harness holds (the simulated games, the documents and
    payloads made from them) is frozen out of the collector first: a full collection walks every object alive,
    and it would otherwise charge the workload it falls in with a walk through the harness's millions of
    objects (0.4 to 1.5 s of a 4 s import, ours or the peer's, as it happened)."""
    gc.collect()
    gc.freeze()
    try:
        started = time.perf_counter()
        work()
        return count / (time.perf_counter() - started)
    finally:
        gc.unfreeze()


def import_ours(url: str, games: list[SimulatedGame]) -> tuple[float, Rows]:
    """Events/s of importing every game's document into the store at ``url``, and the rows it wrote."""
    store = Store(url)
    try:
        club, _ = store.clubs.create_club("Bench")
        documents = [document(game) for game in games]
        count = sum(len(game.events) for game in games)

        imported: list[str] = []

        def work() -> None:
            for doc in documents:
                imported.append(import_document(store.games, club.id, doc).game.id)

        rate = _events_per_second(count, work)
        # the rows as the store wrote them (its records read back, their data written as the store writes it)
        rows = {game_id: event_rows(game_id, store.games.records(club.id, game_id)) for game_id in imported}
        if sum(map(len, rows.values())) != count:
            raise RuntimeError("the store did not keep every event")
        return rate, list(rows.values())
    finally:
        store.close()


def save_peer(app: Any, games: list[SimulatedGame]) -> float:
    """Events/s of saving every game as an eventsourcing aggregate (making its events included)."""
    payloads = [(game.events[0].data, list(plain(game.events[1:]))) for game in games]
    count = sum(len(game.events) for game in games)

    def work() -> None:
        for started, events in payloads:
            peer.save_game(app, started, events)

    return _events_per_second(count, work)


def insert_raw_sqlite(path: Path, rows: Rows) -> float:
    """Events/s of ``executemany`` of the same rows, a transaction per game, same pragmas as the store."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(EVENTS_DDL.format(json="JSON"))
        connection.execute(EVENTS_INDEX)
        insert = "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

        def work() -> None:
            for game in rows:
                connection.execute("BEGIN")
                connection.executemany(insert, game)
                connection.execute("COMMIT")

        return _events_per_second(sum(map(len, rows)), work)
    finally:
        connection.close()


def _best(name: str, rates: list[tuple[float, float, float]]) -> dict[str, Any]:
    """The line of the best rate of each contender over the rounds, every round's ratios in its note."""
    ours, theirs, raw = (max(column) for column in zip(*rates, strict=True))
    rounds = ", ".join(f"{o / p:.2f}× peer {o / r:.2f}× raw" for o, p, r in rates)
    return row(name, "events/s", ours, peer=theirs, raw=raw, min_peer=1.0, min_raw=0.3,
               note=f"best of {len(rates)} rounds taken in turns; each round: {rounds}")


def bulk_sqlite(games: list[SimulatedGame], rounds: int = ROUNDS) -> dict[str, Any]:
    count = sum(len(game.events) for game in games)
    deals = sum(game.state.deals_played for game in games if game.state is not None)
    rates: list[tuple[float, float, float]] = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="nj-bench-") as folder:
            url = f"sqlite:///{Path(folder) / 'ours.sqlite'}"
            upgrade(url)
            ours, rows = import_ours(url, games)
            theirs = save_peer(peer.sqlite_app(str(Path(folder) / "peer.sqlite")), games)
            raw = insert_raw_sqlite(Path(folder) / "raw.sqlite", rows)
        rates.append((ours, theirs, raw))
    return _best(f"bulk import, SQLite ({deals} deals, {count} events)", rates)


@contextmanager
def _scratch_schema(server: str) -> Iterator[str]:
    engine = create_engine(server)
    schema = f"njl_bench_{secrets.token_hex(6)}"
    try:
        with engine.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        yield schema
    finally:
        with engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


def insert_raw_postgres(server: str, schema: str, rows: Rows) -> float:
    """Events/s of ``COPY`` of the same rows, a transaction per game."""
    import psycopg

    conninfo = make_url(server).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, options=f"-csearch_path={schema}") as connection:
        connection.execute(EVENTS_DDL.format(json="JSON"))
        connection.execute(EVENTS_INDEX)
        connection.commit()

        def work() -> None:
            for game in rows:
                with connection.transaction(), connection.cursor() as cursor, cursor.copy(COPY) as copy:
                    for values in game:
                        copy.write_row(values)

        return _events_per_second(sum(map(len, rows)), work)


def bulk_postgres(games: list[SimulatedGame], server: str, rounds: int = ROUNDS) -> dict[str, Any]:
    name = "bulk import, PostgreSQL"
    unreachable = postgres_unreachable(server)
    if unreachable:
        return skipped(name, "events/s", unreachable)
    count = sum(len(game.events) for game in games)
    deals = sum(game.state.deals_played for game in games if game.state is not None)
    address = make_url(server)
    rates: list[tuple[float, float, float]] = []
    for _ in range(rounds):
        with scratch_postgres(server) as url:
            upgrade(url)
            ours, rows = import_ours(url, games)
        with _scratch_schema(server) as schema:
            app = peer.postgres_app(address.host or "127.0.0.1", address.port or 5432,
                                    address.database or "postgres", address.username or "postgres",
                                    address.password or "", schema)
            try:
                theirs = save_peer(app, games)
            finally:
                app.close()
        with _scratch_schema(server) as schema:
            raw = insert_raw_postgres(server, schema, rows)
        rates.append((ours, theirs, raw))
    return _best(f"{name} ({deals} deals, {count} events)", rates)
