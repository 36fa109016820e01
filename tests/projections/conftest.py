"""Scoreboard tests: the store and the app on SQLite and PostgreSQL, and clubs filled with simulated games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from nj_ledger import new_game
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from support.apps import app, client  # noqa: F401 - fixtures of every HTTP test
from support.backends import backend, database_url, store  # noqa: F401 - fixtures of every database test

ROSTER = ("Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny")


@dataclass(frozen=True)
class Table:
    """A game to record: who sits where, which simulated game they play, and how it is recorded."""

    seed: int
    names: Sequence[str]
    profile: str = "classic"
    deals: int = 3
    day: date | None = None  # imported as played on this day; None: recorded live, batch by batch, today
    batches: int | None = None  # stop after this many batches (an unfinished game)


def record(store: Store, club_id: str, table: Table) -> str:
    """Store a simulated game through the store's own paths; its id."""
    game = simulate(table.seed, table.profile, players=len(table.names), deals=table.deals)
    started = new_game(list(table.names), game.rules, game.starting_chips)
    batches = game.batches if table.batches is None else game.batches[: table.batches]
    if table.day is not None:
        actions = [action for batch in batches for action in batch]
        return store.games.create_game(club_id, started, actions, meta={"date": table.day.isoformat()}).game.id
    game_id = store.games.create_game(club_id, started).game.id
    for batch in batches:
        store.games.append(club_id, game_id, batch)
    return game_id
