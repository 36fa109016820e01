"""A club's tokens: made, found by their secret at every request, revoked and rotated."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from .base import Database, utcnow
from .cache import Remembered
from .errors import DirectorsOnly, LastScorerToken, NotFound
from .followers import announce_revoked
from .models import Club, Token
from .values import NewToken, TokenInfo, TokenRecord

DIRECTOR = "director"  # the club's director: what a scorer may do, and the decisions only the director takes
ROLES = (DIRECTOR, "scorer", "viewer")
WRITERS = (DIRECTOR, "scorer")
PHONE_ROLES = ("scorer", "viewer")  # what a phone signed in by a code may be: never the club's director
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




def _directors_only(role: str, by: str | None) -> None:
    if role == DIRECTOR and by not in (None, DIRECTOR):
        raise DirectorsOnly()


class Tokens:
    """A club's tokens (role ``director``, ``scorer`` or ``viewer``): one of the credentials a request may carry.

    A director's token is made, revoked and rotated by a director only (``by``, the role of who asks; None: the
    server's operator, on its command line)."""

    def __init__(self, db: Database, cache_size: int = 512) -> None:
        self.db = db
        self.marked: Remembered[float] = Remembered(cache_size)  # token id -> when this process noted its use

    def add(self, session: Session, club_id: str, role: str, label: str) -> NewToken:
        """A new token of ``club_id`` in ``session``'s transaction (a club's first, a phone signed in…)."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}")
        secret = secrets.token_urlsafe(32)
        row = Token(club_id=club_id, role=role, digest=token_digest(secret), label=label, created_at=utcnow())
        session.add(row)
        session.flush()
        return NewToken(row.id, club_id, role, label, secret, row.created_at)

    def create_token(self, club_id: str, role: str = "scorer", label: str = "", by: str | None = None) -> NewToken:
        _directors_only(role, by)
        with self.db.writing() as session:
            if session.get(Club, club_id) is None:
                raise NotFound("There is no club {club!r}.", club=club_id)
            return self.add(session, club_id, role, label)

    def authenticate(self, secret: str) -> TokenInfo | None:
        """The club and role a bearer token speaks for, or None (unknown or revoked).

        Read from the database at every call, never from a cache: a token revoked
        by one worker is refused by all of them at once.
        """
        digest = token_digest(secret)
        rows = self.db.recorder.lookup(self.db.engine, _FIND_TOKEN, (digest,))
        # The lookup is by digest; compare again in constant time so equality is not decided by the index.
        if not rows or not hmac.compare_digest(rows[0][4], digest):
            return None
        token_id, club_id, role, label, _ = rows[0]
        now = time.monotonic()
        marked = self.marked.get(str(token_id))
        if marked is None or now - marked >= LAST_USED_GRAIN.total_seconds():
            self.marked.put(str(token_id), now)
            self._mark_used(token_id, utcnow())
        return TokenInfo(token_id, club_id, role, label)

    def _mark_used(self, token_id: int, now: datetime) -> None:
        """Note that a token was used (best effort: a busy database does not fail the request for it)."""
        try:
            with self.db.writing_if_free() as connection:
                if connection is not None:
                    connection.execute(_MARK_USED, {"token_id": token_id, "now": now})
        except DBAPIError:
            pass

    def tokens(self, club_id: str, limit: int = 100, offset: int = 0) -> list[TokenRecord]:
        """A club's tokens, oldest first, revoked ones too (never their secrets)."""
        with self.db.reading() as session:
            rows = session.scalars(select(Token).where(Token.club_id == club_id).order_by(Token.id)
                                   .limit(limit).offset(offset))
            return [TokenRecord.of(row) for row in rows]

    def _active_token(self, session: Session, club_id: str, token_id: int) -> Token:
        row = session.get(Token, token_id)
        if row is None or row.club_id != club_id or row.revoked_at is not None:
            raise NotFound("This club has no token {token} in use.", token=token_id)
        return row

    def revoke_token(self, club_id: str, token_id: int, by: str | None = None) -> TokenRecord:
        """Refuse a token from now on (every worker at once). Revoking a revoked token changes nothing; the
        club's last token that may write (a scorer's or the director's) is kept (:class:`LastScorerToken`), or the
        club could never write again."""
        with self.db.writing() as session:
            row = session.get(Token, token_id)
            if row is None or row.club_id != club_id:
                raise NotFound("This club has no token {token} in use.", token=token_id)
            _directors_only(row.role, by)
            if row.revoked_at is None:
                # the club's writing tokens in use, locked: two revocations at once cannot both see another left
                writers = session.scalars(select(Token.id).where(
                    Token.club_id == club_id, Token.role.in_(WRITERS), Token.revoked_at.is_(None)).with_for_update())
                if row.role in WRITERS and set(writers) <= {token_id}:
                    raise LastScorerToken(token_id)
                row.revoked_at = utcnow()
                announce_revoked(session, "token", token_id)  # its open streams end, in every process
            return TokenRecord.of(row)

    def rotate_token(self, club_id: str, token_id: int, by: str | None = None) -> NewToken:
        """A new secret for a token: a new token with its role and label, the old one revoked, in one step."""
        with self.db.writing() as session:
            old = self._active_token(session, club_id, token_id)
            _directors_only(old.role, by)
            new = self.add(session, club_id, old.role, old.label)
            old.revoked_at = utcnow()
            announce_revoked(session, "token", token_id)
            return new
