"""Shares in the store: made for a game of the club or its scoreboard, found by their secret, revoked at once;
the migration that adds them goes up and down on both databases."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from benchmarks.scratch import scratch_postgres, scratch_sqlite
from nj_ledger import new_game
from nj_ledger.store import ClubInfo, NotFound, ShareInfo, Store, iso, make_engine
from nj_ledger.store.migrate import alembic_config, current_revision, head_revision, upgrade
from nj_ledger.store.tokens import token_digest


def test_a_share_speaks_for_its_game_read_only(store: Store, club: ClubInfo) -> None:
    game = store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 40)).game
    made = store.shares.create_share(club.id, game.id, "famille")
    found = store.authenticate(made.secret)
    assert isinstance(found, ShareInfo)
    assert (found.club_id, found.role, found.resource, found.game_id, found.label, found.can_write) == (
        club.id, "share", "game", game.id, "famille", False)
    board = store.authenticate(store.shares.create_share(club.id).secret)
    assert isinstance(board, ShareInfo) and (board.resource, board.game_id) == ("scoreboard", None)
    assert store.authenticate(made.secret + "x") is None


def test_a_club_token_is_still_found_first_and_is_no_share(store: Store) -> None:
    _, token = store.clubs.create_club("Les Honneurs")
    found = store.authenticate(token.secret)
    assert found is not None and not isinstance(found, ShareInfo) and found.can_write


def test_a_share_of_another_clubs_game_is_refused(store: Store, club: ClubInfo) -> None:
    other, _ = store.clubs.create_club("Les Voisins")
    game = store.games.create_game(other.id, new_game(["Ana", "Ben"], "classic", 40)).game
    with pytest.raises(NotFound):
        store.shares.create_share(club.id, game.id)
    with pytest.raises(NotFound):
        store.shares.create_share("no-such-club")
    assert store.shares.shares(club.id) == [] and store.shares.shares(other.id) == []


def test_revoking_a_share_refuses_it_at_once_and_keeps_its_row(store: Store, club: ClubInfo) -> None:
    made = store.shares.create_share(club.id)
    revoked = store.shares.revoke_share(club.id, made.id)
    assert revoked.revoked_at is not None and store.authenticate(made.secret) is None
    again = store.shares.revoke_share(club.id, made.id)  # nothing changes
    assert again.revoked_at is not None and iso(again.revoked_at) == iso(revoked.revoked_at)
    assert [share.id for share in store.shares.shares(club.id, in_use=False)] == [made.id]
    assert store.shares.shares(club.id, in_use=True) == []
    other, _ = store.clubs.create_club("Les Voisins")
    with pytest.raises(NotFound):
        store.shares.revoke_share(other.id, made.id)


def test_the_database_keeps_a_share_to_one_resource(store: Store, club: ClubInfo) -> None:
    for resource, game in (("game", None), ("scoreboard", "x"), ("club", None)):
        with pytest.raises(IntegrityError), store.db.writing() as session:
            session.execute(text(
                "INSERT INTO shares (club_id, resource, game_id, digest, label, created_at) "
                "VALUES (:club, :resource, :game, :digest, '', CURRENT_TIMESTAMP)"),
                {"club": club.id, "resource": resource, "game": game, "digest": token_digest(resource)})


@pytest.fixture
def empty_url(backend: str, tmp_path):
    with (scratch_sqlite(tmp_path) if backend == "sqlite" else scratch_postgres()) as url:
        yield url


def test_the_shares_migration_goes_up_and_down(empty_url: str) -> None:
    from alembic import command

    upgrade(empty_url, "0004")
    engine = make_engine(empty_url)
    try:
        assert "shares" not in inspect(engine).get_table_names()
        upgrade(empty_url)
        assert current_revision(empty_url) == head_revision()
        assert {c["name"] for c in inspect(engine).get_columns("shares")} == {
            "id", "club_id", "resource", "game_id", "digest", "label", "created_at", "last_used_at", "revoked_at",
            "evening_id", "screen"}
        command.downgrade(alembic_config(empty_url), "0004")
    finally:
        engine.dispose()
    engine = make_engine(empty_url)
    try:
        assert "shares" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()
    assert current_revision(empty_url) == "0004"


def test_the_screen_shares_migration_marks_every_share_made_before_as_no_screens_and_goes_down(
        empty_url: str) -> None:
    from alembic import command

    upgrade(empty_url, "0012_name_keys")
    engine = make_engine(empty_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO clubs (id, name, created_at) VALUES ('club-1', 'Les Honneurs', "
                                    "CURRENT_TIMESTAMP)"))
            connection.execute(text("INSERT INTO shares (club_id, resource, digest, label, created_at) VALUES "
                                    "('club-1', 'scoreboard', :digest, 'affiche', CURRENT_TIMESTAMP)"),
                               {"digest": token_digest("before")})
        upgrade(empty_url)
        assert current_revision(empty_url) == head_revision()
        with engine.connect() as connection:
            assert connection.execute(text("SELECT label, screen FROM shares")).all() == [("affiche", False)]
        store = Store(empty_url)
        try:
            found = store.authenticate("before")
            assert isinstance(found, ShareInfo) and found.screen is False
            evening_less = store.shares.create_share("club-1", label="tableau")
            assert [share.screen for share in store.shares.shares("club-1")] == [False, False]
            assert evening_less.screen is False
        finally:
            store.close()
        command.downgrade(alembic_config(empty_url), "0012_name_keys")
        assert "screen" not in {c["name"] for c in inspect(engine).get_columns("shares")}
        with engine.connect() as connection:
            assert connection.execute(text("SELECT label FROM shares ORDER BY id")).scalars().all() == [
                "affiche", "tableau"]
    finally:
        engine.dispose()
    assert current_revision(empty_url) == "0012_name_keys"
