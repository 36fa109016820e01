"""Processes killed with SIGKILL in the middle of their writes leave a consistent store.

Three writers are killed at random points, again and again on one database:
``nj-ledger import`` of a large game document (killed at a random one of its
calls to the database, the transaction open), ``nj-ledger simulate`` (killed
at a random moment while it stores games batch after batch), and the HTTP
server taking live appends from clients (killed at a random moment under
load). After every kill the whole store is checked: SQLite's integrity check,
every game's chain, checkpoints and audit, ``games.version`` equal to the last
seq, and no partial batch: every game's log ends where one of its batches ended
(an import is all or nothing). The next round writes to the same database,
which shows it still takes writes.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from nj_ledger.decide import execute
from nj_ledger.reducer import replay
from nj_ledger.simulator import SimulatedGame, simulate
from nj_ledger.store import Store
from nj_ledger.store.models import Game
from support.http import Calls, HttpClient

from .helpers import check_store, environment, start_server

SIMULATED_DEALS = 4
LIVE_GAMES = 4


def boundaries(game: SimulatedGame) -> list[int]:
    """The version after each of a simulated game's batches (1: the game just created)."""
    state = replay(game.events[:1])
    ends = [1]
    for batch in game.batches:
        state, events = execute(state, batch)
        ends.append(ends[-1] + len(events))
    assert ends[-1] == len(game.events)
    return ends


def stored_log(store: Store, club: str, game: str) -> list[tuple[str, int, Any]]:
    return [(r["type"], r["deal"], r["data"]) for r in store.games.records(club, game)]


def simulated_log(game: SimulatedGame) -> list[tuple[str, int, Any]]:
    return [(e.type, e.deal, json.loads(json.dumps(e.data))) for e in game.events]


def games_of(store: Store, club: str) -> list[tuple[str, int]]:
    """A club's games in the order they were created, with their versions."""
    with store.db.reading() as session:
        return [(row.id, row.version) for row in session.execute(
            select(Game.id, Game.version).where(Game.club_id == club).order_by(Game.created_at, Game.id))]


@dataclass
class Rounds:
    """One database, killed writers one after the other, and what the checks have seen so far."""

    url: str
    folder: Path
    rng: random.Random
    store: Store
    known: dict[str, int] = field(default_factory=dict)
    kills: int = 0

    def club(self, name: str) -> tuple[str, str]:
        club, token = self.store.clubs.create_club(name)
        return club.id, token.secret

    def killed(self, process: subprocess.Popen[bytes] | subprocess.CompletedProcess[bytes]) -> None:
        assert process.returncode == -signal.SIGKILL, (process.returncode, self.rng)
        self.kills += 1
        self.known = check_store(self.url, self.known).versions

    def child(self, *arguments: str) -> subprocess.Popen[bytes]:
        """A ``python -m …`` process on this database; what it prints goes to ``output.log``."""
        with (self.folder / "output.log").open("ab") as log:
            return subprocess.Popen([sys.executable, "-m", *arguments], env=environment(self.url), cwd=self.folder,
                                    stdout=log, stderr=subprocess.STDOUT)

    def output(self) -> str:
        return (self.folder / "output.log").read_text(errors="replace")[-3000:]


@pytest.fixture
def rounds(fresh_url: str, tmp_path: Path) -> Iterator[Rounds]:
    seed = int.from_bytes(os.urandom(4), "big")
    store = Store(fresh_url)
    try:
        yield Rounds(fresh_url, tmp_path, random.Random(seed), store)
    finally:
        store.close()
    print(f"random seed of the kills: {seed}")


# --- nj-ledger import, killed at a random call to the database --------------------------------------
@pytest.fixture(scope="session")
def big_document(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SimulatedGame]:
    game = simulate(seed=404, players=4, deals=40, starting_chips=3000)
    document = {"format": "nj-ledger/game", "version": 1, "title": "Une longue soirée", "players": game.players,
                "rules": "classic", "starting_chips": game.starting_chips, "actions": game.actions}
    path = tmp_path_factory.mktemp("documents") / "long-game.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path, game


def kill_imports(rounds: Rounds, document: Path, game: SimulatedGame, kills: int) -> None:
    club, _ = rounds.club("Les Importés")
    command = ["reliability.crashing", "{kill_at}", "--", "import", str(document), "--club", club]
    rounds.store.keys.signer()  # the signing key taken into use first: the calibration's count is every run's
    # Calibrated twice: the first import also makes the players club members, which every later run finds made
    # (fewer calls); the second count is every killed run's.
    for _ in range(2):
        calibration = subprocess.run([sys.executable, "-m", *(a.format(kill_at=0) for a in command)],
                                     env=environment(rounds.url), cwd=rounds.folder, capture_output=True,
                                     timeout=300, check=False)
        assert calibration.returncode == 0, calibration.stderr.decode()
    calls = int(calibration.stderr.decode().rsplit("database calls:", 1)[1])
    for _ in range(kills):
        kill_at = rounds.rng.randint(1, calls)
        process = subprocess.run([sys.executable, "-m", *(a.format(kill_at=kill_at) for a in command)],
                                 env=environment(rounds.url), cwd=rounds.folder, capture_output=True, timeout=300,
                                 check=False)
        rounds.killed(process)
    expected = simulated_log(game)
    imported = games_of(rounds.store, club)
    assert imported and all(version == len(expected) for _, version in imported), "a partial import"
    assert all(stored_log(rounds.store, club, game_id) == expected for game_id, _ in imported[:2])


