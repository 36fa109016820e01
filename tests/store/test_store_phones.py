"""Phones' one-time sign-in codes: one phone, once, within minutes; the phone's token an ordinary one."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from nj_ledger.store import SIGN_IN_LIFE, ClubInfo, Store, utcnow
from nj_ledger.store.errors import NotFound, SignInCodeExpired, SignInCodeUnknown, SignInCodeUsed
from nj_ledger.store.models import PhoneCode
from nj_ledger.store.tokens import token_digest


def test_a_code_signs_one_phone_in_with_a_token_of_its_own_and_never_a_second(store: Store, club: ClubInfo) -> None:
    code = store.phones.create_sign_in_code(club.id, "scorer", "phone (QR code), 27 Nov, 20:14")
    assert len(code.secret) >= 22 and code.expires_at - code.created_at == SIGN_IN_LIFE
    assert store.phones.sign_in_code(club.id, code.id).status() == "waiting"
    with store.db.reading() as session:  # only its digest is kept
        assert session.scalar(select(PhoneCode.digest).where(PhoneCode.id == code.id)) == token_digest(code.secret)
    phone = store.phones.sign_in_with_code(code.secret)
    assert (phone.club.id, phone.club.name, phone.token.role) == (club.id, club.name, "scorer")
    assert phone.token.label == "phone (QR code), 27 Nov, 20:14"
    found = store.authenticate(phone.token.secret)
    assert found is not None and (found.club_id, found.id) == (club.id, phone.token.id)
    used = store.phones.sign_in_code(club.id, code.id)
    assert used.status() == "used" and used.token_id == phone.token.id and used.used_at is not None
    with pytest.raises(SignInCodeUsed):
        store.phones.sign_in_with_code(code.secret)
    store.tokens.revoke_token(club.id, phone.token.id)  # an ordinary token: revoked like any other
    assert store.authenticate(phone.token.secret) is None


def test_an_expired_a_withdrawn_or_an_unknown_code_signs_nobody_in(store: Store, club: ClubInfo) -> None:
    tokens = len(store.tokens.tokens(club.id))
    code = store.phones.create_sign_in_code(club.id, "viewer")
    with pytest.raises(SignInCodeExpired):
        store.phones.sign_in_with_code(code.secret, now=code.expires_at)
    assert store.phones.sign_in_code(club.id, code.id).status(code.expires_at) == "expired"
    withdrawn = store.phones.create_sign_in_code(club.id)
    assert store.phones.withdraw_sign_in_code(club.id, withdrawn.id).status() == "expired"
    with pytest.raises(SignInCodeExpired):
        store.phones.sign_in_with_code(withdrawn.secret)
    with pytest.raises(SignInCodeUnknown):
        store.phones.sign_in_with_code("x" * 22)
    assert len(store.tokens.tokens(club.id)) == tokens  # no token made for nothing
    with pytest.raises(ValueError, match="role"):
        store.phones.create_sign_in_code(club.id, "admin")


def test_a_clubs_codes_are_its_own(store: Store, club: ClubInfo) -> None:
    other, _ = store.clubs.create_club("Autre club")
    code = store.phones.create_sign_in_code(club.id)
    for action in (store.phones.sign_in_code, store.phones.withdraw_sign_in_code):
        with pytest.raises(NotFound):
            action(other.id, code.id)
    with pytest.raises(NotFound):
        store.phones.create_sign_in_code("nosuchclub00")


def test_two_phones_sending_one_code_at_once_one_signs_in(store: Store, club: ClubInfo) -> None:
    for _ in range(5):
        code = store.phones.create_sign_in_code(club.id)
        start = threading.Barrier(2)
        outcomes: list[str] = []

        def use(secret: str = code.secret, start: threading.Barrier = start, outcomes: list[str] = outcomes) -> None:
            start.wait()
            try:
                store.phones.sign_in_with_code(secret)
                outcomes.append("signed in")
            except SignInCodeUsed:
                outcomes.append("used")

        phones = [threading.Thread(target=use) for _ in range(2)]
        for phone in phones:
            phone.start()
        for phone in phones:
            phone.join(30)
        assert sorted(outcomes) == ["signed in", "used"]
        assert store.phones.sign_in_code(club.id, code.id).token_id is not None


def test_codes_long_expired_are_removed_when_a_new_one_is_made(store: Store, club: ClubInfo) -> None:
    old = store.phones.create_sign_in_code(club.id, life=timedelta(days=-2))
    recent = store.phones.create_sign_in_code(club.id, life=timedelta(seconds=-1))
    store.phones.create_sign_in_code(club.id)
    with store.db.reading() as session:  # by digest: SQLite gives a removed row's id to the next one
        kept = set(session.scalars(select(PhoneCode.digest).where(PhoneCode.club_id == club.id)))
        assert token_digest(old.secret) not in kept and token_digest(recent.secret) in kept
        assert session.scalar(select(func.count()).select_from(PhoneCode).where(
            PhoneCode.expires_at < utcnow() - timedelta(days=1))) == 0
