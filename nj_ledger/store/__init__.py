"""The event store: games' logs and the club records around them, in SQLite or PostgreSQL.

This subpackage is the only part of ``nj_ledger`` that imports SQLAlchemy.
Every public method of :class:`Store` is one transaction.

    >>> from nj_ledger import new_game
    >>> store = Store("sqlite://")
    >>> store.create_schema()
    >>> club, token = store.create_club("Les Honneurs")
    >>> created = store.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60))
    >>> appended = store.append(club.id, created.game.id, [{"type": "deal"}])
    >>> appended.game.version, [r["seq"] for r in store.records(club.id, created.game.id)][-1]
    (17, 17)
"""

from __future__ import annotations

from .analyses import AnalysesMixin
from .base import iso, utcnow
from .clubs import ROLES
from .database import default_database_url, make_engine
from .errors import (
    IdempotencyMismatch,
    LastScorerToken,
    LogDamaged,
    NotFound,
    PlayerExists,
    StoreBusy,
    StoreError,
    VersionConflict,
)
from .evening_tables import TABLE_ROLE, NewTableLink, TableInfo, TableScope
from .evenings import EveningInfo, EveningRead, EveningsMixin
from .keys import KeyInfo, SigningKeyError
from .phones import SIGN_IN_LIFE, NewSignInCode, PhonesMixin, SignedIn, SignInCodeInfo
from .recorders import Recorder, recorder_for
from .shares import RESOURCES, SHARE_ROLE
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


class Store(EveningsMixin, PhonesMixin, AnalysesMixin):
    """Clubs, tokens, phones' sign-in codes, shares, players, games' event logs and club evenings in one database.

    ``Store(url)`` connects lazily; the schema comes from the migrations
    (``nj-ledger db upgrade``, :func:`nj_ledger.store.migrate.upgrade`, or
    :meth:`create_schema` on an open store).
    """

    def create_schema(self) -> None:
        """Run the migrations on this store's database (the way to set up a scratch or in-memory one)."""
        from .migrate import upgrade_engine

        upgrade_engine(self.engine)


__all__ = [
    "RESOURCES",
    "ROLES",
    "SHARE_ROLE",
    "SIGN_IN_LIFE",
    "TABLE_ROLE",
    "Appended",
    "ClubInfo",
    "EveningInfo",
    "EveningRead",
    "GameInfo",
    "IdempotencyMismatch",
    "IdempotentRequest",
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
