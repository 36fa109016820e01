"""Loading many finished logs at once: the rows of :meth:`~nj_ledger.store.games.Games.create_game`, written in
large batches.

For benchmarks and migrations of whole archives: each game is a log already
produced by the engine (a simulated game, or a game read from elsewhere and
executed), stored as an import would store it at its own ``moment`` — the same
game row, seats and members (:func:`~..writes.insert_games`), chained records
(:func:`~..writes.insert_records`: with whatever it writes beside them) and scoreboard rows as
``create_game(club, started, actions, meta=meta)`` at that moment — but a few
thousand games per transaction, and the scoreboard's rows added per batch
(:func:`~.projector.record_results`). Games are best given in the order they
ended (their ``moment``): one ending before games already counted has those
rated again.

    >>> from datetime import UTC, datetime
    >>> from nj_ledger.simulator import simulate
    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> club, _ = store.clubs.create_club("Club")
    >>> game = simulate(seed=2, profile="classic", players=3, deals=1)
    >>> bulk_load(store.games, club.id, [BulkGame(game.events, datetime(2026, 1, 5, 20, tzinfo=UTC))])
    1
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from ...events import Event
from ...reducer import replay
from ...scoring import Rating
from ..base import new_id, utcnow
from ..games import Games
from ..log import GENESIS, chain_records
from ..values import GameInfo, Record
from ..writes import NewGame, insert_games, insert_records
from .projector import COUNTED_BY_CALLER, ended_game, record_results

BATCH = 1000


@dataclass(frozen=True)
class BulkGame:
    """A game's whole log, the moment it is recorded at, and its document details (``date``, ``title``…)."""

    events: Sequence[Event]
    moment: datetime
    meta: Mapping[str, Any] = field(default_factory=dict)


def bulk_load(kept: Games, club_id: str, games: Iterable[BulkGame], *, batch: int = BATCH) -> int:
    """Store the games in batches of ``batch`` per transaction; how many were stored."""
    ratings: dict[int, Rating] = {}
    stored = 0
    chunk: list[BulkGame] = []
    for game in games:
        chunk.append(game)
        if len(chunk) == batch:
            stored += _load(kept, club_id, chunk, ratings)
            chunk = []
    if chunk:
        stored += _load(kept, club_id, chunk, ratings)
    return stored


def _load(kept: Games, club_id: str, chunk: Sequence[BulkGame], ratings: dict[int, Rating]) -> int:
    games: list[NewGame] = []
    logs: list[list[Record]] = []
    signer = kept.keys.signer()
    moment = utcnow()
    for game in chunk:
        started = game.events[0].data
        records = chain_records(GENESIS, 0, game.events, game.moment)
        last = game.events[-1].type
        games.append(NewGame(GameInfo(
            id=new_id(), club_id=club_id, created_at=game.moment, updated_at=game.moment,
            played_on=date.fromisoformat(game.meta["date"]) if game.meta.get("date") else game.moment.date(),
            version=len(records), status="ended" if last == "game_ended" else replay(game.events).status,
            profile=started["rules"]["profile"], players=list(started["players"]),
            starting_chips=started["starting_chips"],
            deals_played=_deals_played(game.events), meta=dict(game.meta),
        ), records[-1]["hash"]))
        logs.append(records)
    with kept.db.writing() as session:
        seats = insert_games(session.connection(), games, moment)
        session.info[COUNTED_BY_CALLER] = True
        for new, log in zip(games, logs, strict=True):
            insert_records(session, new.info.id, log, signer, moment)  # as every path writes them
        ended = [found for new, members, log in zip(games, seats, logs, strict=True) if new.info.status == "ended"
                 and (found := ended_game(new.info.id, club_id, new.info.played_on, members, log)) is not None]
        record_results(session, club_id, ended, ratings)
    return len(chunk)


def _deals_played(events: Sequence[Event]) -> int:
    """The deals settled: a settlement an undo withdrew (one in the same deal after it) does not count."""
    played, standing = 0, None
    for event in events:
        if event.type == "deal_ended":
            played, standing = played + 1, event.deal
        elif event.type == "undo" and event.deal == standing:
            played, standing = played - 1, None
    return played
