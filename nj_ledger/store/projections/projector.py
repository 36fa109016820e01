"""Keeping the scoreboard's tables in step with the log, inside the transaction that appends to it.

The store calls :func:`project_records` right after it inserts a game's new
records (creating, importing or appending), in the same session: nothing
happens until a batch ends the game; then the game's log is read back, its
figures are computed by :func:`nj_ledger.scoring.game_figures`, and its rows are
added with :func:`record_results`, which the rebuild and the bulk loader use too.

Ratings follow each club's games in ``end_key`` order. Game endings of one club
are serialised by a lock on the club's row (PostgreSQL; SQLite has one writer
at a time anyway). Should a game end with an earlier ``end_key`` than a game
already rated (two games ending at the same moment on PostgreSQL, committed in
the other order), the games rated after it are rated again, so the ratings are
always those of ``end_key`` order, whatever order the transactions committed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import Any, cast

from sqlalchemy import (
    CompoundSelect,
    Connection,
    Table,
    and_,
    bindparam,
    case,
    delete,
    insert,
    select,
    union_all,
    update,
)
from sqlalchemy.orm import Session

from ...scoring import START_RATING, GameFigures, Rating, game_figures, rate_game
from ..models import Game, GamePlayer
from ..recorder import Recorder, recorder_for
from .models import SUMMED, GameResult, ScoreRollup, SeatResult
from .periods import grain_starts, month_end

RollupKey = tuple[str, date, int]  # (grain, period start, player id)
Place = tuple[str, date, Sequence[int]]  # a game's club, the day it was played and the member at each seat
COUNTED_BY_CALLER = "nj_ledger.scoreboard.counted_by_caller"  # session.info flag of a bulk loader
# Inserted as plain table rows: the ORM's bulk insert costs more than the database when a rebuild writes 100,000s.
GAME_RESULTS = cast(Table, GameResult.__table__)
SEAT_RESULTS = cast(Table, SeatResult.__table__)
SCORE_ROLLUPS = cast(Table, ScoreRollup.__table__)
# The statements of counting one game, built once and run on the session's connection: a game's import or last
# action runs a dozen of them, and building them and going through the ORM cost more than running them.
_GAME_PLACE = select(Game.club_id, Game.played_on).where(Game.id == bindparam("game_id"))
_MEMBERS = select(GamePlayer.player_id).where(GamePlayer.game_id == bindparam("game_id")).order_by(GamePlayer.seat)
_RATED_AFTER = (
    select(SeatResult.game_id, SeatResult.end_key, SeatResult.played_on, SeatResult.player_id, SeatResult.rank)
    .where(SeatResult.game_id.in_(
        select(GameResult.game_id).where(GameResult.club_id == bindparam("club_id"),
                                         GameResult.end_key > bindparam("key"))))
    .order_by(SeatResult.end_key, SeatResult.seat)
)
_INSERT_GAME_RESULTS = insert(GAME_RESULTS)
_INSERT_SEAT_RESULTS = insert(SEAT_RESULTS)


@cache
def _ratings_before_statement(players: int) -> CompoundSelect[Any]:
    """The latest rating before ``key`` of each of ``players`` players (``player0``…), in one statement: a game
    of four players would otherwise ask four times."""
    latest = [
        select(SeatResult.player_id, SeatResult.rating_mu, SeatResult.rating_sigma)
        .where(SeatResult.player_id == bindparam(f"player{index}"), SeatResult.end_key < bindparam("key"))
        .order_by(SeatResult.end_key.desc()).limit(1).subquery()
        for index in range(players)
    ]
    return union_all(*(select(*subquery.c) for subquery in latest))


@dataclass(frozen=True, slots=True)
class EndedGame:
    """An ended game ready to be counted: where it belongs, who sat where, and its figures."""

    game_id: str
    club_id: str
    played_on: date
    end_key: str
    members: tuple[int, ...]  # the player id of each seat
    figures: GameFigures

    @property
    def ranks(self) -> list[int]:
        return [seat.rank for seat in self.figures.seats]


def end_key(ended_at: str, game_id: str) -> str:
    """The order of a club's games for the ratings: when the game ended, then its id.

    >>> end_key("2026-11-22T07:00:35.123456Z", "abc")
    '2026-11-22T07:00:35.123456Zabc'
    """
    return ended_at + game_id


def ended_game(game_id: str, club_id: str, played_on: date, members: Sequence[int],
               records: Iterable[Mapping[str, Any]]) -> EndedGame | None:
    """The :class:`EndedGame` of a game's log (stored records in seq order), or None if it has not ended."""
    last: dict[str, str] = {}

    def remembered() -> Iterator[Mapping[str, Any]]:  # one pass, never the whole log in memory
        for record in records:
            last["recorded_at"] = record["recorded_at"]
            yield record

    figures = game_figures(remembered())
    if figures is None:
        return None
    return EndedGame(game_id, club_id, played_on, end_key(last["recorded_at"], game_id), tuple(members),
                     figures)


