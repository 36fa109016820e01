"""Loading many finished logs at once: the rows of :meth:`Store.create_game`, written in large batches.

For benchmarks and migrations of whole archives: each game is a log already
produced by the engine (a simulated game, or a game read from elsewhere and
executed), stored as an import would store it at its own ``moment`` — the same
game row, seats, chained records (through the store's own ``_insert_records``,
so with whatever it writes beside them) and scoreboard rows as
``create_game(club, started, actions, meta=meta)`` at that moment — but a few
thousand games per transaction, and the scoreboard's rows added per batch
(:func:`~.projector.record_results`). Games are best given in the order they
ended (their ``moment``): one ending before games already counted has those
rated again.

    >>> from datetime import UTC, datetime
    >>> from nj_ledger.simulator import simulate
    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> club, _ = store.create_club("Club")
    >>> game = simulate(seed=2, profile="classic", players=3, deals=1)
    >>> bulk_load(store, club.id, [BulkGame(game.events, datetime(2026, 1, 5, 20, tzinfo=UTC))])
    1
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import insert

from ...events import Event
from ...reducer import replay
from ...scoring import Rating
from ..base import new_id, utcnow
from ..clubs import name_key
from ..games import GamesMixin
from ..log import GENESIS, chain_records
from ..models import Game, GamePlayer
from ..values import Record
from .projector import COUNTED_BY_CALLER, EndedGame, ended_game, record_results

BATCH = 1000


@dataclass(frozen=True)
class BulkGame:
    """A game's whole log, the moment it is recorded at, and its document details (``date``, ``title``…)."""

    events: Sequence[Event]
    moment: datetime
    meta: Mapping[str, Any] = field(default_factory=dict)


def bulk_load(store: GamesMixin, club_id: str, games: Iterable[BulkGame], *, batch: int = BATCH) -> int:
    """Store the games in batches of ``batch`` per transaction; how many were stored."""
    ratings: dict[int, Rating] = {}
    stored = 0
    chunk: list[BulkGame] = []
    for game in games:
        chunk.append(game)
        if len(chunk) == batch:
            stored += _load(store, club_id, chunk, ratings)
            chunk = []
    if chunk:
        stored += _load(store, club_id, chunk, ratings)
    return stored


def _load(store: GamesMixin, club_id: str, chunk: Sequence[BulkGame], ratings: dict[int, Rating]) -> int:
    names = list(dict.fromkeys(name for game in chunk for name in game.events[0].data["players"]))
    game_rows: list[dict[str, Any]] = []
    seat_rows: list[dict[str, Any]] = []
    logs: list[tuple[str, list[Record]]] = []
    ended: list[EndedGame] = []
    signer = store.signer()
    moment = utcnow()
    with store.writing() as session:
        members = dict(zip(map(name_key, names), store._register_players(session, club_id, names), strict=True))
        for game in chunk:
            started = game.events[0].data
            game_id = new_id()
            records = chain_records(GENESIS, 0, game.events, game.moment)
            played_on = date.fromisoformat(game.meta["date"]) if game.meta.get("date") else game.moment.date()
            last = game.events[-1].type
            game_rows.append({
                "id": game_id, "club_id": club_id, "created_at": game.moment, "updated_at": game.moment,
                "played_on": played_on, "version": len(records), "head_hash": records[-1]["hash"],
                "status": "ended" if last == "game_ended" else replay(game.events).status,
                "profile": started["rules"]["profile"], "player_names": list(started["players"]),
                "starting_chips": started["starting_chips"],
                "deals_played": sum(1 for event in game.events if event.type == "deal_ended"),
                "meta": dict(game.meta), "source_digest": None,
            })
            seats = [members[name_key(name)] for name in started["players"]]
            seat_rows += [{"game_id": game_id, "seat": seat, "player_id": member} for seat, member in enumerate(seats)]
            logs.append((game_id, records))
            if last == "game_ended":
                found = ended_game(game_id, club_id, played_on, seats, records)
                assert found is not None
                ended.append(found)
        session.execute(insert(Game), game_rows)
        session.execute(insert(GamePlayer), seat_rows)
        session.info[COUNTED_BY_CALLER] = True
        for game_id, records in logs:
            store._insert_records(session, game_id, records, signer, moment)  # as every path writes them
        record_results(session, club_id, ended, ratings)
    return len(chunk)
