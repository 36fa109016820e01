"""The workloads' games, all from the seeded simulator: the same arguments give the same games.

    >>> games = simulated_deals(4)
    >>> sum(game.state.deals_played for game in games) >= 4
    True
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from nj_ledger.events import Event
from nj_ledger.simulator import SimulatedGame, simulate

PROFILE = "classic"
PLAYERS = 4
DEALS_PER_GAME = 8
CHIPS = 400  # enough for a game of 8 deals to go the distance most of the time


def simulated_deals(deals: int, seed: int = 1, per_game: int = DEALS_PER_GAME) -> list[SimulatedGame]:
    """Games of up to ``per_game`` deals, until ``deals`` deals have been played in all."""
    games: list[SimulatedGame] = []
    played = 0
    while played < deals:
        game = simulate(seed + len(games), PROFILE, PLAYERS, deals=min(per_game, deals - played),
                        starting_chips=CHIPS)
        games.append(game)
        played += game.state.deals_played if game.state is not None else 0
    return games


def document(game: SimulatedGame, title: str | None = None) -> dict[str, Any]:
    """The game document a scorer would import for ``game``."""
    started = game.events[0].data
    doc: dict[str, Any] = {
        "format": "nj-ledger/game", "version": 1, "players": list(game.players), "rules": PROFILE,
        "starting_chips": game.starting_chips, "dealer": started["dealer"], "actions": game.actions,
    }
    if title:
        doc["title"] = title
    return doc


def long_game(events: int, seed: int = 7) -> SimulatedGame:
    """One game of at least ``events`` events (its chips never run out, the table stops after enough deals)."""
    deals = max(1, events // 80)  # a deal of four players is some 84 events
    while True:
        game = simulate(seed, PROFILE, PLAYERS, deals=deals, starting_chips=10**8)
        if len(game.events) >= events:
            return game
        deals = int(deals * events / len(game.events)) + 1


def write_document(game: SimulatedGame, path: Path) -> int:
    """Write ``game``'s document to ``path`` an action at a line; its size in bytes."""
    doc = document(game)
    actions = doc.pop("actions")
    with path.open("w", encoding="utf-8") as out:
        _write(out, doc, actions)
    return path.stat().st_size


def _write(out: IO[str], doc: dict[str, Any], actions: list[dict[str, Any]]) -> None:
    head = json.dumps(doc, ensure_ascii=False)
    out.write(head[:-1] + ', "actions": [\n')
    for index, action in enumerate(actions):
        out.write(("," if index else "") + json.dumps(action, ensure_ascii=False) + "\n")
    out.write("]}\n")


def plain(events: list[Event]) -> Iterator[tuple[str, int, dict[str, Any], int]]:
    """``(type, deal, data, v)`` of each event with its data as plain JSON values (what a peer stores)."""
    for event in events:
        yield event.type, event.deal, json.loads(json.dumps(event.data)), event.v