def ends_game(records: Sequence[Mapping[str, Any]]) -> bool:
    """These new records end their game (so the game is counted)."""
    return bool(records) and records[-1]["type"] == "game_ended"


def may_withdraw_end(records: Sequence[Mapping[str, Any]]) -> bool:
    """These new records, appended to a game's log, may withdraw its end: they hold an undo (one reaches past
    a deal's settlement, and the end of the game it caused, until the next deal starts)."""
    return bool(records) and records[0]["seq"] > 1 and any(record["type"] == "undo" for record in records)


def touches_results(records: Sequence[Mapping[str, Any]]) -> bool:
    """These new records may change what the scoreboard counts of their game."""
    return ends_game(records) or may_withdraw_end(records)


def project_records(session: Session, game_id: str, records: Sequence[Mapping[str, Any]],
                    place: Place | None = None) -> None:
    """The store's hook: count the game if these new records end it, and un-count it first if they hold an
    undo that withdrew its end (same session, same transaction).

    ``place`` is the game's club, day and seated members when the caller has just written them (read otherwise).
    A session flagged with :data:`COUNTED_BY_CALLER` (the bulk loader) counts
    its games itself, many at a time, with :func:`record_results`.
    """
    if session.info.get(COUNTED_BY_CALLER):
        return
    if may_withdraw_end(records):
        withdraw_results(session, game_id)  # counted again below if the batch ends the game again
    if not ends_game(records):
        return
    connection = session.connection()
    if place is None:
        game = connection.execute(_GAME_PLACE, {"game_id": game_id}).one()
        place = (game.club_id, game.played_on, connection.execute(_MEMBERS, {"game_id": game_id}).scalars().all())
    club_id, played_on, members = place
    log = records if records[0]["seq"] == 1 else (  # streamed: a long game's log is never held whole
        recorder_for(connection).select_records(connection, game_id, 0, records[-1]["seq"]))
    ended = ended_game(game_id, club_id, played_on, members, log)
    if ended is not None:
        lock_clubs(session, [club_id])
        record_results(session, club_id, [ended])


_COUNTED = select(GameResult.club_id, GameResult.end_key, GameResult.played_on).where(
    GameResult.game_id == bindparam("game_id"))
_SEATS_COUNTED = (select(SEAT_RESULTS.c.player_id, *(SEAT_RESULTS.c[name] for name in SUMMED[1:]))
                  .where(SEAT_RESULTS.c.game_id == bindparam("game_id")))


def withdraw_results(session: Session, game_id: str) -> None:
    """Take a counted game off the scoreboard (an undo withdrew its end): its rows go, its figures come off
    its players' day and month rows (a row left with no game goes), and the club's games rated after it are
    rated again without it. Nothing happens to a game that is not counted."""
    connection = session.connection()
    counted = connection.execute(_COUNTED, {"game_id": game_id}).first()
    if counted is None:
        return
    club_id, key, played_on = counted
    lock_clubs(session, [club_id])
    seats = connection.execute(_SEATS_COUNTED, {"game_id": game_id}).mappings().all()
    rollups = SCORE_ROLLUPS.c
    touched: set[RollupKey] = set()
    for grain, start in grain_starts(played_on):
        for seat in seats:
            where = and_(rollups.club_id == club_id, rollups.grain == grain, rollups.period_start == start,
                         rollups.player_id == seat["player_id"])
            connection.execute(update(SCORE_ROLLUPS).where(where).values(
                {name: rollups[name] - (1 if name == "games" else seat[name]) for name in SUMMED}))
            touched.add((grain, start, seat["player_id"]))
    connection.execute(delete(SEAT_RESULTS).where(SEAT_RESULTS.c.game_id == game_id))
    connection.execute(delete(GAME_RESULTS).where(GAME_RESULTS.c.game_id == game_id))
    connection.execute(delete(SCORE_ROLLUPS).where(rollups.club_id == club_id, rollups.games <= 0))
    later = _rated_after(connection, club_id, key)
    if later:
        known = _ratings_before(connection, (member for game in later for member in game.members), key)
        for game in later:
            rated = rate_game([known[m] for m in game.members], game.ranks)
            for index, (member, (mu, sigma)) in enumerate(zip(game.members, rated, strict=True)):
                known[member] = (mu, sigma)
                session.execute(update(SeatResult).where(SeatResult.game_id == game.game_id,
                                                         SeatResult.seat == index)
                                .values(rating_mu=mu, rating_sigma=sigma))
        touched |= {(grain, start, member) for game in later for member in game.members
                    for grain, start in grain_starts(game.played_on)}
    refresh_rollup_ratings(session, club_id, touched)


