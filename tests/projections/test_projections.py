"""The scoreboard's tables equal a recomputation from the log, stay in step with every append, and rebuild the same."""

from __future__ import annotations

import threading
from datetime import date, datetime, timedelta
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text

from nj_ledger import new_game
from nj_ledger.scoring import WIN_UNITS, rating_value
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from nj_ledger.store.projections import PROJECTION_TABLES, player_stats, rebuild, rebuild_steps, scoreboard
from nj_ledger.store.projections.models import ScoreRollup

from .conftest import ROSTER, Table, record
from .reference import expected_scoreboard

DAY = date(2026, 3, 1)
PROFILES = ("classic", "cards", "skip", "hearts")


def projection_rows(store: Store, club_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the club in the scoreboard's tables, in a total order."""
    keys = {"game_results": "game_id", "seat_results": "game_id, seat",
            "score_rollups": "grain, period_start, player_id"}
    with store.db.reading() as session:
        return {table: [tuple(row) for row in session.execute(
            text(f"SELECT * FROM {table} WHERE club_id = :club ORDER BY {keys[table]}"), {"club": club_id})]
            for table in PROJECTION_TABLES}


def assert_matches_the_log(store: Store, club_id: str, start: date | None = None, end: date | None = None) -> None:
    expected = expected_scoreboard(store, club_id, start, end)
    lines = {line.name.casefold(): line for line in scoreboard(store.db, club_id, start, end)}
    assert set(lines) == set(expected)
    for key, want in expected.items():
        got = lines[key]
        assert (got.games, Fraction(got.win_units, WIN_UNITS), got.deals_played, got.deals_won, got.net,
                got.grand_operas, got.honours_taken, got.honour_chips, got.betes_paid, got.ruins) == (
            want.games, want.wins, want.deals_played, want.deals_won, want.net, want.grand_operas,
            want.honours_taken, want.honour_chips, want.betes_paid, want.ruins), key
        assert (got.rating_mu, got.rating_sigma) == pytest.approx((want.rating.mu, want.rating.sigma), rel=1e-12)


tables = st.builds(
    Table,
    seed=st.integers(0, 10_000),
    names=st.lists(st.sampled_from(ROSTER), min_size=2, max_size=5, unique=True),
    profile=st.sampled_from(PROFILES),
    deals=st.integers(1, 3),
    day=st.one_of(st.none(), st.integers(0, 75).map(lambda n: DAY + timedelta(days=n))),
    batches=st.one_of(st.none(), st.none(), st.integers(1, 12)),
)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(club_tables=st.lists(tables, min_size=1, max_size=6), start=st.integers(0, 80), length=st.integers(0, 60))
def test_projections_equal_a_recomputation_from_the_log(store: Store, club_tables: list[Table], start: int,
                                                        length: int) -> None:
    club, _ = store.clubs.create_club("Simulated")
    for table in club_tables:
        record(store, club.id, table)
    assert_matches_the_log(store, club.id)
    first = DAY + timedelta(days=start)
    assert_matches_the_log(store, club.id, first, first + timedelta(days=length))
    assert_matches_the_log(store, club.id, None, first)
    assert_matches_the_log(store, club.id, first, None)
    before = projection_rows(store, club.id)
    rebuilt = rebuild(store.db, club.id)
    assert projection_rows(store, club.id) == before
    assert rebuilt.games == len(before["game_results"])


def test_a_game_counts_when_it_ends_and_not_before(store: Store) -> None:
    club, _ = store.clubs.create_club("Jeudi")
    game = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60)).game
    store.games.append(club.id, game.id, [{"type": "deal"}])
    assert scoreboard(store.db, club.id) == []
    assert projection_rows(store, club.id)["seat_results"] == []
    unfinished = record(store, club.id, Table(seed=5, names=["Ana", "Denis"], day=DAY, batches=3))
    assert store.games.game(club.id, unfinished).status != "ended"
    assert scoreboard(store.db, club.id) == []
    record(store, club.id, Table(seed=5, names=["Ana", "Denis"], day=DAY))
    assert {line.name for line in scoreboard(store.db, club.id)} == {"Ana", "Denis"}
    assert_matches_the_log(store, club.id)


