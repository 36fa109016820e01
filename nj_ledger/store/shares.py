"""Shares: read-only links to one game or to a club's scoreboard.

A share is a secret, like a token, kept only as the SHA-256 of its secret and looked up at every request (a
revoked share is refused at once, by every worker, and the streams it opened end: :mod:`.followers`). It speaks
for its club with the role ``share``, which never writes; which routes it reaches (its game's, or the scoreboard)
is the API's to enforce (:mod:`api.auth`).
"""

from __future__ import annotations

import hmac
import secrets
import time
from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.exc import DBAPIError

from .base import Database, utcnow
from .cache import Remembered
from .errors import NotFound
from .followers import announce_revoked
from .models import Club, Evening, Game, Share
from .tokens import LAST_USED_GRAIN, token_digest
from .values import NewShare, ShareInfo, ShareRecord, TokenInfo

RESOURCES = ("game", "scoreboard", "evening")
SHARE_ROLE = "share"
_SHARES = cast(Table, Share.__table__)
_FIND_SHARE = ("SELECT id, club_id, resource, game_id, label, digest, evening_id, screen FROM shares "
               "WHERE digest = {mark} AND revoked_at IS NULL")
_MARK_SHARE_USED = (update(_SHARES).where(_SHARES.c.id == bindparam("share_id"))
                    .values(last_used_at=bindparam("now")))


class Shares:
    """Share links: one of the credentials a request may carry."""

    def __init__(self, db: Database, cache_size: int = 512) -> None:
        self.db = db
        self.marked: Remembered[float] = Remembered(cache_size)  # share id -> when this process noted its use

    def create_share(self, club_id: str, game_id: str | None = None, label: str = "", *,
                     evening_id: str | None = None, screen: bool = False) -> NewShare:
        """A share of game ``game_id`` of the club, or of evening ``evening_id`` (its results; with ``screen``, the
        big screen's link, which reads the tables' codes too), or (neither) of the club's scoreboard; its secret is
        in the answer only.

        >>> from nj_ledger import new_game
        >>> from nj_ledger.store import Store
        >>> store = Store("sqlite://"); store.create_schema()
        >>> club, _ = store.clubs.create_club("Les Honneurs")
        >>> game = store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 40)).game
        >>> share = store.shares.create_share(club.id, game.id)
        >>> found = store.authenticate(share.secret)
        >>> (found.role, found.resource, found.game_id == game.id, found.can_write)
        ('share', 'game', True, False)
        """
        with self.db.writing() as session:
            if session.get(Club, club_id) is None:
                raise NotFound("There is no club {club!r}.", club=club_id)
            if game_id is not None:
                game = session.get(Game, game_id)
                if game is None or game.club_id != club_id:
                    raise NotFound("There is no game {game!r} in this club.", game=game_id)
            if screen and evening_id is None:
                raise ValueError("only an evening share is made for the big screen")
            if evening_id is not None:
                evening = session.get(Evening, evening_id)
                if evening is None or evening.club_id != club_id:
                    raise NotFound("There is no evening {evening!r} in this club.", evening=evening_id)
            secret = secrets.token_urlsafe(32)
            resource = "game" if game_id is not None else "evening" if evening_id is not None else "scoreboard"
            row = Share(club_id=club_id, resource=resource, game_id=game_id, evening_id=evening_id,
                        digest=token_digest(secret), label=label, created_at=utcnow(), screen=screen)
            session.add(row)
            session.flush()
            return NewShare(row.id, club_id, row.resource, game_id, label, secret, row.created_at, evening_id, screen)

    def authenticate(self, secret: str) -> TokenInfo | None:
        """The club a share's secret speaks for (role ``share``: :class:`ShareInfo`), or None."""
        digest = token_digest(secret)
        rows = self.db.recorder.lookup(self.db.engine, _FIND_SHARE, (digest,))
        if not rows or not hmac.compare_digest(rows[0][5], digest):
            return None
        share_id, club_id, resource, game_id, label, _, evening_id, screen = rows[0]
        now = time.monotonic()
        key = f"share:{share_id}"
        marked = self.marked.get(key)
        if marked is None or now - marked >= LAST_USED_GRAIN.total_seconds():
            self.marked.put(key, now)
            self._mark_share_used(share_id, utcnow())
        return ShareInfo(share_id, club_id, SHARE_ROLE, label, resource, game_id, evening_id, bool(screen))

    def _mark_share_used(self, share_id: int, now: datetime) -> None:
        try:
            with self.db.writing_if_free() as connection:
                if connection is not None:
                    connection.execute(_MARK_SHARE_USED, {"share_id": share_id, "now": now})
        except DBAPIError:
            pass

    def shares(self, club_id: str, *, game_id: str | None = None, resource: str | None = None,
               in_use: bool | None = None, limit: int = 100, offset: int = 0,
               evening_id: str | None = None) -> list[ShareRecord]:
        """A club's shares, oldest first (of one game, of one kind, only those in use: as asked), never their
        secrets."""
        query = select(Share).where(Share.club_id == club_id)
        if game_id is not None:
            query = query.where(Share.game_id == game_id)
        if evening_id is not None:
            query = query.where(Share.evening_id == evening_id)
        if resource is not None:
            query = query.where(Share.resource == resource)
        if in_use is not None:
            query = query.where(Share.revoked_at.is_(None) if in_use else Share.revoked_at.is_not(None))
        with self.db.reading() as session:
            rows = session.scalars(query.order_by(Share.id).limit(limit).offset(offset))
            return [ShareRecord.of(row) for row in rows]

    def revoke_share(self, club_id: str, share_id: int) -> ShareRecord:
        """Refuse a share from now on (every worker at once); revoking it again changes nothing."""
        with self.db.writing() as session:
            row = session.get(Share, share_id)
            if row is None or row.club_id != club_id:
                raise NotFound("This club has no share {share}.", share=share_id)
            if row.revoked_at is None:
                row.revoked_at = utcnow()
                announce_revoked(session, "share", share_id)  # its open streams end, in every process
            return ShareRecord.of(row)
