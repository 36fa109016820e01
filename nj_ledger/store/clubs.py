"""Clubs, their tokens and their members."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .. import names
from .base import Database, new_id, utcnow
from .errors import NotFound, PlayerExists
from .models import Club, Game, GamePlayer, Player
from .tokens import Tokens
from .values import ClubInfo, MemberGame, NewToken, PlayerInfo


def name_key(name: str) -> str:
    """Member names are compared without case and however they were composed: "Chloé" and "chloé" are one
    member, its é typed as one character or as an e and an accent (:func:`nj_ledger.names.name_key`; keys
    stored before were made again by migration 0012)."""
    return names.name_key(name)


def find_member(session: Session, club_id: str, who: str) -> Player:
    """A club's member by name (any case) or by id."""
    member = session.scalars(select(Player).where(Player.club_id == club_id, Player.name_key == name_key(who))).first()
    if member is None and who.isascii() and who.isdigit() and len(who) <= 18:  # an id the database can hold
        member = session.scalars(select(Player).where(Player.club_id == club_id, Player.id == int(who))).first()
    if member is None:
        raise NotFound("There is no player {player!r} in this club.", player=who)
    return member


class Clubs:
    """Clubs and their members."""

    def __init__(self, db: Database, tokens: Tokens) -> None:
        self.db = db
        self.tokens = tokens

    # --- clubs ---------------------------------------------------------------------------------
    def create_club(self, name: str) -> tuple[ClubInfo, NewToken]:
        """A new club and its first scorer token.

        >>> from nj_ledger.store import Store
        >>> store = Store("sqlite://"); store.create_schema()
        >>> club, token = store.clubs.create_club("Le Nain du Jeudi")
        >>> store.authenticate(token.secret).club_id == club.id
        True
        """
        with self.db.writing() as session:
            club = Club(id=new_id(), name=name.strip(), created_at=utcnow())
            session.add(club)
            session.flush()
            token = self.tokens.add(session, club.id, "scorer", "first scorer")
            return ClubInfo.of(club), token

    def club(self, club_id: str) -> ClubInfo:
        with self.db.reading() as session:
            row = session.get(Club, club_id)
            if row is None:
                raise NotFound("There is no club {club!r}.", club=club_id)
            return ClubInfo.of(row)

    def club_counts(self, club_id: str) -> dict[str, int]:
        """How many members and games a club has."""
        with self.db.reading() as session:
            players = session.scalar(select(func.count()).select_from(Player).where(Player.club_id == club_id))
            games = session.scalar(select(func.count()).select_from(Game).where(Game.club_id == club_id))
            return {"players": players or 0, "games": games or 0}

    def list_clubs(self) -> list[tuple[ClubInfo, int]]:
        """Every club, oldest first, with how many games it has (for the operator's command line)."""
        games = (select(Game.club_id, func.count().label("games")).group_by(Game.club_id).subquery())
        query = (select(Club, func.coalesce(games.c.games, 0)).outerjoin(games, games.c.club_id == Club.id)
                 .order_by(Club.created_at, Club.id))
        with self.db.reading() as session:
            return [(ClubInfo.of(row), int(count)) for row, count in session.execute(query)]

    def find_club(self, name: str) -> ClubInfo | None:
        """The oldest club with this name, if any."""
        with self.db.reading() as session:
            row = session.scalars(
                select(Club).where(Club.name == name.strip()).order_by(Club.created_at, Club.id).limit(1)
            ).first()
            return None if row is None else ClubInfo.of(row)

    # --- players -------------------------------------------------------------------------------
    def players(self, club_id: str, limit: int = 100, offset: int = 0) -> list[PlayerInfo]:
        """A page of the club's members in alphabetical order, whatever the accents ("Élise" before "Marcel",
        :func:`nj_ledger.names.sort_key`): the order is the language's, not the database's, so it is made here."""
        with self.db.reading() as session:
            rows = list(session.scalars(select(Player).where(Player.club_id == club_id)))
            rows.sort(key=lambda row: (names.sort_key(row.name), row.id))
            return [PlayerInfo.of(row) for row in rows[offset:offset + limit]]

    def member(self, club_id: str, who: str) -> PlayerInfo:
        """A member by name (any case) or by id (NotFound for none)."""
        with self.db.reading() as session:
            return PlayerInfo.of(find_member(session, club_id, who))

    def member_games(self, club_id: str, member_id: int) -> list[MemberGame]:
        """Every game the member sat in, ended or not, oldest first: its id, day, title, status, the seat and
        every seat's name."""
        query = (select(Game.id, Game.played_on, Game.meta, Game.status, GamePlayer.seat, Game.player_names)
                 .join(GamePlayer, GamePlayer.game_id == Game.id)
                 .where(Game.club_id == club_id, GamePlayer.player_id == member_id)
                 .order_by(Game.played_on, Game.created_at, Game.id))
        with self.db.reading() as session:
            return [MemberGame(game, played_on, (meta or {}).get("title"), status, seat, list(players))
                    for game, played_on, meta, status, seat, players in session.execute(query)]

    def add_player(self, club_id: str, name: str) -> PlayerInfo:
        with self.db.writing() as session:
            if session.get(Club, club_id) is None:
                raise NotFound("There is no club {club!r}.", club=club_id)
            existing = session.scalars(
                select(Player).where(Player.club_id == club_id, Player.name_key == name_key(name))
            ).first()
            if existing is not None:
                raise PlayerExists(existing.name)
            row = Player(club_id=club_id, name=names.normal_name(name), name_key=name_key(name), created_at=utcnow())
            session.add(row)
            try:
                session.flush()
            except IntegrityError:  # registered at the same moment by another request
                raise PlayerExists(names.normal_name(name)) from None
            return PlayerInfo.of(row)
