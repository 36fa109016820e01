"""Plain values the store hands out (never ORM objects, which belong to a session)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from ..state import GameState
from .models import Club, Game, Player, Share, Token

Record = dict[str, Any]  # {seq, deal, type, data, v, recorded_at, hash}


@dataclass(frozen=True)
class ClubInfo:
    id: str
    name: str
    created_at: datetime

    @classmethod
    def of(cls, row: Club) -> ClubInfo:
        return cls(row.id, row.name, row.created_at)


@dataclass(frozen=True)
class TokenInfo:
    """Who a bearer token speaks for."""

    id: int
    club_id: str
    role: str
    label: str

    @property
    def can_write(self) -> bool:
        return self.role in ("scorer", "director")

    @property
    def is_director(self) -> bool:
        return self.role == "director"


@dataclass(frozen=True)
class ShareInfo(TokenInfo):
    """Who a share's secret speaks for: one game of a club (``resource`` ``"game"``), one evening's results
    (``"evening"``), or the club's scoreboard, read only (its role, ``"share"``, never writes)."""

    resource: str
    game_id: str | None
    evening_id: str | None = None
    screen: bool = False  # an evening share made for the big screen: it reads the tables' codes


@dataclass(frozen=True)
class ShareRecord:
    """A share as its club lists it: never its secret."""

    id: int
    resource: str
    game_id: str | None
    label: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
    evening_id: str | None = None
    screen: bool = False

    @classmethod
    def of(cls, row: Share) -> ShareRecord:
        return cls(row.id, row.resource, row.game_id, row.label, row.created_at, row.last_used_at, row.revoked_at,
                   row.evening_id, bool(row.screen))


@dataclass(frozen=True)
class NewShare:
    """A share just made: the only moment its secret is known."""

    id: int
    club_id: str
    resource: str
    game_id: str | None
    label: str
    secret: str
    created_at: datetime
    evening_id: str | None = None
    screen: bool = False


@dataclass(frozen=True)
class TokenRecord:
    """A token as its club lists it: never its secret."""

    id: int
    role: str
    label: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @classmethod
    def of(cls, row: Token) -> TokenRecord:
        return cls(row.id, row.role, row.label, row.created_at, row.last_used_at, row.revoked_at)


@dataclass(frozen=True)
class NewToken:
    """A token just made: the only moment its secret is known."""

    id: int
    club_id: str
    role: str
    label: str
    secret: str
    created_at: datetime


@dataclass(frozen=True)
class MemberGame:
    """A game a member sat in: its id, day, title (None without one), status, the member's seat and every seat's
    name."""

    game: str
    played_on: date
    title: str | None
    status: str
    seat: int
    players: list[str]


@dataclass(frozen=True)
class PlayerInfo:
    id: int
    name: str
    created_at: datetime

    @classmethod
    def of(cls, row: Player) -> PlayerInfo:
        return cls(row.id, row.name, row.created_at)


@dataclass(frozen=True)
class GameInfo:
    """A game's identity and the summary kept beside its log."""

    id: str
    club_id: str
    created_at: datetime
    updated_at: datetime
    played_on: date
    version: int
    status: str
    profile: str
    players: list[str]
    starting_chips: int
    deals_played: int
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, row: Game) -> GameInfo:
        return cls(
            row.id, row.club_id, row.created_at, row.updated_at, row.played_on, row.version, row.status,
            row.profile, list(row.player_names), row.starting_chips, row.deals_played, dict(row.meta or {}),
        )


@dataclass(frozen=True)
class Appended:
    """What an append (or the creation of a game) stored: the new state and the new records."""

    game: GameInfo
    state: GameState
    records: list[Record]
    receipt: dict[str, Any] | None = None  # the signed receipt of the new head (None when nothing was appended)


@dataclass(frozen=True)
class StoredResponse:
    """The first response given to an idempotent request, returned again for its retries."""

    status: int
    body: dict[str, Any]


@dataclass(frozen=True)
class IdempotentRequest:
    """An ``Idempotency-Key`` with the fingerprint of the request it was sent with."""

    key: str
    fingerprint: str
