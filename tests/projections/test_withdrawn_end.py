"""A game whose end an undo withdraws leaves the scoreboard, and counts again when it ends again.

An undo reaches past a deal's settlement, and the end of the game it caused, until the next deal
starts (SPEC §4). The scoreboard's tables then lose the game (its rows, its figures in the day and
month rows, its part in the ratings of the club's games after it) in the same transaction; ending
it again counts it again; and every step equals a recomputation from the log and a rebuild.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from nj_ledger import new_game
from nj_ledger.store import Store
from nj_ledger.store.projections import rebuild, scoreboard

from .conftest import Table, record
from .test_projections import DAY, assert_matches_the_log, projection_rows

SMALL = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
HANDS = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
WINNING_PLAY = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}


def about_to_end(store: Store, club_id: str, names: list[str]) -> str:
    """A 20-chip game whose first deal ends it by shortfall as soon as seat 0 lays its last two cards."""
    game = store.games.create_game(club_id, new_game(names, SMALL, 20), [
        {"type": "deal", "hands": HANDS},
        {"type": "play", "seat": 0, "cards": ["AC", "2C"]},
        {"type": "play", "seat": 1, "cards": ["3D"]},
        {"type": "play", "seat": 2, "cards": ["4D"]},
    ])
    return game.game.id


def rebuilt_the_same(store: Store, club_id: str) -> dict[str, Any]:
    rows = projection_rows(store, club_id)
    rebuild(store.db, club_id)
    assert projection_rows(store, club_id) == rows
    return rows


def test_an_undone_end_uncounts_the_game_and_its_end_again_counts_it(store: Store) -> None:
    club, _ = store.clubs.create_club("Repentirs")
    earlier = record(store, club.id, Table(seed=3, names=["Ana", "Ben", "Chloé"], day=DAY - timedelta(days=1)))
    game = about_to_end(store, club.id, ["Ana", "Ben", "Denis"])
    store.games.append(club.id, game, [WINNING_PLAY])
    later = record(store, club.id, Table(seed=4, names=["Ana", "Ben", "Denis"], batches=None))  # rated after
    assert store.games.game(club.id, game).status == "ended"
    counted = rebuilt_the_same(store, club.id)
    assert {row[0] for row in counted["game_results"]} == {earlier, game, later}
    assert_matches_the_log(store, club.id)
    denis = {line.name: line for line in scoreboard(store.db, club.id)}["Denis"]

    appended = store.games.append(club.id, game, [{"type": "undo", "reason": "seat 1 had not played"}])
    assert appended.state.status == "playing" and appended.state.deals_played == 0
    assert store.games.game(club.id, game).status == "playing"
    uncounted = rebuilt_the_same(store, club.id)  # as if the game had never ended
    assert {row[0] for row in uncounted["game_results"]} == {earlier, later}
    assert_matches_the_log(store, club.id)  # the later game is rated without it
    lines = {line.name: line for line in scoreboard(store.db, club.id)}
    assert lines["Denis"].games == denis.games - 1 and lines["Denis"].rating != denis.rating

    store.games.append(club.id, game, [appended.state.redo_action()])  # the redo the state offers
    assert store.games.game(club.id, game).status == "ended"
    recounted = rebuilt_the_same(store, club.id)
    assert {row[0] for row in recounted["game_results"]} == {earlier, game, later}
    assert_matches_the_log(store, club.id)


def test_an_undo_and_its_redo_in_one_batch_count_the_game_once(store: Store) -> None:
    club, _ = store.clubs.create_club("D'un coup")
    game = about_to_end(store, club.id, ["Ana", "Ben", "Chloé"])
    store.games.append(club.id, game, [WINNING_PLAY])
    store.games.append(club.id, game, [{"type": "undo"}, WINNING_PLAY])
    rows = rebuilt_the_same(store, club.id)
    assert [row[0] for row in rows["game_results"]] == [game]
    assert [line.games for line in scoreboard(store.db, club.id)] == [1, 1, 1]
    assert_matches_the_log(store, club.id)


def test_a_game_left_unended_by_an_undo_is_not_counted_and_its_only_rows_go(store: Store) -> None:
    club, _ = store.clubs.create_club("Seule")
    game = about_to_end(store, club.id, ["Ana", "Ben", "Chloé"])
    store.games.append(club.id, game, [WINNING_PLAY])
    assert len(scoreboard(store.db, club.id)) == 3
    store.games.append(club.id, game, [{"type": "undo"}, {"type": "undo"}])
    assert scoreboard(store.db, club.id) == []
    assert projection_rows(store, club.id) == {"game_results": [], "seat_results": [], "score_rollups": []}
    assert rebuild(store.db, club.id).games == 0
