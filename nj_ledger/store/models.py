"""The tables of the event store, as typed SQLAlchemy models.

``events`` is the log: one row per event, appended and never updated or
deleted. Everything else is either who may write or read (clubs, tokens, shares), who plays
(players, game_players), a denormalised summary of each game for listing
(``games``: version, status, player names, head hash), or the memory of
idempotent requests. Alembic's migrations in ``migrations/`` create the same
schema from :data:`Base.metadata`.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Constraint names that stay the same on every database, so migrations can name them.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

JSONValue = JSON().with_variant(JSONB(), "postgresql")
Timestamp = DateTime(timezone=True)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        dict[str, Any]: JSONValue, list[str]: JSONValue, datetime: Timestamp,
    }


class Club(Base):
    __tablename__ = "clubs"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime]


class Token(Base):
    """A club's bearer token; only the SHA-256 digest of the secret is kept."""

    __tablename__ = "tokens"
    __table_args__ = (CheckConstraint("role IN ('director', 'scorer', 'viewer')", name="role"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"), index=True)
    role: Mapped[str] = mapped_column(String(16))
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]  # kept to the minute: a write at most once a minute per token
    revoked_at: Mapped[datetime | None]  # a revoked token is refused at once; the row stays for the record


class PhoneCode(Base):
    """A one-time code that signs a phone in (the QR code of the home page on a room's network); only the SHA-256
    digest of the code is kept. It signs one phone in (``used_at``, then ``token_id``: the phone's own token),
    within minutes of being made (``expires_at``)."""

    __tablename__ = "phone_codes"
    __table_args__ = (CheckConstraint("role IN ('scorer', 'viewer')", name="role"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"), index=True)
    role: Mapped[str] = mapped_column(String(16))
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)  # codes long expired are removed by that index
    used_at: Mapped[datetime | None]
    token_id: Mapped[int | None] = mapped_column(ForeignKey("tokens.id"))


class Share(Base):
    """A read-only link to one game, to the club's scoreboard or to an evening's results; only the SHA-256 digest
    of its secret is kept.

    ``game_id`` names the shared game, ``evening_id`` the shared evening; a share without either shares the club's
    scoreboard. ``screen`` marks an evening share made for the big screen: only such a share reads the codes of
    the evening's tables (which join a table), a results link never does.
    """

    __tablename__ = "shares"
    __table_args__ = (
        CheckConstraint("resource IN ('game', 'scoreboard', 'evening')", name="resource"),
        CheckConstraint("(resource = 'game') = (game_id IS NOT NULL)", name="game"),
        CheckConstraint("(resource = 'evening') = (evening_id IS NOT NULL)", name="evening"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"), index=True)
    resource: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), index=True)
    evening_id: Mapped[str | None] = mapped_column(ForeignKey("evenings.id"), index=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]  # kept to the minute, like a token's
    revoked_at: Mapped[datetime | None]  # a revoked share is refused at once; the row stays for the record
    screen: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class SigningKey(Base):
    """A public key that signs receipts and checkpoints; the newest one signs, every one still verifies.

    Rows are only ever added (a rotation adds the next key), like the log's.
    """

    __tablename__ = "signing_keys"

    number: Mapped[int] = mapped_column(Integer, primary_key=True)  # the order keys were taken into use
    id: Mapped[str] = mapped_column(String(32), unique=True)  # the start of the public key's SHA-256
    algorithm: Mapped[str] = mapped_column(String(16))
    public_key: Mapped[str] = mapped_column(String(64))  # the raw 32 bytes, base64url
    created_at: Mapped[datetime]
    # A key taken into use after another: the key it follows, the succession signed by this key, and by the
    # key it follows when the rotation held it (nj_ledger.store.keys.trusted_keys)
    predecessor: Mapped[str | None] = mapped_column(String(32))
    endorsement: Mapped[str | None] = mapped_column(String(128))
    handover: Mapped[str | None] = mapped_column(String(128))


class Player(Base):
    """A member of a club; names are unique within a club regardless of case."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("club_id", "name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"))
    name: Mapped[str] = mapped_column(String(80))
    name_key: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime]


class Game(Base):
    """One game: its identity, and a summary of its log kept in step with every append."""

    __tablename__ = "games"
    __table_args__ = (
        Index(None, "club_id", "created_at"),
        Index(None, "club_id", "source_digest"),
        Index(None, "club_id", "played_on", "created_at"),  # the lists' order: newest day first
    )

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    played_on: Mapped[date] = mapped_column(Date)
    version: Mapped[int] = mapped_column(Integer)  # seq of the last event
    head_hash: Mapped[str] = mapped_column(String(64))  # hash of the last event
    status: Mapped[str] = mapped_column(String(16))
    profile: Mapped[str] = mapped_column(String(40))
    player_names: Mapped[list[str]]
    starting_chips: Mapped[int] = mapped_column(Integer)
    deals_played: Mapped[int] = mapped_column(Integer)
    meta: Mapped[dict[str, Any]]  # title, date, table, notes of an imported document
    source_digest: Mapped[str | None] = mapped_column(String(64))  # digest of the imported document


class GamePlayer(Base):
    __tablename__ = "game_players"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)


DEAL_STARTS_WHERE = "type = 'deal'"  # the events of ix_events_deal_starts: the first of each deal


class EventRecord(Base):
    """One event of a game's log. The primary key (game_id, seq) makes seq unique per game."""

    __tablename__ = "events"
    __table_args__ = (
        # the first event of each deal (a deal's records are read from it): one row a deal, not one an event
        Index("ix_events_deal_starts", "game_id", "deal", "seq", sqlite_where=text(DEAL_STARTS_WHERE),
              postgresql_where=text(DEAL_STARTS_WHERE)),
        CheckConstraint("seq >= 1", name="seq_positive"),
    )

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    deal: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(24))
    # Plain JSON on every back end (not JSONB): the text is kept as written, key order included,
    # and the core reads some objects in order (a board's boxes).
    data: Mapped[dict[str, Any]] = mapped_column(JSON())
    v: Mapped[int] = mapped_column(Integer)
    # Kept as the exact text that was hashed, so the chain verifies without reformatting a timestamp.
    recorded_at: Mapped[str] = mapped_column(String(32))
    hash: Mapped[str] = mapped_column(String(64))


class ClubFeedRecord(Base):
    """A game created, a deal ended or a game ended in one of the club's games, at its position in the club's
    feed (gap-free from 1, given in the order the transactions commit: see ``writes.insert_feed``)."""

    __tablename__ = "club_feed"
    __table_args__ = (CheckConstraint("position >= 1", name="position_positive"),)

    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    seq: Mapped[int] = mapped_column(Integer)
    deal: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(24))
    recorded_at: Mapped[str] = mapped_column(String(32))


