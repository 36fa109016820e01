"""Reading the scoreboard: a club's players over a period, and one player's figures and games.

A period's figures are sums of rollup rows (:func:`~.periods.spans`), so a
query reads at most a few rows per player and month, never every game; the
rating is the one after the player's last game in the period.

    >>> from nj_ledger.simulator import simulate
    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> club, _ = store.clubs.create_club("Club")
    >>> game = simulate(seed=1, profile="classic", players=3, deals=2)
    >>> _ = store.games.create_game(club.id, game.events[0], game.actions)
    >>> [line.games for line in scoreboard(store.db, club.id)]
    [1, 1, 1]
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, Select, bindparam, cast, func, select, union_all
from sqlalchemy.orm import Session

from ...scoring import WIN_UNITS, rating_value
from ..base import Database
from ..clubs import find_member
from ..models import Game, Player
from ..recorder import Recorder, recorder_for
from .models import SUMMED, GameResult, ScoreRollup, SeatResult
from .periods import spans


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """A player's figures over a period."""

    player_id: int
    name: str
    games: int
    win_units: int
    deals_played: int
    deals_won: int
    net: int
    grand_operas: int
    honours_taken: int
    honour_chips: int
    betes_paid: int
    ruins: int
    rating_mu: float
    rating_sigma: float

    @property
    def wins(self) -> float:
        """Games won, a win shared by tied players counting as a fraction."""
        return self.win_units / WIN_UNITS

    @property
    def net_per_game(self) -> float:
        return self.net / self.games if self.games else 0.0

    @property
    def rating(self) -> float:
        return rating_value(self.rating_mu, self.rating_sigma)


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game of a player's history."""

    game_id: str
    played_on: date
    players: list[str]
    seat: int
    rank: int
    chips: int
    net: int
    win_units: int
    deals: int
    deals_won: int
    reason: str
    chips_by_deal: list[int]
    rating_mu: float
    rating_sigma: float

    @property
    def rating(self) -> float:
        return rating_value(self.rating_mu, self.rating_sigma)


Shape = tuple[tuple[str, bool, bool], ...]  # for each span: its grain, whether it has a first and a last start


@functools.lru_cache(maxsize=64)
def _statement(shape: Shape, one_player: bool, recorder: Recorder) -> Select[Any]:
    """The scoreboard's query for one shape of period, built once: building it costs more than running it.

    The rollup rows of each span are one index range, put together with UNION
    ALL, then added up per player in one GROUP BY pass that also picks the
    rating of the row holding the player's last game (``max(last_end_key)``).
    """
    arms = []
    for index, (grain, has_first, has_last) in enumerate(shape):
        arm = select(ScoreRollup.player_id, *(getattr(ScoreRollup, name) for name in SUMMED),
                     ScoreRollup.last_end_key, ScoreRollup.rating_mu, ScoreRollup.rating_sigma
                     ).where(ScoreRollup.club_id == bindparam("club_id"), ScoreRollup.grain == grain)
        if has_first:
            arm = arm.where(ScoreRollup.period_start >= bindparam(f"first_{index}"))
        if has_last:
            arm = arm.where(ScoreRollup.period_start <= bindparam(f"last_{index}"))
        if one_player:
            arm = arm.where(ScoreRollup.player_id == bindparam("player_id"))
        arms.append(arm)
    rows = (arms[0] if len(arms) == 1 else union_all(*arms)).subquery()

    def latest(column: str) -> ColumnElement[Any]:
        return recorder.latest(rows.c[column], rows.c.last_end_key)

    lines = (
        # PostgreSQL sums BIGINTs into NUMERIC: cast back, so that sums are read as ints, never as decimals
        select(rows.c.player_id, *(cast(func.sum(rows.c[name]), BigInteger).label(name) for name in SUMMED),
               func.max(rows.c.last_end_key).label("last_end_key"), latest("rating_mu").label("rating_mu"),
               latest("rating_sigma").label("rating_sigma"))
        .group_by(rows.c.player_id)
        .having(func.sum(rows.c.games) >= bindparam("min_games"))
        .subquery()
    )
    return (select(lines.c.player_id, Player.name, *(lines.c[name] for name in SUMMED), lines.c.rating_mu,
                   lines.c.rating_sigma)
            .join(Player, Player.id == lines.c.player_id))


def score_lines(session: Session, club_id: str, start: date | None = None, end: date | None = None,
                *, min_games: int = 0, player_id: int | None = None) -> list[ScoreLine]:
    """The figures of every player (or one) with at least ``min_games`` (and one) ended games in the period."""
    periods = spans(start, end)
    params: dict[str, Any] = {"club_id": club_id, "min_games": max(min_games, 1), "player_id": player_id}
    for index, (_, first, last) in enumerate(periods):
        params[f"first_{index}"], params[f"last_{index}"] = first, last
    shape = tuple((grain, first is not None, last is not None) for grain, first, last in periods)
    statement = _statement(shape, player_id is not None, recorder_for(session))
    return [ScoreLine(*row) for row in session.execute(statement, params)]


def scoreboard(db: Database, club_id: str, start: date | None = None, end: date | None = None,
               *, min_games: int = 0) -> list[ScoreLine]:
    """A club's players over the days from ``start`` to ``end`` (None: open), in no particular order."""
    with db.reading() as session:
        return score_lines(session, club_id, start, end, min_games=min_games)


@dataclass(frozen=True, slots=True)
class PlayerStats:
    player_id: int
    name: str
    line: ScoreLine | None  # None: no ended game in the period
    history: list[GameLine]  # newest first
    more: bool  # more games beyond this page of the history


def player_stats(db: Database, club_id: str, who: str, start: date | None = None, end: date | None = None,
                 *, limit: int = 50, offset: int = 0) -> PlayerStats:
    """One member's figures over a period, and a page of their games in it (newest first)."""
    with db.reading() as session:
        member = find_member(session, club_id, who)
        lines = score_lines(session, club_id, start, end, player_id=member.id)
        query = (
            select(SeatResult.game_id, SeatResult.played_on, Game.player_names.label("players"), SeatResult.seat,
                   SeatResult.rank, SeatResult.chips, SeatResult.net, SeatResult.win_units,
                   SeatResult.deals_played.label("deals"), SeatResult.deals_won, GameResult.reason,
                   SeatResult.chips_by_deal, SeatResult.rating_mu, SeatResult.rating_sigma)
            .join(GameResult, GameResult.game_id == SeatResult.game_id)
            .join(Game, Game.id == SeatResult.game_id)
            .where(SeatResult.player_id == member.id)
        )
        if start is not None:
            query = query.where(SeatResult.played_on >= start)
        if end is not None:
            query = query.where(SeatResult.played_on <= end)
        rows = session.execute(
            query.order_by(SeatResult.played_on.desc(), SeatResult.end_key.desc()).limit(limit + 1).offset(offset)
        ).all()
        history = [GameLine(**row._mapping) for row in rows[:limit]]
        return PlayerStats(member.id, member.name, lines[0] if lines else None, history, len(rows) > limit)