def lock_clubs(session: Session, club_ids: Sequence[str]) -> None:
    """Serialise the counting of clubs' games (``FOR NO KEY UPDATE``: rows that refer to the club still go in)."""
    recorder_for(session).lock_clubs(session.connection(), club_ids)


# --- adding games -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Rated:
    """A game already counted that has to be rated again."""

    game_id: str
    end_key: str
    played_on: date
    members: tuple[int, ...]
    ranks: list[int]


def record_results(session: Session, club_id: str, games: Sequence[EndedGame],
                   ratings: dict[int, Rating] | None = None) -> None:
    """Add ended games of one club to the scoreboard's tables.

    ``ratings`` (player id -> rating), when given, is the ratings before the
    earliest of ``games`` for the players already looked up; it is brought up
    to date, so a caller adding games in order (the rebuild, the bulk loader)
    keeps it from one call to the next instead of reading the ratings back.
    """
    if not games:
        return
    connection = session.connection()
    games = sorted(games, key=lambda g: g.end_key)
    first = games[0].end_key
    later = _rated_after(connection, club_id, first)
    known = {} if ratings is None or later else ratings
    players = {m for g in games for m in g.members} | {m for g in later for m in g.members}
    known.update(_ratings_before(connection, (player for player in players if player not in known), first))
    after: dict[tuple[str, int], Rating] = {}
    sequence: list[EndedGame | _Rated] = sorted([*games, *later], key=lambda g: g.end_key)
    for game in sequence:
        rated = rate_game([known[m] for m in game.members], game.ranks)
        for seat, (member, rating) in enumerate(zip(game.members, rated, strict=True)):
            known[member] = rating
            after[(game.game_id, seat)] = rating
    if ratings is not None and known is not ratings:
        ratings.update(known)
    _insert_results(connection, games, after)
    _add_to_rollups(connection, club_id, games, after)
    if later:
        for game in later:
            for seat in range(len(game.members)):
                mu, sigma = after[(game.game_id, seat)]
                session.execute(update(SeatResult).where(SeatResult.game_id == game.game_id, SeatResult.seat == seat)
                                .values(rating_mu=mu, rating_sigma=sigma))
        touched = {(grain, start, member) for game in later for member in game.members
                   for grain, start in grain_starts(game.played_on)}
        refresh_rollup_ratings(session, club_id, touched)


def _rated_after(connection: Connection, club_id: str, key: str) -> list[_Rated]:
    """Games of the club already counted with a later ``end_key``, in order."""
    rows = connection.execute(_RATED_AFTER, {"club_id": club_id, "key": key}).all()
    games: dict[str, _Rated] = {}
    for game_id, key_, played_on, player, rank in rows:
        game = games.setdefault(game_id, _Rated(game_id, key_, played_on, (), []))
        games[game_id] = _Rated(game_id, key_, played_on, (*game.members, player), [*game.ranks, rank])
    return list(games.values())


def _ratings_before(connection: Connection, players: Iterable[int], key: str) -> dict[int, Rating]:
    """Each player's rating after their latest game counted before ``key`` (the starting rating if none)."""
    wanted = sorted(set(players))
    ratings: dict[int, Rating] = dict.fromkeys(wanted, START_RATING)
    if wanted:
        parameters: dict[str, Any] = {f"player{index}": player for index, player in enumerate(wanted)}
        parameters["key"] = key
        for row in connection.execute(_ratings_before_statement(len(wanted)), parameters):
            ratings[row.player_id] = (row.rating_mu, row.rating_sigma)
    return ratings


