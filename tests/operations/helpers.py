"""What the operations tests share: ``nj-ledger`` run as a command, a database filled, looked at and destroyed."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from benchmarks.scratch import postgres_url
from nj_ledger.simulator import simulate
from nj_ledger.store import Store, make_engine, recorder_for
from nj_ledger.store.sqlite import database_file

NJ_LEDGER = str(Path(sys.executable).with_name("nj-ledger"))  # the installed command, as an operator runs it


def nj_ledger(*arguments: str, expect: int = 0, env: dict[str, str] | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``nj-ledger ARGUMENTS`` in a process of its own, with this test's settings (or ``env``)."""
    done = subprocess.run([NJ_LEDGER, *arguments], capture_output=True, text=True, timeout=timeout, check=False,
                          env=dict(os.environ) if env is None else env)
    assert done.returncode == expect, (f"nj-ledger {' '.join(arguments)}: exit {done.returncode}, not {expect}\n"
                                       f"{done.stdout}\n{done.stderr}")
    return done


def invoked(*arguments: str, expect: int = 0) -> Result:
    """``nj-ledger ARGUMENTS`` in this process (click's runner): for the many refusals a test goes through. No
    store of this process may have the database open then (an SQLite restore looks for other processes' locks)."""
    from cli.commands import main

    done = CliRunner().invoke(main, list(arguments), catch_exceptions=False)
    assert done.exit_code == expect, f"nj-ledger {' '.join(arguments)}: exit {done.exit_code}\n{done.output}"
    return done


def schema_of(url: str) -> str:
    """The private schema of a scratch PostgreSQL URL (``options=-csearch_path=…``)."""
    options = make_url(url).query["options"]
    return str(options).split("=", 1)[1]


def destroy(url: str) -> None:
    """The disaster: the SQLite file and its log deleted, or the PostgreSQL schema dropped."""
    if recorder_for(url).embedded:
        path = database_file(url)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return
    engine = create_engine(postgres_url())
    try:
        with engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema_of(url)}" CASCADE'))
    finally:
        engine.dispose()


def fingerprint(url: str) -> dict[str, Any] | None:
    """What the database holds, to tell whether anything changed: the schema revision, every game's version and
    head, the counts of clubs, events and signing keys (None: there is no database)."""
    if recorder_for(url).embedded and not Path(str(database_file(url))).exists():
        return None
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            read = connection.execute
            return {"revision": read(text("SELECT version_num FROM alembic_version")).scalar(),
                    "games": {row[0]: (row[1], row[2]) for row in read(text(
                        "SELECT id, version, head_hash FROM games"))},
                    "clubs": read(text("SELECT count(*) FROM clubs")).scalar(),
                    "events": read(text("SELECT count(*) FROM events")).scalar(),
                    "keys": list(read(text("SELECT id FROM signing_keys ORDER BY number")).scalars())}
    except SQLAlchemyError:
        return None
    finally:
        engine.dispose()


@dataclass
class Filled:
    """A club with games: its id, a scorer token, and the receipts its writes answered, by game."""

    club: str
    token: str
    receipts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def fill(url: str, games: int, deals: int = 8, seed: int = 0, name: str = "Cercle de la sauvegarde") -> Filled:
    """A club with ``games`` simulated games, each stored in one write (as an import stores it)."""
    store = Store(url)
    try:
        club, token = store.clubs.create_club(name)
        filled = Filled(club.id, token.secret)
        for number in range(seed, seed + games):
            game = simulate(number, "classic", None, info="full", deals=deals)
            created = store.games.create_game(club.id, game.events[0], game.actions)
            assert created.receipt is not None
            filled.receipts[created.game.id] = [created.receipt]
        return filled
    finally:
        store.close()
