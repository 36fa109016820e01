"""A club's seasons: named date ranges its scoreboards can be asked for.

    >>> from datetime import date
    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> club, _ = store.clubs.create_club("Club")
    >>> create_season(store.db, club.id, "Printemps", date(2026, 3, 1), date(2026, 6, 30)).ends_on
    datetime.date(2026, 6, 30)
    >>> find_season(store.db, club.id, "printemps").name
    'Printemps'
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..base import Database, utcnow
from ..clubs import name_key
from ..errors import NotFound, StoreError
from ..models import Club
from .models import Season


class SeasonExists(StoreError):
    code = "season-exists"

    def __init__(self, name: str) -> None:
        super().__init__("The club already has a season called {name!r}.", name=name)


@dataclass(frozen=True, slots=True)
class SeasonInfo:
    id: int
    name: str
    starts_on: date
    ends_on: date
    created_at: datetime
    qualifying_evenings: int = 0  # evenings a player needs to be ranked in the season's ladder
    best_evenings: int | None = None  # a player's best evenings the ladder keeps (None: every one)

    @classmethod
    def of(cls, row: Season) -> SeasonInfo:
        return cls(row.id, row.name, row.starts_on, row.ends_on, row.created_at, row.qualifying_evenings or 0,
                   row.best_evenings)


def create_season(db: Database, club_id: str, name: str, starts_on: date, ends_on: date, *,
                  qualifying_evenings: int = 0, best_evenings: int | None = None) -> SeasonInfo:
    """A new season (names are unique in a club regardless of case; ``starts_on <= ends_on``), with its evening
    ladder's settings: the evenings a player needs to be ranked, and how many of their best evenings count."""
    if starts_on > ends_on:
        raise ValueError("a season ends on or after the day it starts")
    with db.writing() as session:
        if session.get(Club, club_id) is None:
            raise NotFound("There is no club {club!r}.", club=club_id)
        if session.scalars(select(Season.id).where(Season.club_id == club_id,
                                                   Season.name_key == name_key(name))).first() is not None:
            raise SeasonExists(name.strip())
        row = Season(club_id=club_id, name=name.strip(), name_key=name_key(name), starts_on=starts_on,
                     ends_on=ends_on, created_at=utcnow(),
                     qualifying_evenings=qualifying_evenings, best_evenings=best_evenings)
        session.add(row)
        try:
            session.flush()
        except IntegrityError:  # created at the same moment by another request
            raise SeasonExists(name.strip()) from None
        return SeasonInfo.of(row)


def set_ladder(db: Database, club_id: str, name: str, *, qualifying_evenings: int | None = None,
               best_evenings: int | None = None, keep_all: bool = False) -> SeasonInfo:
    """Change a season's evening ladder: the evenings a player needs, how many of their best count (``keep_all``:
    every one). What is not given stays."""
    with db.writing() as session:
        row = session.scalars(select(Season).where(Season.club_id == club_id,
                                                   Season.name_key == name_key(name))).first()
        if row is None:
            raise NotFound("The club has no season called {name!r}.", name=name)
        if qualifying_evenings is not None:
            row.qualifying_evenings = qualifying_evenings
        if keep_all:
            row.best_evenings = None
        elif best_evenings is not None:
            row.best_evenings = best_evenings
        return SeasonInfo.of(row)


def seasons(db: Database, club_id: str) -> list[SeasonInfo]:
    """A club's seasons, the most recent first."""
    with db.reading() as session:
        rows = session.scalars(select(Season).where(Season.club_id == club_id)
                               .order_by(Season.starts_on.desc(), Season.name_key))
        return [SeasonInfo.of(row) for row in rows]


def find_season(db: Database, club_id: str, name: str) -> SeasonInfo | None:
    with db.reading() as session:
        row = session.scalars(select(Season).where(Season.club_id == club_id,
                                                   Season.name_key == name_key(name))).first()
        return None if row is None else SeasonInfo.of(row)