def _insert_results(connection: Connection, games: Sequence[EndedGame],
                    after: Mapping[tuple[str, int], Rating]) -> None:
    connection.execute(_INSERT_GAME_RESULTS, [
        {"game_id": g.game_id, "club_id": g.club_id, "played_on": g.played_on, "end_key": g.end_key,
         "reason": g.figures.reason, "players": len(g.members), "deals": g.figures.deals,
         "starting_chips": g.figures.starting_chips}
        for g in games
    ])
    connection.execute(_INSERT_SEAT_RESULTS, [
        {"game_id": g.game_id, "seat": s.seat, "club_id": g.club_id, "player_id": g.members[s.seat],
         "played_on": g.played_on, "end_key": g.end_key, "deals_played": s.deals_played, "deals_won": s.deals_won,
         "grand_operas": s.grand_operas, "honours_taken": s.honours_taken, "honour_chips": s.honour_chips,
         "betes_paid": s.betes_paid, "ruins": s.ruins, "chips": s.chips, "net": s.net, "rank": s.rank,
         "win_units": s.win_units, "rating_mu": after[(g.game_id, s.seat)][0],
         "rating_sigma": after[(g.game_id, s.seat)][1], "chips_by_deal": list(s.chips_by_deal)}
        for g in games for s in g.figures.seats
    ])


def _add_to_rollups(connection: Connection, club_id: str, games: Sequence[EndedGame],
                    after: Mapping[tuple[str, int], Rating]) -> None:
    """Add the games' seat figures to the day and month rows of each player, one upsert per row."""
    sums: dict[RollupKey, dict[str, Any]] = {}
    for game in games:  # in end_key order: the last game of a row gives its rating
        periods = grain_starts(game.played_on)
        for seat in game.figures.seats:
            member = game.members[seat.seat]
            mu, sigma = after[(game.game_id, seat.seat)]
            for grain, start in periods:
                row = sums.get((grain, start, member))
                if row is None:
                    row = sums[(grain, start, member)] = {
                        "club_id": club_id, "grain": grain, "period_start": start, "player_id": member,
                        **dict.fromkeys(SUMMED, 0),
                    }
                row["games"] += 1
                for name in SUMMED[1:]:
                    row[name] += getattr(seat, name)
                row["last_end_key"], row["rating_mu"], row["rating_sigma"] = game.end_key, mu, sigma
    connection.execute(_rollup_upsert(recorder_for(connection)), list(sums.values()))


@cache
def _rollup_upsert(recorder: Recorder) -> Any:
    """The rollups' upsert (built once per recorder: building it costs more than running it)."""
    table = ScoreRollup.__table__.c

    def changes(new: Any) -> dict[str, Any]:
        newer = new.last_end_key > table.last_end_key
        return {
            **{name: table[name] + new[name] for name in SUMMED},
            "last_end_key": case((newer, new.last_end_key), else_=table.last_end_key),
            "rating_mu": case((newer, new.rating_mu), else_=table.rating_mu),
            "rating_sigma": case((newer, new.rating_sigma), else_=table.rating_sigma),
        }

    keys = [table.club_id, table.grain, table.period_start, table.player_id]
    return recorder.upsert(cast(Table, ScoreRollup.__table__), keys, changes)


def refresh_rollup_ratings(session: Session, club_id: str, keys: Iterable[RollupKey]) -> None:
    """Set the rating of rollup rows again from their player's last game in the period."""
    for grain, start, member in keys:
        end = start if grain == "day" else month_end(start)
        latest = session.execute(
            select(SeatResult.end_key, SeatResult.rating_mu, SeatResult.rating_sigma)
            .where(SeatResult.player_id == member, SeatResult.played_on >= start, SeatResult.played_on <= end)
            .order_by(SeatResult.end_key.desc()).limit(1)
        ).first()
        if latest is None:
            continue
        session.execute(
            update(ScoreRollup)
            .where(and_(ScoreRollup.club_id == club_id, ScoreRollup.grain == grain,
                        ScoreRollup.period_start == start, ScoreRollup.player_id == member))
            .values(last_end_key=latest[0], rating_mu=latest[1], rating_sigma=latest[2])
        )
