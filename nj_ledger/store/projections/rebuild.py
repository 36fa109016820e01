"""Rebuilding the scoreboard's tables from the log (``nj-ledger projections rebuild``).

One transaction: the clubs are locked (games that end meanwhile wait, then
count themselves on top), their rows are deleted, every ended game's records
are read in one ordered pass, and the games are counted again club by club in
``end_key`` order, through the same :func:`~.projector.record_results` as a
live append. A rebuild interrupted half-way leaves the tables as they were.

    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> rebuild(store.db).games
    0
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ...scoring import COUNTED_TYPES, Rating
from ..base import Database
from ..models import Club, EventRecord, Game, GamePlayer
from ..rows import RECORD_COLUMNS, record_of
from .models import GameResult, ScoreRollup, SeatResult
from .projector import EndedGame, ended_game, lock_clubs, record_results

BATCH = 2000  # games written per round of inserts


@dataclass(frozen=True)
class Rebuilt:
    games: int
    events: int
    seconds: float

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0


def rebuild_steps(db: Database, club_id: str | None = None) -> Iterator[tuple[int, int, int]]:
    """Rebuild (one club's, or every club's) tables, yielding ``(games counted, games in all, events)``.

    ``events`` is the length of the ended games' logs (the records read are the
    part of them that counts, :data:`~nj_ledger.scoring.COUNTED_TYPES`).

    The first step, ``(0, total, events)``, comes once the old rows are gone and
    the games to count are known; the work commits when the generator is exhausted.
    """
    with db.writing() as session:
        yield from rebuild_in(session, club_id)


def rebuild_in(session: Session, club_id: str | None = None) -> Iterator[tuple[int, int, int]]:
    """:func:`rebuild_steps` in the caller's session and transaction (a migration's, for one)."""
    clubs = [club_id] if club_id is not None else list(session.scalars(select(Club.id).order_by(Club.id)))
    lock_clubs(session, clubs)
    for table in (ScoreRollup, SeatResult, GameResult):
        query = delete(table)
        session.execute(query if club_id is None else query.where(table.club_id == club_id))
    ended = select(Game.id).where(Game.status == "ended")
    if club_id is not None:
        ended = ended.where(Game.club_id == club_id)
    total, events = session.execute(select(func.count(), func.coalesce(func.sum(Game.version), 0))
                                    .where(Game.id.in_(ended))).one()
    yield 0, total, events
    games = _read_ended_games(session, club_id)
    by_club: dict[str, list[EndedGame]] = {}
    for game in games:
        by_club.setdefault(game.club_id, []).append(game)
    done = 0
    for club, club_games in sorted(by_club.items()):
        club_games.sort(key=lambda g: g.end_key)
        ratings: dict[int, Rating] = {}
        for first in range(0, len(club_games), BATCH):
            chunk = club_games[first:first + BATCH]
            record_results(session, club, chunk, ratings)
            done += len(chunk)
            yield done, total, events


def rebuild(db: Database, club_id: str | None = None) -> Rebuilt:
    """Rebuild the tables from the log and say how much was read, and how fast."""
    started = time.perf_counter()
    done = events = 0
    for step in rebuild_steps(db, club_id):
        done, _, events = step
    return Rebuilt(done, events, time.perf_counter() - started)


def _read_ended_games(session: Session, club_id: str | None) -> list[EndedGame]:
    """Every ended game's figures, from one pass over the records that count, game by game."""
    games_query = select(Game.id, Game.club_id, Game.played_on).where(Game.status == "ended")
    members_query = (select(GamePlayer.game_id, GamePlayer.player_id).join(Game, Game.id == GamePlayer.game_id)
                     .where(Game.status == "ended").order_by(GamePlayer.game_id, GamePlayer.seat))
    records_query = (select(EventRecord.game_id, *RECORD_COLUMNS).join(Game, Game.id == EventRecord.game_id)
                     .where(Game.status == "ended", EventRecord.type.in_(COUNTED_TYPES))
                     .order_by(EventRecord.game_id, EventRecord.seq))
    if club_id is not None:
        games_query = games_query.where(Game.club_id == club_id)
        members_query = members_query.where(Game.club_id == club_id)
        records_query = records_query.where(Game.club_id == club_id)
    where: dict[str, tuple[str, Any]] = {
        game: (club, played_on) for game, club, played_on in session.execute(games_query)
    }
    members: dict[str, list[int]] = {}
    for game, player in session.execute(members_query):
        members.setdefault(game, []).append(player)
    found: list[EndedGame] = []
    current: str | None = None
    log: list[dict[str, Any]] = []

    def finish() -> None:
        if current is not None:
            club, played_on = where[current]
            game = ended_game(current, club, played_on, members[current], log)
            if game is not None:
                found.append(game)

    # through the connection, not the ORM: millions of plain rows, read in a stream
    rows = session.connection().execute(records_query.execution_options(yield_per=5000))
    for row in rows:
        if row[0] != current:
            finish()
            current, log = row[0], []
        log.append(record_of(row[1:]))
    finish()
    return found
