"""Phones' one-time sign-in codes: the QR code the organiser's screen shows on a room's network (``api.lan``).

A code on a laptop's screen is seen by everyone near it, and a photograph keeps it: a token there would give the
club's write access to whoever took one. So the screen shows a code that signs one phone in, once, within
``SIGN_IN_LIFE``, and the phone exchanges it for a token of its own (an ordinary token: listed, revoked like any
other). The code is 128 random bits, kept as its SHA-256 like a token; using it and making the phone's token are
one transaction, and of two phones sending one code at once, one signs in and the other is told it was used (a
conditional update, which both databases decide one at a time).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import cast

from sqlalchemy import CursorResult, delete, select, update

from .base import Database, utcnow
from .errors import NotFound, SignInCodeExpired, SignInCodeUnknown, SignInCodeUsed
from .models import Club, PhoneCode
from .tokens import PHONE_ROLES, Tokens, token_digest
from .values import ClubInfo, NewToken

SIGN_IN_LIFE = timedelta(minutes=2)  # long enough to scan, short enough that a photograph of it is soon worthless
CODE_BYTES = 16  # 128 bits: never guessed, however many tries the wrong-token limit lets through
KEPT_AFTER_EXPIRY = timedelta(days=1)  # then a code's row goes: its token stays, with its label and date


@dataclass(frozen=True)
class NewSignInCode:
    """A sign-in code just made: the only moment the code itself is known."""

    id: int
    club_id: str
    role: str
    label: str
    secret: str
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class SignInCodeInfo:
    """A sign-in code as the organiser's screen follows it: waiting for its phone, used, or expired."""

    id: int
    club_id: str
    role: str
    label: str
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None
    token_id: int | None

    def status(self, now: datetime | None = None) -> str:
        """``"used"``, ``"expired"`` or ``"waiting"`` (for its phone)."""
        if self.used_at is not None:
            return "used"
        return "expired" if self.expires_at <= (now or utcnow()) else "waiting"

    @classmethod
    def of(cls, row: PhoneCode) -> SignInCodeInfo:
        return cls(row.id, row.club_id, row.role, row.label, _aware(row.created_at), _aware(row.expires_at),
                   None if row.used_at is None else _aware(row.used_at), row.token_id)


@dataclass(frozen=True)
class SignedIn:
    """A phone signed in by its code: its club and its own token."""

    club: ClubInfo
    token: NewToken


def _aware(moment: datetime) -> datetime:
    """A stored moment in UTC (SQLite hands back the moments it stores without their zone)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Phones:
    """Phones' one-time sign-in codes, each exchanged for a token of the phone's own."""

    def __init__(self, db: Database, tokens: Tokens) -> None:
        self.db = db
        self.tokens = tokens

    def create_sign_in_code(self, club_id: str, role: str = "scorer", label: str = "",
                            life: timedelta = SIGN_IN_LIFE) -> NewSignInCode:
        """A code that signs one phone in to the club with ``role`` (its token labelled ``label``), for ``life``.

        >>> from nj_ledger.store import Store
        >>> store = Store("sqlite://"); store.create_schema()
        >>> club, _ = store.clubs.create_club("Les Honneurs")
        >>> code = store.phones.create_sign_in_code(club.id, "viewer", "Ana's phone")
        >>> phone = store.phones.sign_in_with_code(code.secret)
        >>> (phone.club.id == club.id, phone.token.role, store.authenticate(phone.token.secret).label)
        (True, 'viewer', "Ana's phone")
        """
        if role not in PHONE_ROLES:
            raise ValueError("role must be scorer or viewer")
        secret = secrets.token_urlsafe(CODE_BYTES)
        now = utcnow()
        with self.db.writing() as session:
            if session.get(Club, club_id) is None:
                raise NotFound("There is no club {club!r}.", club=club_id)
            session.execute(delete(PhoneCode).where(PhoneCode.expires_at < now - KEPT_AFTER_EXPIRY))
            row = PhoneCode(club_id=club_id, role=role, digest=token_digest(secret), label=label, created_at=now,
                            expires_at=now + life)
            session.add(row)
            session.flush()
            return NewSignInCode(row.id, club_id, role, label, secret, now, now + life)

    def sign_in_code(self, club_id: str, code_id: int) -> SignInCodeInfo:
        """A code of the club, as it stands (never the code itself)."""
        with self.db.reading() as session:
            row = session.get(PhoneCode, code_id)
            if row is None or row.club_id != club_id:
                raise NotFound("This club has no sign-in code {code}.", code=code_id)
            return SignInCodeInfo.of(row)

    def withdraw_sign_in_code(self, club_id: str, code_id: int) -> SignInCodeInfo:
        """End a code that no phone used yet, at once (the organiser is done): it expires now. A used or expired
        code stays as it is."""
        now = utcnow()
        with self.db.writing() as session:
            row = session.get(PhoneCode, code_id)
            if row is None or row.club_id != club_id:
                raise NotFound("This club has no sign-in code {code}.", code=code_id)
            if row.used_at is None and _aware(row.expires_at) > now:
                row.expires_at = now
            return SignInCodeInfo.of(row)

    def sign_in_with_code(self, secret: str, now: datetime | None = None) -> SignedIn:
        """Use a code: the phone's own token, made in the same transaction as the code is marked used. Refused
        (and nothing written) when the code is unknown (:class:`SignInCodeUnknown`), used
        (:class:`SignInCodeUsed`) or expired (:class:`SignInCodeExpired`)."""
        digest = token_digest(secret)
        with self.db.writing() as session:
            now = now or utcnow()
            row = session.scalars(select(PhoneCode).where(PhoneCode.digest == digest)).first()
            # looked up by digest; compared again in constant time, so equality is not decided by the index
            if row is None or not hmac.compare_digest(row.digest, digest):
                raise SignInCodeUnknown()
            if row.used_at is not None:
                raise SignInCodeUsed()
            if _aware(row.expires_at) <= now:
                raise SignInCodeExpired()
            claimed = cast(CursorResult[object], session.execute(
                update(PhoneCode).where(PhoneCode.id == row.id, PhoneCode.used_at.is_(None))
                .values(used_at=now).execution_options(synchronize_session=False)))
            if claimed.rowcount != 1:  # another phone used it between our read and our write
                raise SignInCodeUsed()
            token = self.tokens.add(session, row.club_id, row.role, row.label)
            session.execute(update(PhoneCode).where(PhoneCode.id == row.id).values(token_id=token.id)
                            .execution_options(synchronize_session=False))
            club = session.get(Club, row.club_id)
            assert club is not None  # a code's club is never removed
            return SignedIn(ClubInfo.of(club), token)
