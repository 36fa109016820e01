"""What the reliability tests share: legal actions that can be repeated, a store check, and a served ledger.

Importable by child processes too (``reliability.helpers``), which is why the
fixtures live in ``conftest.py`` and the plain functions here.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from sqlalchemy import func, select

from api.views import state_view
from nj_ledger.reducer import replay
from nj_ledger.store import Store
from nj_ledger.store.checkpoints import Checkpoint, audit_game
from nj_ledger.store.log import event_of
from nj_ledger.store.models import EventRecord, Game
from support.http import ADMIN_TOKEN, answers

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINT_KEY = "checkpoint-key-for-the-reliability-tests"


def adjust(version: int) -> dict[str, Any]:
    """An adjustment that is legal at ``version`` of a game made only of adjustments (60 chips each).

    Each adjustment appends two events (the adjustment and its transfer), so the
    game is at an odd version; odd steps give the chip back, so seat 0 never
    holds fewer than 59 chips.
    """
    step = (version - 1) // 2
    source, target = ("seat:0", "seat:1") if step % 2 == 0 else ("seat:1", "seat:0")
    return {"type": "adjust", "from": source, "to": target, "amount": 1, "reason": f"step {step}"}


def alternating_adjust(attempt: int) -> dict[str, Any]:
    """A client's own back-and-forth: its chip goes out on even attempts and comes back on odd ones."""
    source, target = ("seat:0", "seat:1") if attempt % 2 == 0 else ("seat:1", "seat:0")
    return {"type": "adjust", "from": source, "to": target, "amount": 1}


def replayed_view(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The game state a replay of these records gives (without ``id`` and ``club``)."""
    return state_view(replay(event_of(record) for record in events))


@dataclass
class StoreCheck:
    """What :func:`check_store` looked at."""

    versions: dict[str, int] = field(default_factory=dict)
    events: int = 0
    checkpoints: int = 0
    audited: int = 0


def check_store(url: str, known: Mapping[str, int] | None = None) -> StoreCheck:
    """Everything a crash or a race must leave intact, for every game of the database at ``url``.

    SQLite's own integrity and foreign-key checks; per game: seqs 1…version
    with no gap and nothing past the version, the head hash, the summary columns
    as a replay gives them, no checkpoint past the log, and a clean audit (the
    chain, conservation, the signed checkpoints, and a re-computation that ends
    on a whole table action). Games whose version is in ``known`` were checked
    before and are only counted.
    """
    store = Store(url)
    check = StoreCheck()
    try:
        with store.db.reading() as session:
            if store.db.dialect == "sqlite":
                assert session.connection().exec_driver_sql("PRAGMA integrity_check").scalars().all() == ["ok"]
                assert session.connection().exec_driver_sql("PRAGMA foreign_key_check").all() == []
            games = session.execute(select(Game.id, Game.club_id, Game.version, Game.head_hash, Game.status,
                                           Game.deals_played)).all()
            rows = dict(session.execute(
                select(EventRecord.game_id, func.count()).group_by(EventRecord.game_id)).all())
            last_checkpoint = dict(session.execute(
                select(Checkpoint.game_id, func.max(Checkpoint.seq)).group_by(Checkpoint.game_id)).all())
            check.checkpoints = session.scalar(select(func.count()).select_from(Checkpoint)) or 0
        assert set(rows) <= {game.id for game in games}, "events of a game that does not exist"
        for game_id, club_id, version, head_hash, status, deals_played in games:
            check.versions[game_id] = version
            check.events += rows.get(game_id, 0)
            assert rows.get(game_id, 0) == version, (game_id, rows.get(game_id), version)
            assert last_checkpoint.get(game_id, 0) <= version
            if known is not None and known.get(game_id) == version:
                continue
            records = store.games.records(club_id, game_id)
            assert [r["seq"] for r in records] == list(range(1, version + 1))
            assert records[-1]["hash"] == head_hash
            state = replay(event_of(record) for record in records)
            assert (state.version, state.status, state.deals_played) == (version, status, deals_played)
            report = audit_game(store.keys, club_id, game_id)
            assert report["ok"], (game_id, report["findings"][:5])
            assert report["checkpoints"]["count"] >= 1
            check.audited += 1
    finally:
        store.close()
    return check


# --- a real server in a process of its own ------------------------------------------------------
def environment(url: str) -> dict[str, str]:
    """The environment of a child process working on the database at ``url``."""
    return {**os.environ, "NJ_LEDGER_DATABASE_URL": url, "NJ_LEDGER_CHECKPOINT_KEY": CHECKPOINT_KEY,
            "NJ_LEDGER_ADMIN_TOKEN": ADMIN_TOKEN, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(url: str, folder: Path, log: IO[bytes], workers: int = 1) -> tuple[subprocess.Popen[bytes], int]:
    """``nj-ledger serve`` (waitress; granian with several workers) on a free port of 127.0.0.1, once it
    answers; its output goes to ``log``."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "cli", "serve", "--host", "127.0.0.1", "--port", str(port), "--threads", "4",
         "--workers", str(workers)],
        env=environment(url), cwd=folder, stdout=log, stderr=subprocess.STDOUT,
    )
    started = time.monotonic()
    while not answers(port):
        if server.poll() is not None or time.monotonic() - started > 60:
            server.kill()
            raise RuntimeError(f"the server did not start (see {log.name})")
        time.sleep(0.05)
    return server, port