def test_players_tied_first_share_the_win(store: Store) -> None:
    club, _ = store.clubs.create_club("Ex aequo")
    # the table agrees to stop before the first deal: everybody keeps the starting chips and is ranked first
    store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60), [{"type": "end"}])
    lines = scoreboard(store.db, club.id)
    assert sorted((line.name, line.games, line.wins, line.net) for line in lines) == [
        ("Ana", 1, pytest.approx(1 / 3), 0), ("Ben", 1, pytest.approx(1 / 3), 0), ("Chloé", 1, pytest.approx(1 / 3), 0)]
    assert sum(line.win_units for line in lines) == WIN_UNITS
    ratings = {line.name: line.rating for line in lines}
    assert ratings["Ana"] == ratings["Ben"] == ratings["Chloé"]  # equal ranks move ratings alike


def test_ratings_follow_the_order_games_ended_even_when_they_commit_in_another(store: Store, monkeypatch) -> None:
    club, _ = store.clubs.create_club("Concurrents")
    late = record(store, club.id, Table(seed=11, names=["Ana", "Ben", "Chloé"], day=DAY, batches=None))
    ended_late = store.games.records(club.id, late)[-1]["recorded_at"]
    # a second game whose end is recorded with an earlier timestamp, as when two transactions race
    earlier = datetime.fromisoformat(ended_late) - timedelta(seconds=5)
    monkeypatch.setattr("nj_ledger.store.games.utcnow", lambda: earlier)
    record(store, club.id, Table(seed=12, names=["Ana", "Ben", "Denis"], day=DAY))
    monkeypatch.undo()
    record(store, club.id, Table(seed=13, names=["Ben", "Chloé", "Denis"], day=DAY + timedelta(days=40)))
    assert_matches_the_log(store, club.id)
    assert_matches_the_log(store, club.id, DAY, DAY)
    before = projection_rows(store, club.id)
    rebuild(store.db, club.id)
    assert projection_rows(store, club.id) == before


def test_a_period_adds_whole_months_and_edge_days(store: Store) -> None:
    club, _ = store.clubs.create_club("Saisons")
    days = [date(2026, 1, 31), date(2026, 2, 1), date(2026, 2, 14), date(2026, 3, 31), date(2026, 4, 1)]
    for seed, day in enumerate(days):
        record(store, club.id, Table(seed=seed, names=["Ana", "Ben"], day=day, deals=1))
    with store.db.reading() as session:
        grains = sorted(session.execute(select(ScoreRollup.grain, ScoreRollup.period_start)
                                        .where(ScoreRollup.club_id == club.id, ScoreRollup.player_id ==
                                               select(ScoreRollup.player_id).where(ScoreRollup.club_id == club.id)
                                               .limit(1).scalar_subquery())).all())
    assert [g for g, _ in grains].count("day") == 5 and [g for g, _ in grains].count("month") == 4
    for start, end, games in [(None, None, 5), (date(2026, 2, 1), date(2026, 3, 31), 3),
                              (date(2026, 1, 31), date(2026, 2, 1), 2), (date(2026, 2, 2), date(2026, 3, 30), 1),
                              (date(2026, 4, 2), None, 0), (None, date(2026, 1, 31), 1)]:
        lines = scoreboard(store.db, club.id, start, end)
        assert {line.games for line in lines} == ({games} if games else set()), (start, end)
        assert_matches_the_log(store, club.id, start, end)


def test_min_games_leaves_out_the_occasional_players(store: Store) -> None:
    club, _ = store.clubs.create_club("Habitués")
    for seed in range(3):
        record(store, club.id, Table(seed=seed, names=["Ana", "Ben"], day=DAY, deals=1))
    record(store, club.id, Table(seed=9, names=["Ana", "Zoé"], day=DAY, deals=1))
    assert {line.name for line in scoreboard(store.db, club.id, min_games=2)} == {"Ana", "Ben"}
    assert {line.name for line in scoreboard(store.db, club.id, min_games=4)} == {"Ana"}
    assert {line.name for line in scoreboard(store.db, club.id, min_games=0)} == {"Ana", "Ben", "Zoé"}