class IdempotencyRecord(Base):
    """The first response to a request sent with an ``Idempotency-Key``, scoped to a club."""

    __tablename__ = "idempotency_keys"

    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class Evening(Base):
    """A club evening: several tables, rounds of games. A summary kept beside its log (``evening_log``), like a
    game's row beside its events: version, head hash and status move with every decision."""

    __tablename__ = "evenings"
    __table_args__ = (
        Index(None, "club_id", "played_on", "created_at"),
        CheckConstraint("status IN ('open', 'closed')", name="status"),
    )

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"))
    name: Mapped[str] = mapped_column(String(120))
    played_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    version: Mapped[int] = mapped_column(Integer)  # seq of the last decision
    head_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))


class EveningEntry(Base):
    """One decision of an evening's director (or a table's confirmation), appended and never updated or deleted;
    hash-chained like a game's events."""

    __tablename__ = "evening_log"
    __table_args__ = (CheckConstraint("seq >= 1", name="seq_positive"),)

    evening_id: Mapped[str] = mapped_column(ForeignKey("evenings.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(JSON())
    by: Mapped[dict[str, Any]] = mapped_column(JSON())  # who made the decision: a token's id, role and label
    recorded_at: Mapped[str] = mapped_column(String(32))
    hash: Mapped[str] = mapped_column(String(64))
    # the entry's schema version (not hashed); the entries stored before it was kept are of version 1
    v: Mapped[int] = mapped_column(Integer, server_default=text("1"))


class EveningTable(Base):
    """A table of an evening: its number and the short code its page is opened by (not a secret)."""

    __tablename__ = "evening_tables"

    evening_id: Mapped[str] = mapped_column(ForeignKey("evenings.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    created_at: Mapped[datetime]


class TableToken(Base):
    """A secret that reaches one table's games of one evening only; the SHA-256 digest of it is kept. A table may
    have several (a link printed again); all stop writing when the evening closes."""

    __tablename__ = "table_tokens"
    __table_args__ = (Index(None, "evening_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"))
    evening_id: Mapped[str] = mapped_column(ForeignKey("evenings.id"))
    number: Mapped[int] = mapped_column(Integer)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]


class DealAnalysis(Base):
    """A settled deal's analysis by the solver (docs/ANALYSIS.md), a projection of the log: kept for the deal as
    its events stood (its last event's seq and hash), so an undo or a redo in the deal makes another."""

    __tablename__ = "deal_analyses"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    head_seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    head_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    body: Mapped[dict[str, Any]] = mapped_column(JSONValue)
    computed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ErasureRecord(Base):
    """A member's erasure, decided by the club's director: who was erased (the member's id and the pseudonym
    that now stands for them), why, by which token, when; chained after the club's erasures before it (``hash``)
    and signed (``receipt``). It holds no personal data. Appended and never updated or deleted."""

    __tablename__ = "erasures"
    __table_args__ = (CheckConstraint("number >= 1", name="number_positive"),)

    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)  # the club's erasures, gap-free from 1
    member_id: Mapped[int] = mapped_column(ForeignKey("players.id"), unique=True)
    pseudonym: Mapped[str] = mapped_column(String(80))
    reason: Mapped[str] = mapped_column(String(500))
    by: Mapped[dict[str, Any]] = mapped_column(JSON())  # the deciding token's id and role
    recorded_at: Mapped[str] = mapped_column(String(32))
    hash: Mapped[str] = mapped_column(String(64))
    receipt: Mapped[dict[str, Any] | None] = mapped_column(JSON())


class RedactionRecord(Base):
    """One record of a log (a game's event, an evening's decision) whose personal content an erasure redacted:
    the hash before it and its own hash as the chain holds them, and ``redacted``, the link of its content as
    the erasure left it (:func:`nj_ledger.chain.redaction_holds`). Appended and never updated or deleted."""

    __tablename__ = "redactions"
    __table_args__ = (
        ForeignKeyConstraint(["club_id", "erasure"], ["erasures.club_id", "erasures.number"]),
        Index(None, "log", "log_id", "seq"),
        CheckConstraint("log IN ('game', 'evening')", name="log"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(String(24))
    erasure: Mapped[int] = mapped_column(Integer)
    log: Mapped[str] = mapped_column(String(8))
    log_id: Mapped[str] = mapped_column(String(24))
    seq: Mapped[int] = mapped_column(Integer)
    previous: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))
    redacted: Mapped[str] = mapped_column(String(64))
    # the SHA-256 of the record's content as redacted (its data's JSON text, and an evening decision's ``by`` after a
    # newline): the logs' triggers let an update through only to it (migration 0018; None for a redaction before)
    content: Mapped[str | None] = mapped_column(String(64))
