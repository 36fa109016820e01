"""Clubs, their tokens and their members."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, func, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from .. import names
from .base import StoreBase, new_id, utcnow
from .errors import LastScorerToken, NotFound, PlayerExists
from .followers import announce_revoked
from .models import Club, Game, Player, Token
from .values import ClubInfo, NewToken, PlayerInfo, TokenInfo, TokenRecord

ROLES = ("scorer", "viewer")
# When a token was last used is kept to the minute: a process writes it at most once a minute per token.
LAST_USED_GRAIN = timedelta(minutes=1)
_TOKENS = cast(Table, Token.__table__)
# Every request authenticates, from the database (a revoked token must be refused at once, by every worker):
# one statement, read straight from the driver (:meth:`.Recorder.lookup`).
_FIND_TOKEN = "SELECT id, club_id, role, label, digest FROM tokens WHERE digest = {mark} AND revoked_at IS NULL"
_MARK_USED = (update(_TOKENS).where(_TOKENS.c.id == bindparam("token_id"))
              .values(last_used_at=bindparam("now")))


def token_digest(secret: str) -> str:
    """What is stored of a token: the SHA-256 of its secret.

    >>> len(token_digest("abc"))
    64
    """
    return hashlib.sha256(secret.encode()).hexdigest()


def name_key(name: str) -> str:
    """Member names are compared without case and however they were composed: "Chloé" and "chloé" are one
    member, its é typed as one character or as an e and an accent (:func:`nj_ledger.names.name_key`; keys
    stored before were made again by migration 0012)."""
    return names.name_key(name)


class ClubsMixin(StoreBase):
    # --- clubs ---------------------------------------------------------------------------------
    def create_club(self, name: str) -> tuple[ClubInfo, NewToken]:
        """A new club and its first scorer token.

        >>> from nj_ledger.store import Store
        >>> store = Store("sqlite://"); store.create_schema()
        >>> club, token = store.create_club("Le Nain du Jeudi")
        >>> store.authenticate(token.secret).club_id == club.id
        True
        """
        with self.writing() as session:
            club = Club(id=new_id(), name=name.strip(), created_at=utcnow())
            session.add(club)
            session.flush()
            token = self._add_token(session, club.id, "scorer", "first scorer")
            return ClubInfo.of(club), token

    def club(self, club_id: str) -> ClubInfo:
        with self.reading() as session:
            row = session.get(Club, club_id)
            if row is None:
                raise NotFound("There is no club {club!r}.", club=club_id)
            return ClubInfo.of(row)

    def club_counts(self, club_id: str) -> dict[str, int]:
        """How many members and games a club has."""
        with self.reading() as session:
            players = session.scalar(select(func.count()).select_from(Player).where(Player.club_id == club_id))
            games = session.scalar(select(func.count()).select_from(Game).where(Game.club_id == club_id))
            return {"players": players or 0, "games": games or 0}

    def list_clubs(self) -> list[tuple[ClubInfo, int]]:
        """Every club, oldest first, with how many games it has (for the operator's command line)."""
        games = (select(Game.club_id, func.count().label("games")).group_by(Game.club_id).subquery())
        query = (select(Club, func.coalesce(games.c.games, 0)).outerjoin(games, games.c.club_id == Club.id)
                 .order_by(Club.created_at, Club.id))
        with self.reading() as session:
            return [(ClubInfo.of(row), int(count)) for row, count in session.execute(query)]

    def find_club(self, name: str) -> ClubInfo | None:
        """The oldest club with this name, if any."""
        with self.reading() as session:
            row = session.scalars(
                select(Club).where(Club.name == name.strip()).order_by(Club.created_at, Club.id).limit(1)
            ).first()
            return None if row is None else ClubInfo.of(row)

    # --- tokens --------------------------------------------------------------------------------
    def _add_token(self, session: Session, club_id: str, role: str, label: str) -> NewToken:
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}")
        secret = secrets.token_urlsafe(32)
        row = Token(club_id=club_id, role=role, digest=token_digest(secret), label=label, created_at=utcnow())
        session.add(row)
        session.flush()
        return NewToken(row.id, club_id, role, label, secret, row.created_at)

    def create_token(self, club_id: str, role: str = "scorer", label: str = "") -> NewToken:
        with self.writing() as session:
            if session.get(Club, club_id) is None:
                raise NotFound("There is no club {club!r}.", club=club_id)
            return self._add_token(session, club_id, role, label)

    def authenticate(self, secret: str) -> TokenInfo | None:
        """The club and role a bearer token speaks for, or None (unknown or revoked).

        Read from the database at every call, never from a cache: a token revoked
        by one worker is refused by all of them at once.
        """
        digest = token_digest(secret)
        rows = self.recorder.lookup(self.engine, _FIND_TOKEN, (digest,))
        # The lookup is by digest; compare again in constant time so equality is not decided by the index.
        if not rows or not hmac.compare_digest(rows[0][4], digest):
            return None
        token_id, club_id, role, label, _ = rows[0]
        now = time.monotonic()
        marked = self.tokens_marked.get(str(token_id))
        if marked is None or now - marked >= LAST_USED_GRAIN.total_seconds():
            self.tokens_marked.put(str(token_id), now)
            self._mark_used(token_id, utcnow())
        return TokenInfo(token_id, club_id, role, label)

    def _mark_used(self, token_id: int, now: datetime) -> None:
        """Note that a token was used (best effort: a busy database does not fail the request for it)."""
        try:
            with self.writing_if_free() as connection:
                if connection is not None:
                    connection.execute(_MARK_USED, {"token_id": token_id, "now": now})
        except DBAPIError:
            pass

    def tokens(self, club_id: str, limit: int = 100, offset: int = 0) -> list[TokenRecord]:
        """A club's tokens, oldest first, revoked ones too (never their secrets)."""
        with self.reading() as session:
            rows = session.scalars(select(Token).where(Token.club_id == club_id).order_by(Token.id)
                                   .limit(limit).offset(offset))
            return [TokenRecord.of(row) for row in rows]

    def _active_token(self, session: Session, club_id: str, token_id: int) -> Token:
        row = session.get(Token, token_id)
        if row is None or row.club_id != club_id or row.revoked_at is not None:
            raise NotFound("This club has no token {token} in use.", token=token_id)
        return row

    def revoke_token(self, club_id: str, token_id: int) -> TokenRecord:
        """Refuse a token from now on (every worker at once). Revoking a revoked token changes nothing; the
        club's last scorer token is kept (:class:`LastScorerToken`), or the club could never write again."""
        with self.writing() as session:
            row = session.get(Token, token_id)
            if row is None or row.club_id != club_id:
                raise NotFound("This club has no token {token} in use.", token=token_id)
            if row.revoked_at is None:
                # the club's scorer tokens in use, locked: two revocations at once cannot both see another left
                scorers = session.scalars(select(Token.id).where(
                    Token.club_id == club_id, Token.role == "scorer", Token.revoked_at.is_(None)).with_for_update())
                if row.role == "scorer" and set(scorers) <= {token_id}:
                    raise LastScorerToken(token_id)
                row.revoked_at = utcnow()
                announce_revoked(session, "token", token_id)  # its open streams end, in every process
            return TokenRecord.of(row)

    def rotate_token(self, club_id: str, token_id: int) -> NewToken:
        """A new secret for a token: a new token with its role and label, the old one revoked, in one step."""
        with self.writing() as session:
            old = self._active_token(session, club_id, token_id)
            new = self._add_token(session, club_id, old.role, old.label)
            old.revoked_at = utcnow()
            announce_revoked(session, "token", token_id)
            return new

    # --- players -------------------------------------------------------------------------------
    def players(self, club_id: str, limit: int = 100, offset: int = 0) -> list[PlayerInfo]:
        """A page of the club's members in alphabetical order, whatever the accents ("Élise" before "Marcel",
        :func:`nj_ledger.names.sort_key`): the order is the language's, not the database's, so it is made here."""
        with self.reading() as session:
            rows = list(session.scalars(select(Player).where(Player.club_id == club_id)))
            rows.sort(key=lambda row: (names.sort_key(row.name), row.id))
            return [PlayerInfo.of(row) for row in rows[offset:offset + limit]]

    def add_player(self, club_id: str, name: str) -> PlayerInfo:
        with self.writing() as session:
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