def test_a_players_history_follows_their_games(store: Store) -> None:
    club, _ = store.clubs.create_club("Histoire")
    for seed in range(4):
        record(store, club.id, Table(seed=seed, names=["Ana", "Ben", "Chloé"], day=DAY + timedelta(days=seed)))
    stats = player_stats(store.db, club.id, "chloé", limit=3)
    expected = expected_scoreboard(store, club.id)["chloé"]
    assert stats.name == "Chloé" and stats.more
    assert stats.line is not None and stats.line.net == expected.net
    assert [line.played_on for line in stats.history] == [DAY + timedelta(days=n) for n in (3, 2, 1)]
    rest = player_stats(store.db, club.id, str(stats.player_id), offset=3)
    history = stats.history + rest.history
    assert not rest.more and [line.game_id for line in history][::-1] == [g["game"] for g in expected.history]
    assert [line.net for line in history][::-1] == [g["net"] for g in expected.history]
    for line in history:
        assert line.chips_by_deal[0] == line.chips - line.net and len(line.chips_by_deal) == line.deals + 1
    assert history[0].rating == pytest.approx(rating_value(expected.rating.mu, expected.rating.sigma))
    one_day = player_stats(store.db, club.id, "Chloé", DAY + timedelta(days=1), DAY + timedelta(days=1))
    assert [line.played_on for line in one_day.history] == [DAY + timedelta(days=1)]
    assert one_day.line is not None and one_day.line.games == 1


def test_clubs_do_not_see_each_others_games(store: Store) -> None:
    first, _ = store.clubs.create_club("Un")
    second, _ = store.clubs.create_club("Deux")
    record(store, first.id, Table(seed=1, names=["Ana", "Ben"], day=DAY, deals=1))
    assert scoreboard(store.db, second.id) == []
    rebuild(store.db, second.id)
    assert len(scoreboard(store.db, first.id)) == 2


def test_rebuilding_every_club_gives_the_same_tables(store: Store) -> None:
    club, _ = store.clubs.create_club("Tout")
    for seed in range(3):
        record(store, club.id, Table(seed=seed, names=ROSTER[seed:seed + 3], day=DAY + timedelta(days=seed * 20)))
    before = projection_rows(store, club.id)
    steps = list(rebuild_steps(store.db))
    assert steps[0][0] == 0 and steps[-1][0] == steps[-1][1] >= 3
    assert projection_rows(store, club.id) == before


def test_the_projection_commits_with_the_append_or_not_at_all(store: Store, monkeypatch) -> None:
    club, _ = store.clubs.create_club("Atomique")
    created = store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 40)).game

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the projection failed")

    monkeypatch.setattr("nj_ledger.store.projections.projector.record_results", broken)
    with pytest.raises(RuntimeError):
        store.games.append(club.id, created.id, [{"type": "end"}])
    monkeypatch.undo()
    assert store.games.game(club.id, created.id).status == "ready"  # the game's end was not stored either
    store.games.append(club.id, created.id, [{"type": "end"}])
    assert [line.games for line in scoreboard(store.db, club.id)] == [1, 1]


def test_games_ending_at_the_same_moment_are_each_counted_once_in_end_order(store: Store) -> None:
    club, _ = store.clubs.create_club("Tous ensemble")
    finals = []
    for seed in range(6):
        game = simulate(seed + 40, "classic", players=3, deals=2)
        names = [ROSTER[(seed + k) % len(ROSTER)] for k in range(3)]
        actions = [action for batch in game.batches[:-1] for action in batch]
        created = store.games.create_game(club.id, new_game(names, game.rules, game.starting_chips), actions)
        finals.append((created.game.id, game.batches[-1]))
    start = threading.Barrier(len(finals))

    def finish(game_id: str, batch: list[dict[str, Any]]) -> None:
        start.wait()
        store.games.append(club.id, game_id, batch)

    threads = [threading.Thread(target=finish, args=final) for final in finals]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {store.games.game(club.id, game_id).status for game_id, _ in finals} == {"ended"}
    assert len(projection_rows(store, club.id)["game_results"]) == len(finals)
    assert_matches_the_log(store, club.id)
    before = projection_rows(store, club.id)
    rebuild(store.db, club.id)
    assert projection_rows(store, club.id) == before
