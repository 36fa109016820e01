"""Clubs, tokens and members as the API and the command line both ask for them, on both databases."""

from __future__ import annotations

import pytest

from nj_ledger.application import clubs
from nj_ledger.store import ClubInfo, LastScorerToken, NotFound, Store


def test_a_club_is_made_with_its_scorer_token_and_counted(store: Store) -> None:
    club, token = clubs.create_club(store, "Quimper")
    assert token.role == "scorer" and clubs.known_club(store, club.id).name == "Quimper"
    info, counts = clubs.club_with_counts(store, club.id)
    assert info.id == club.id and counts["games"] == 0
    assert [(c.id, games) for c, games in clubs.every_club(store)] == [(club.id, 0)]
    with pytest.raises(NotFound):
        clubs.known_club(store, "nothere")


def test_tokens_a_page_at_a_time_made_rotated_and_revoked(store: Store, club: ClubInfo) -> None:
    viewer = clubs.new_token(store, club.id, "viewer", "bar")
    first = clubs.tokens_page(store, club.id, 1, 0)
    assert len(first.items) == 1 and first.more
    rest = clubs.tokens_page(store, club.id, 10, 1)
    assert [t.id for t in rest.items] == [viewer.id] and not rest.more
    rotated = clubs.rotate_token(store, club.id, viewer.id)
    assert (rotated.role, rotated.label) == ("viewer", "bar")
    assert [t.revoked_at is not None for t in clubs.every_token(store, club.id)] == [False, True, False]
    scorer = clubs.every_token(store, club.id)[0]
    with pytest.raises(LastScorerToken):
        clubs.revoke_token(store, club.id, scorer.id)
    assert clubs.revoke_token(store, club.id, rotated.id).revoked_at is not None
    with pytest.raises(NotFound):
        clubs.every_token(store, "nothere")


def test_members_a_page_at_a_time_and_every_name(store: Store, club: ClubInfo) -> None:
    for name in ("Marcel", "Élise", "ana"):
        clubs.add_player(store, club.id, name)
    page = clubs.players_page(store, club.id, 2, 0)
    assert [p.name for p in page.items] == ["ana", "Élise"] and page.more
    assert not clubs.players_page(store, club.id, 2, 2).more
    assert list(clubs.member_names(store, club.id, page=2)) == ["ana", "Élise", "Marcel"]