def test_a_killed_import_leaves_a_consistent_store(rounds, big_document) -> None:
    kill_imports(rounds, *big_document, 1)


# --- nj-ledger simulate, killed at a random moment ------------------------------------------------
def kill_simulations(rounds: Rounds, kills: int) -> None:
    for number in range(kills):
        club, _ = rounds.club(f"Simulations {number}")
        seed = rounds.rng.randrange(10**6)
        process = rounds.child("cli", "simulate", "--games", "100000", "--seed", str(seed),
                               "--deals", str(SIMULATED_DEALS), "--club", club)
        started = time.monotonic()
        while not games_of(rounds.store, club):  # it has started writing
            assert process.poll() is None and time.monotonic() - started < 60, rounds.output()
            time.sleep(0.05)
        time.sleep(rounds.rng.uniform(0.0, 1.5))
        process.kill()
        process.wait()
        rounds.killed(process)
        stored = games_of(rounds.store, club)
        for position, (game_id, version) in enumerate(stored):
            game = simulate(seed + position, "classic", None, info="full", deals=SIMULATED_DEALS)
            ends = boundaries(game)
            assert version in ends, f"game {position} ends inside a batch, at {version}"
            if position < len(stored) - 1:
                assert version == ends[-1]  # only the game being written when the kill came is unfinished
            assert stored_log(rounds.store, club, game_id) == simulated_log(game)[:version]


def test_a_killed_simulation_leaves_a_consistent_store(rounds) -> None:
    kill_simulations(rounds, 1)


# --- the HTTP server, killed under live appends ---------------------------------------------------
@dataclass
class LiveGame:
    id: str
    simulated: SimulatedGame
    ends: list[int]
    version: int = 1
    acked: int = 1


def serve(rounds: Rounds) -> tuple[subprocess.Popen[bytes], int]:
    with (rounds.folder / "output.log").open("ab") as log:
        return start_server(rounds.url, rounds.folder, log)


def play_on(port: int, token: str, game: LiveGame, stop: threading.Event) -> None:
    """Send the game's next batches until the server goes away (or the game is over)."""
    batch = game.ends.index(game.version)
    calls = Calls(HttpClient(port, fresh=True, timeout=30))
    while batch < len(game.simulated.batches) and not stop.is_set():
        try:
            answer = calls.post(f"/api/v1/games/{game.id}/actions", {"actions": game.simulated.batches[batch]},
                                token=token, headers={"If-Match": f'"{game.version}"'})
        except (OSError, http.client.HTTPException):  # the server went away, mid-answer or before it
            return
        if not 200 <= answer.status_code < 300:  # refused: this client stops, as when the server goes away
            return
        game.version = game.acked = answer.json["state"]["version"]
        batch += 1


def kill_server(rounds: Rounds, kills: int) -> None:
    club, token = rounds.club("Au Café du Port")
    games: list[LiveGame] = []
    server, port = serve(rounds)
    for number in range(LIVE_GAMES):
        simulated = simulate(seed=900 + number, players=3 + number % 3, deals=60, starting_chips=5000)
        created = Calls(HttpClient(port, timeout=30)).read(
            "POST", f"/api/v1/clubs/{club}/games",
            {"players": simulated.players, "rules": "classic", "starting_chips": simulated.starting_chips}, token=token)
        games.append(LiveGame(created["id"], simulated, boundaries(simulated)))
    for round_ in range(kills):
        if round_:
            server, port = serve(rounds)
        stop = threading.Event()
        clients = [threading.Thread(target=play_on, args=(port, token, game, stop)) for game in games]
        for client in clients:
            client.start()
        time.sleep(rounds.rng.uniform(0.3, 1.5))
        server.kill()
        server.wait()
        stop.set()
        for client in clients:
            client.join(timeout=60)
        rounds.killed(server)
        for game in games:
            stored = rounds.store.games.game(club, game.id).version
            assert stored in game.ends, f"game {game.id} ends inside a batch, at {stored}"
            # the batch in flight when the server died was stored whole, or not at all
            in_flight = game.ends.index(game.acked) + 1
            assert stored in (game.acked, *game.ends[in_flight:in_flight + 1])
            assert stored_log(rounds.store, club, game.id) == simulated_log(game.simulated)[:stored]
            game.version = game.acked = stored
    assert any(game.version > 1 for game in games)


def test_a_server_killed_under_live_appends_leaves_a_consistent_store(rounds) -> None:
    kill_server(rounds, 1)


# --- twenty kills ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_twenty_kills_leave_a_consistent_store(rounds, big_document) -> None:
    kill_imports(rounds, *big_document, 7)
    kill_simulations(rounds, 7)
    kill_server(rounds, 6)
    assert rounds.kills == 20
    check_store(rounds.url)
