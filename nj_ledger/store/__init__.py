"""The event store: games' logs and the club records around them, in SQLite or PostgreSQL.

This subpackage is the only part of ``nj_ledger`` that imports SQLAlchemy.
Every public method of a part of the :class:`Store` (``store.games``, ``store.clubs``…) is one transaction.

    >>> from nj_ledger import new_game
    >>> store = Store("sqlite://")
    >>> store.create_schema()
    >>> club, token = store.clubs.create_club("Les Honneurs")
    >>> created = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60))
    >>> appended = store.games.append(club.id, created.game.id, [{"type": "deal"}])
    >>> appended.game.version, [r["seq"] for r in store.games.records(club.id, created.game.id)][-1]
    (17, 17)
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import Engine

from .analyses import Analyses
from .base import Database, iso, utcnow
from .clubs import Clubs
from .database import default_database_url, make_engine
from .erasures import ErasureInfo, Erasures
from .errors import (
    AlreadyErased,
    DirectorsDecide,
    DirectorsOnly,
    IdempotencyMismatch,
    LastScorerToken,
    LogDamaged,
    NotFound,
    PlayerExists,
    StoreBusy,
    StoreError,
    VersionConflict,
)
from .evening_tables import TABLE_ROLE, NewTableLink, TableInfo, TableScope, TableTokens
from .evenings import EveningInfo, EveningRead, Evenings
from .games import Games
from .imports import ClubImports, ImportedClub
from .keys import KeyInfo, Keys, SigningKeyError
from .phones import SIGN_IN_LIFE, NewSignInCode, Phones, SignedIn, SignInCodeInfo
from .recorders import Recorder, recorder_for
from .shares import RESOURCES, SHARE_ROLE, Shares
from .tokens import DIRECTOR, PHONE_ROLES, ROLES, Tokens
from .values import (
    Appended,
    ClubInfo,
    GameInfo,
    IdempotentRequest,
    NewShare,
    NewToken,
    PlayerInfo,
    Record,
    ShareInfo,
    ShareRecord,
    StoredResponse,
    TokenInfo,
    TokenRecord,
)


class Store:
    """Clubs, tokens, phones' sign-in codes, shares, players, games' event logs and club evenings in one database:
    small parts, each over the one :class:`Database` (its engines, transactions and :class:`Recorder`), composed
    here — ``store.games.append(…)``, ``store.clubs.create_club(…)`` — and the credentials a request may carry,
    tried in turn by :meth:`authenticate`.

    ``Store(url)`` connects lazily; the schema comes from the migrations
    (``nj-ledger db upgrade``, :func:`nj_ledger.store.migrate.upgrade`, or
    :meth:`create_schema` on an open store).
    """

    def __init__(self, url: str | None = None, *, engine: Engine | None = None, cache_size: int = 512) -> None:
        self.db = Database(url, engine=engine)
        self.keys = Keys(self.db)
        self.tokens = Tokens(self.db, cache_size)
        self.clubs = Clubs(self.db, self.tokens)
        self.shares = Shares(self.db, cache_size)
        self.tables = TableTokens(self.db)
        self.phones = Phones(self.db, self.tokens)
        self.games = Games(self.db, self.keys, cache_size)
        self.evenings = Evenings(self.db, self.games, self.keys, self.tables, cache_size)
        self.analyses = Analyses(self.db)
        self.erasures = Erasures(self.db, self.keys, self.games)
        self.imports = ClubImports(self.db, self.keys, self.tokens, self.games, self.evenings)
        # who a secret may speak for, asked in this order: a club token (the most requests carry one: they cost
        # one lookup), a share link, an evening's table token
        self.credentials: tuple[Credential, ...] = (self.tokens, self.shares, self.tables)

    def authenticate(self, secret: str) -> TokenInfo | None:
        """Who a bearer secret speaks for — a club token, a share (:class:`ShareInfo`) or a table token
        (:class:`TableInfo`) — or None: read from the database at every call (a credential revoked by one worker
        is refused by all at once).

        >>> store = Store("sqlite://"); store.create_schema()
        >>> club, token = store.clubs.create_club("Le Nain du Jeudi")
        >>> store.authenticate(token.secret).club_id == club.id, store.authenticate("nope")
        (True, None)
        """
        for credential in self.credentials:
            found = credential.authenticate(secret)
            if found is not None:
                return found
        return None

    def create_schema(self) -> None:
        """Run the migrations on this store's database (the way to set up a scratch or in-memory one)."""
        from .migrate import upgrade_engine

        upgrade_engine(self.db.engine)

    def close(self) -> None:
        """Stop this store's threads and close its connections."""
        self.db.close()


class Credential(Protocol):
    """A part of the store that knows secrets of one kind."""

    def authenticate(self, secret: str) -> TokenInfo | None: ...


__all__ = [
    "DIRECTOR",
    "PHONE_ROLES",
    "RESOURCES",
    "ROLES",
    "SHARE_ROLE",
    "SIGN_IN_LIFE",
    "TABLE_ROLE",
    "AlreadyErased",
    "Appended",
    "ClubInfo",
    "DirectorsDecide",
    "DirectorsOnly",
    "ErasureInfo",
    "EveningInfo",
    "EveningRead",
    "GameInfo",
    "IdempotencyMismatch",
    "IdempotentRequest",
    "ImportedClub",
    "KeyInfo",
    "LastScorerToken",
    "LogDamaged",
    "NewShare",
    "NewSignInCode",
    "NewTableLink",
    "NewToken",
    "NotFound",
    "PlayerExists",
    "PlayerInfo",
    "Record",
    "Recorder",
    "ShareInfo",
    "ShareRecord",
    "SignInCodeInfo",
    "SignedIn",
    "SigningKeyError",
    "Store",
    "StoreBusy",
    "StoreError",
    "StoredResponse",
    "TableInfo",
    "TableScope",
    "TokenInfo",
    "TokenRecord",
    "VersionConflict",
    "default_database_url",
    "iso",
    "make_engine",
    "recorder_for",
    "utcnow",
]
