"""The append path: gap-free seqs, a valid hash chain, all-or-nothing batches, versions and races."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import event

from api.views import state_view
from nj_ledger import new_game, replay
from nj_ledger.audit import audit
from nj_ledger.chain import verify_chain
from nj_ledger.errors import LedgerError
from nj_ledger.simulator import simulate
from nj_ledger.store import (
    ClubInfo,
    IdempotencyMismatch,
    IdempotentRequest,
    NotFound,
    Store,
    StoredResponse,
    VersionConflict,
)
from nj_ledger.store.log import event_of

PLAYERS = ["Ana", "Ben", "Chloé"]


def store_simulated(store: Store, club: ClubInfo, seed: int, **options) -> str:
    game = simulate(seed=seed, **options)
    created = store.games.create_game(club.id, game.events[0])
    for batch in game.batches:
        store.games.append(club.id, created.game.id, batch)
    return created.game.id


def test_a_stored_game_has_gap_free_seqs_a_valid_chain_and_the_simulators_events(store: Store, club) -> None:
    game = simulate(seed=11, players=4, deals=3)
    created = store.games.create_game(club.id, game.events[0])
    for batch in game.batches:
        store.games.append(club.id, created.game.id, batch)
    records = store.games.records(club.id, created.game.id)
    assert [r["seq"] for r in records] == list(range(1, len(game.events) + 1))
    assert verify_chain(records)["ok"]
    assert [event_of(r) for r in records] == game.events
    assert audit(records)["ok"]
    info = store.games.game(club.id, created.game.id)
    assert (info.version, info.status, info.deals_played) == (len(records), "ended", game.state.deals_played)


def test_the_cached_state_is_the_state_a_replay_of_the_log_gives(store: Store, club) -> None:
    game_id = store_simulated(store, club, seed=5, players=3, deals=2, info="partial")
    _, cached = store.games.game_state(club.id, game_id)
    store.games.cache.clear()
    _, replayed = store.games.game_state(club.id, game_id)
    assert replayed is not cached
    assert state_view(replayed) == state_view(cached) == state_view(
        replay(event_of(r) for r in store.games.records(club.id, game_id)))


def test_a_stale_cache_entry_is_brought_up_to_date_from_the_log(store: Store, club) -> None:
    game_id = store.games.create_game(club.id, new_game(PLAYERS, "classic", 60)).game.id
    _, before = store.games.game_state(club.id, game_id)
    store.games.append(club.id, game_id, [{"type": "deal"}])
    store.games.cache.forget(game_id)
    store.games.cache.put(game_id, before)  # as if another process had appended since
    _, state = store.games.game_state(club.id, game_id)
    assert state.version == 17 and state.status == "playing"


def test_a_batch_is_all_or_nothing(store: Store, club) -> None:
    game_id = store.games.create_game(club.id, new_game(PLAYERS, "classic", 60)).game.id
    with pytest.raises(LedgerError) as refused:
        store.games.append(club.id, game_id, [{"type": "deal"}, {"type": "play", "seat": 2, "cards": ["5H"]}])
    assert refused.value.params["index"] == 1
    assert [r["seq"] for r in store.games.records(club.id, game_id)] == [1]
    assert store.games.game(club.id, game_id).version == 1
    assert store.games.game_state(club.id, game_id)[1].status == "ready"


def test_expected_version_refuses_a_batch_on_a_game_that_moved_on(store: Store, club) -> None:
    game_id = store.games.create_game(club.id, new_game(PLAYERS, "classic", 60)).game.id
    with pytest.raises(VersionConflict) as conflict:
        store.games.append(club.id, game_id, [{"type": "deal"}], expected_version=3)
    assert conflict.value.params == {"expected": 3, "current": 1}
    appended = store.games.append(club.id, game_id, [{"type": "deal"}], expected_version=1)
    assert appended.game.version == 17


def test_concurrent_writers_lose_and_duplicate_nothing(store: Store, club) -> None:
    game_id = store.games.create_game(club.id, new_game(PLAYERS, "classic", 60)).game.id
    failures: list[BaseException] = []

    def writer() -> None:
        try:
            for _ in range(4):
                store.games.append(club.id, game_id,
                                   [{"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1}])
        except BaseException as error:  # noqa: BLE001 - any failure is reported below
            failures.append(error)

    threads = [threading.Thread(target=writer) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    records = store.games.records(club.id, game_id)
    assert [r["seq"] for r in records] == list(range(1, 2 + 6 * 4 * 2))  # game_started + 24 × (adjust, transfer)
    assert verify_chain(records)["ok"]
    assert store.games.game_state(club.id, game_id)[1].balances == (36, 84, 60)


def test_concurrent_writers_with_the_same_expected_version_one_wins(store: Store, club) -> None:
    game_id = store.games.create_game(club.id, new_game(PLAYERS, "classic", 60)).game.id
    outcomes: list[str] = []
    start = threading.Barrier(5)

    def writer() -> None:
        start.wait()
        try:
            store.games.append(club.id, game_id, [{"type": "end"}], expected_version=1)
            outcomes.append("stored")
        except VersionConflict:
            outcomes.append("conflict")
        except LedgerError as refusal:  # the game had already ended: still not stored twice
            outcomes.append(refusal.code)

    threads = [threading.Thread(target=writer) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict"] * 4 + ["stored"]
    assert [r["type"] for r in store.games.records(club.id, game_id)] == ["game_started", "end", "game_ended"]


def test_an_idempotent_retry_returns_the_first_response_and_appends_nothing(store: Store, club) -> None:
    game_id = store.games.create_game(club.id, new_game(PLAYERS, "classic", 60)).game.id
    request = IdempotentRequest("deal-1", "fingerprint-a")

    def respond(game, state, records, receipt):
        return 201, {"version": game.version, "appended": len(records), "receipt": receipt["version"]}

    first = store.games.append(club.id, game_id, [{"type": "deal"}], idempotency=request, respond=respond)
    again = store.games.append(club.id, game_id, [{"type": "deal"}], idempotency=request, respond=respond)
    assert again == StoredResponse(201, {"version": 17, "appended": 16, "receipt": 17})
    assert first.game.version == 17 and store.games.game(club.id, game_id).version == 17
    with pytest.raises(IdempotencyMismatch):
        store.games.append(club.id, game_id, [{"type": "end"}], idempotency=IdempotentRequest("deal-1", "other"),
                     respond=respond)
    other_club = store.clubs.create_club("Un autre club")[0]
    other_game = store.games.create_game(other_club.id, new_game(PLAYERS, "classic", 60)).game.id
    fresh = store.games.append(other_club.id, other_game, [{"type": "deal"}], idempotency=request, respond=respond)
    assert not isinstance(fresh, StoredResponse)  # keys are scoped to a club


def test_the_store_never_updates_or_deletes_an_event_row(store: Store, club) -> None:
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(" ".join(statement.lower().split()))

    event.listen(store.db.engine, "before_cursor_execute", record)
    try:
        game_id = store_simulated(store, club, seed=2, players=3, deals=2)
        store.games.records(club.id, game_id)
        store.games.deal_segment(club.id, game_id, 1)
    finally:
        event.remove(store.db.engine, "before_cursor_execute", record)
    assert any(s.startswith("insert into events") for s in statements)
    assert any(s.startswith("update games") for s in statements)
    assert not [s for s in statements if s.startswith(("update events", "delete from events", "delete"))]


def test_a_game_is_reached_through_its_own_club_only(store: Store, club) -> None:
    game_id = store.games.create_game(club.id, new_game(PLAYERS, "classic", 60)).game.id
    other = store.clubs.create_club("Voisins")[0]
    for read in (store.games.game, store.games.game_state, store.games.records):
        with pytest.raises(NotFound):
            read(other.id, game_id)
    with pytest.raises(NotFound):
        store.games.append(other.id, game_id, [{"type": "deal"}])
    assert store.games.owner(game_id) == club.id and store.games.owner("nope") is None


def test_a_deal_segment_starts_from_the_state_before_the_deal(store: Store, club) -> None:
    game_id = store_simulated(store, club, seed=8, players=3, deals=3)
    records = store.games.records(club.id, game_id)
    start, segment = store.games.deal_segment(club.id, game_id, 2)
    assert {r["deal"] for r in segment} == {2}
    first = segment[0]["seq"]
    assert segment == [r for r in records if r["deal"] == 2]
    assert records[first - 1]["type"] == "deal"
    assert state_view(start) == state_view(replay(event_of(r) for r in records[: first - 1]))
    assert store.games.deal_segment(club.id, game_id, 99) is None
