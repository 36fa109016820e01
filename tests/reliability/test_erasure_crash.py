"""A member's erasure killed with SIGKILL at any of its calls to the database (``nj-ledger members erase``, its
transaction open) leaves the member either fully erased or not at all: after every kill, either no erasure is
recorded and their name is where it was, or the erasure is recorded and the name is nowhere in the club's logs,
summaries and members; every game audits clean either way (:func:`.helpers.check_store`), and the next erasure goes
through."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select

from nj_ledger import new_game
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from nj_ledger.store.models import EventRecord, Game, Player

from .helpers import check_store, environment

NAME = "Gwenaëlle"


def club_of(store: Store, name: str) -> str:
    """A club where the member played two games."""
    club, _ = store.clubs.create_club(name)
    for seed in (1, 2):
        game = store.games.create_game(club.id, new_game([NAME, "Ben", "Chloé"], "classic", 60)).game
        played = simulate(seed=seed, profile="classic", players=3, starting_chips=60, deals=2)
        store.games.append(club.id, game.id, played.actions)
    return club.id


def named(store: Store, club: str) -> bool:
    """Whether the club's logs, games' summaries or members name the member."""
    with store.db.reading() as session:
        games = session.execute(select(Game.id, Game.player_names).where(Game.club_id == club)).all()
        texts = [str(players) for _, players in games]
        texts += [str(data) for data in session.scalars(
            select(EventRecord.data).where(EventRecord.game_id.in_([game for game, _ in games])))]
        texts += list(session.scalars(select(Player.name).where(Player.club_id == club)))
    return any("gwena" in text.casefold() for text in texts)


def erase(url: str, folder: Path, club: str, kill_at: int) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "reliability.crashing", str(kill_at), "--", "members", "erase", club,
                           NAME, "--reason", "asked to be forgotten"], env=environment(url), cwd=folder,
                          capture_output=True, timeout=300, check=False)


def test_a_killed_erasure_erases_all_or_nothing(fresh_url: str, tmp_path: Path) -> None:
    store = Store(fresh_url)
    try:
        store.keys.signer()  # the signing key taken into use first: the calibration's count is every run's
        calibration = erase(fresh_url, tmp_path, club_of(store, "Le club témoin"), 0)
        assert calibration.returncode == 0, calibration.stderr.decode()
        calls = int(calibration.stderr.decode().rsplit("database calls:", 1)[1])
        rng = random.Random()
        points = sorted({1, calls - 1, *(rng.randint(2, calls - 2) for _ in range(4))})
        outcomes = set()
        for kill_at in points:
            club = club_of(store, f"Le club {kill_at}")
            killed = erase(fresh_url, tmp_path, club, kill_at)
            assert killed.returncode == -signal.SIGKILL, (kill_at, killed.stderr.decode()[-2000:])
            erased = bool(store.erasures.erasures(club))
            outcomes.add(erased)
            assert named(store, club) is not erased, (kill_at, calls)
            assert store.erasures.chain(club)["ok"]
            check_store(fresh_url)  # every game's chain, checkpoints and audit, redacted or not
            if not erased:  # the erasure goes through on the next try
                assert erase(fresh_url, tmp_path, club, 0).returncode == 0
                assert not named(store, club)
        check_store(fresh_url)
        assert False in outcomes, points  # a kill before the commit leaves the member as they were
    finally:
        store.close()
