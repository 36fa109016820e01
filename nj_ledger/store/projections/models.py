"""The scoreboard's tables: read models derived from the log, and the clubs' seasons.

Three levels, so a period's scoreboard adds up a few rows per player rather
than every game:

- ``game_results``: one row per ended game (its day, the order it was rated in);
- ``seat_results``: one row per seat of an ended game (that seat's figures and
  the player's rating after the game);
- ``score_rollups``: per club, player and period of a given grain (a ``day`` or
  a ``month``), the sums of the seat rows of the games played in it, and the
  rating after the player's last game in it.

``end_key`` orders the games of a club for the ratings: the ``recorded_at`` of
the game's ``game_ended`` event, then the game's id (two games ended at the
same microsecond still have one order). Only ``seasons`` is not derived: a
club names its own date ranges.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from ..models import Base

END_KEY = String(64)


class GameResult(Base):
    """An ended game, as the scoreboard counts it."""

    __tablename__ = "game_results"
    __table_args__ = (
        Index(None, "club_id", "end_key"),
        Index(None, "club_id", "played_on"),
    )

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"))
    played_on: Mapped[date] = mapped_column(Date)
    end_key: Mapped[str] = mapped_column(END_KEY)
    reason: Mapped[str] = mapped_column(String(16))
    players: Mapped[int] = mapped_column(Integer)
    deals: Mapped[int] = mapped_column(Integer)
    starting_chips: Mapped[int] = mapped_column(Integer)


class SeatResult(Base):
    """One seat of an ended game: the player's figures in it and their rating after it."""

    __tablename__ = "seat_results"
    __table_args__ = (
        Index(None, "player_id", "end_key"),
        Index(None, "player_id", "played_on", "end_key"),
    )

    game_id: Mapped[str] = mapped_column(ForeignKey("game_results.game_id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    played_on: Mapped[date] = mapped_column(Date)
    end_key: Mapped[str] = mapped_column(END_KEY)
    deals_played: Mapped[int] = mapped_column(Integer)
    deals_won: Mapped[int] = mapped_column(Integer)
    grand_operas: Mapped[int] = mapped_column(Integer)
    honours_taken: Mapped[int] = mapped_column(Integer)
    honour_chips: Mapped[int] = mapped_column(BigInteger)
    betes_paid: Mapped[int] = mapped_column(Integer)
    ruins: Mapped[int] = mapped_column(Integer)
    chips: Mapped[int] = mapped_column(BigInteger)
    net: Mapped[int] = mapped_column(BigInteger)
    rank: Mapped[int] = mapped_column(Integer)
    win_units: Mapped[int] = mapped_column(Integer)
    rating_mu: Mapped[float] = mapped_column(Float)
    rating_sigma: Mapped[float] = mapped_column(Float)
    chips_by_deal: Mapped[list[Any]] = mapped_column(JSON())


class ScoreRollup(Base):
    """A player's sums over one day or one month of a club's games."""

    __tablename__ = "score_rollups"
    __table_args__ = (CheckConstraint("grain IN ('day', 'month')", name="grain"),)

    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    grain: Mapped[str] = mapped_column(String(8), primary_key=True)
    period_start: Mapped[date] = mapped_column(Date, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    games: Mapped[int] = mapped_column(Integer)
    win_units: Mapped[int] = mapped_column(Integer)
    deals_played: Mapped[int] = mapped_column(Integer)
    deals_won: Mapped[int] = mapped_column(Integer)
    net: Mapped[int] = mapped_column(BigInteger)
    grand_operas: Mapped[int] = mapped_column(Integer)
    honours_taken: Mapped[int] = mapped_column(Integer)
    honour_chips: Mapped[int] = mapped_column(BigInteger)
    betes_paid: Mapped[int] = mapped_column(Integer)
    ruins: Mapped[int] = mapped_column(Integer)
    last_end_key: Mapped[str] = mapped_column(END_KEY)
    rating_mu: Mapped[float] = mapped_column(Float)
    rating_sigma: Mapped[float] = mapped_column(Float)


class Season(Base):
    """A named date range of a club (``2026 spring``: 2026-03-01 to 2026-06-30), for its scoreboards."""

    __tablename__ = "seasons"
    __table_args__ = (
        UniqueConstraint("club_id", "name_key"),
        CheckConstraint("starts_on <= ends_on", name="period"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"))
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(40))
    starts_on: Mapped[date] = mapped_column(Date)
    ends_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime]
    # The evening ladder: evenings a player needs to be ranked, and how many of their best evenings count (null:
    # every one).
    qualifying_evenings: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    best_evenings: Mapped[int | None] = mapped_column(Integer)


SUMMED = (
    "games", "win_units", "deals_played", "deals_won", "net", "grand_operas", "honours_taken", "honour_chips",
    "betes_paid", "ruins",
)
