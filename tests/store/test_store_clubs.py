"""Clubs, hashed tokens, members, and listing a club's games."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select

from nj_ledger import new_game
from nj_ledger.store import NotFound, PlayerExists, Store
from nj_ledger.store.documents import document_digest, export_document, import_document
from nj_ledger.store.models import Token
from nj_ledger.store.tokens import token_digest


def test_tokens_are_stored_as_digests_and_name_their_club_and_role(store: Store, club) -> None:
    viewer = store.tokens.create_token(club.id, "viewer", "wall screen")
    with store.db.reading() as session:
        digests = set(session.scalars(select(Token.digest).where(Token.club_id == club.id)))
    assert token_digest(viewer.secret) in digests and viewer.secret not in digests
    found = store.authenticate(viewer.secret)
    assert found is not None and (found.club_id, found.role, found.can_write) == (club.id, "viewer", False)
    assert store.authenticate(viewer.secret + "x") is None
    with pytest.raises(NotFound):
        store.tokens.create_token("no-such-club", "scorer")


def test_members_are_unique_per_club_whatever_the_case(store: Store, club) -> None:
    store.clubs.add_player(club.id, "Chloé")
    with pytest.raises(PlayerExists):
        store.clubs.add_player(club.id, "  chloé ")
    store.games.create_game(club.id, new_game(["CHLOÉ", "Denis"], "classic", 40))
    assert [p.name for p in store.clubs.players(club.id)] == ["Chloé", "Denis"]
    other = store.clubs.create_club("Ailleurs")[0]
    store.clubs.add_player(other.id, "Chloé")
    assert store.clubs.club_counts(club.id) == {"players": 2, "games": 1}


def test_games_are_listed_newest_first_and_filtered(store: Store, club) -> None:
    first = store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 40)).game
    second = store.games.create_game(club.id, new_game(["Ana", "Chloé"], "classic", 40)).game
    store.games.append(club.id, first.id, [{"type": "end"}])
    assert [g.id for g in store.games.list_games(club.id)] == [second.id, first.id]
    assert [g.id for g in store.games.list_games(club.id, status="ended")] == [first.id]
    assert [g.id for g in store.games.list_games(club.id, player="chloé")] == [second.id]
    assert [g.id for g in store.games.list_games(club.id, limit=1, offset=1)] == [first.id]
    today = first.played_on
    assert len(store.games.list_games(club.id, played_from=today, played_to=today)) == 2
    assert store.games.list_games(club.id, played_to=date(2000, 1, 1)) == []


def test_an_imported_document_keeps_its_details_and_exports_its_actions(store: Store, club) -> None:
    document = {"format": "nj-ledger/game", "version": 1, "title": "Dimanche", "date": "2026-03-01",
                "players": ["Ana", "Ben", "Chloé"], "rules": "cards", "starting_chips": 60, "dealer": 1,
                "actions": [{"type": "end", "reason": "the cards were missing"}]}
    game = import_document(store.games, club.id, document).game
    assert (game.played_on, game.status) == (date(2026, 3, 1), "ended")
    assert game.meta == {"title": "Dimanche", "date": "2026-03-01"}
    assert store.games.find_game(club.id, document_digest(document)) == game.id
    exported = export_document(store.games, club.id, game.id)
    assert exported["actions"] == document["actions"]
    assert (exported["title"], exported["dealer"], exported["rules"]["payment"]) == ("Dimanche", 1, "cards")
    assert [r["seq"] for r in exported["events"]] == [1, 2, 3]
