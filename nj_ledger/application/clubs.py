"""Clubs, their tokens and their members: a club made with its first scorer token, its tokens listed, made,
revoked and rotated, its members listed and registered."""

from __future__ import annotations

from collections.abc import Iterator

from ..store import ClubInfo, NewToken, PlayerInfo, Store, TokenRecord
from .listing import Page

EVERY_TOKEN = 10_000  # tokens listed at most at once for a club's operator (no club makes that many)
MEMBERS_PAGE = 500  # members read at once when every name is needed


def create_club(store: Store, name: str) -> tuple[ClubInfo, NewToken]:
    """A new club, and its first scorer token (its secret shown once)."""
    return store.clubs.create_club(name)


def known_club(store: Store, club: str) -> ClubInfo:
    """The club ``club`` (NotFound for none)."""
    return store.clubs.club(club)


def club_with_counts(store: Store, club: str) -> tuple[ClubInfo, dict[str, int]]:
    """The club, with how many members and games it has."""
    return store.clubs.club(club), store.clubs.club_counts(club)


def every_club(store: Store) -> list[tuple[ClubInfo, int]]:
    """Every club, oldest first, with how many games it has."""
    return store.clubs.list_clubs()


def tokens_page(store: Store, club: str, limit: int, offset: int) -> Page[TokenRecord]:
    """A page of the club's tokens, oldest first, the revoked ones too."""
    found = store.tokens.tokens(club, limit + 1, offset)
    return Page(found[:limit], len(found) > limit)


def every_token(store: Store, club: str) -> list[TokenRecord]:
    """Every token of the club ``club`` (NotFound for no such club), oldest first, the revoked ones too."""
    return store.tokens.tokens(known_club(store, club).id, limit=EVERY_TOKEN)


def new_token(store: Store, club: str, role: str, label: str, by: str | None = None) -> NewToken:
    """A new token of the club with a role (``director``, ``scorer`` or ``viewer``) and a label; its secret is
    shown once. ``by``: the role of who asks (None: the server's operator); a director's token is a director's
    to make."""
    return store.tokens.create_token(club, role, label, by)


def revoke_token(store: Store, club: str, token: int, by: str | None = None) -> TokenRecord:
    """Revoke a token of the club (again: no change); the club's last token that may write is refused, a
    director's is a director's to revoke."""
    return store.tokens.revoke_token(club, token, by)


def rotate_token(store: Store, club: str, token: int, by: str | None = None) -> NewToken:
    """A new secret for a token: a new token with its role and label, the old one revoked (a director's, by a
    director)."""
    return store.tokens.rotate_token(club, token, by)


def players_page(store: Store, club: str, limit: int, offset: int) -> Page[PlayerInfo]:
    """A page of the club's members, alphabetically whatever the accents and the case."""
    found = store.clubs.players(club, limit + 1, offset)
    return Page(found[:limit], len(found) > limit)


def add_player(store: Store, club: str, name: str) -> PlayerInfo:
    """Register a member (refused when the name is taken, whatever its case)."""
    return store.clubs.add_player(club, name)


def member_names(store: Store, club: str, page: int = MEMBERS_PAGE) -> Iterator[str]:
    """Every member's name, read a page at a time."""
    offset = 0
    while True:
        found = store.clubs.players(club, page, offset)
        yield from (player.name for player in found)
        if len(found) < page:
            return
        offset += page
