"""An evening's reads: every entry read as the core's value by one query, and the state folded from them kept for
the next read of the very same entries, on both databases."""

from __future__ import annotations

from sqlalchemy import text

from nj_ledger import evenings as core
from nj_ledger.store import ClubInfo, Store

PLAYERS = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny"]
OPERATOR = {"role": "operator"}


def opened(store: Store, club: ClubInfo) -> str:
    created = core.decide_creation(name="Jeudi", played_on="2026-11-26", players=PLAYERS, rounds=2,
                                   rules="classic", starting_chips=60,
                                   seating=[[PLAYERS[:3], PLAYERS[3:]], [PLAYERS[::2], PLAYERS[1::2]]])
    read, _ = store.evenings.create_evening(club.id, created, OPERATOR)
    return read.info.id


def test_an_evening_that_has_not_moved_is_not_folded_again(store: Store, club: ClubInfo) -> None:
    evening = opened(store, club)
    first, again = store.evenings.evening(club.id, evening), store.evenings.evening(club.id, evening)
    assert again.state is first.state and again.entries == first.entries
    assert all(isinstance(item, core.LogEntry) and item.v == core.ENTRY_VERSION for item in first.entries)
    decided = store.evenings.decide(club.id, evening, lambda state, _: core.decide(state, core.Freeze(0)), OPERATOR)
    assert decided.state is not first.state and decided.state.frozen_through == 0 and decided.state.version == 2
    assert first.state.frozen_through is None and first.state.version == 1  # a state kept is never changed
    assert store.evenings.evening(club.id, evening).state is decided.state
    store.evenings.states.clear()
    again = store.evenings.evening(club.id, evening).state
    assert again == decided.state  # folded again from the log: the same evening


def test_the_log_read_in_pages_is_the_log_as_it_shows(store: Store, club: ClubInfo) -> None:
    evening = opened(store, club)
    for number in range(3):
        store.evenings.decide(club.id, evening,
                              lambda state, _, n=number: core.decide(state, core.Adjustment("Ana", n, "r")), OPERATOR)
    whole = store.evenings.evening(club.id, evening).entries
    page = store.evenings.evening_entries(club.id, evening, after=1, limit=2)
    assert page == [dict(item) for item in whole[1:3]] and all(type(item) is dict for item in page)
    assert list(page[0]) == ["seq", "type", "data", "by", "recorded_at", "hash"]
    assert core.first_bad_entry(whole) is None


def test_a_log_changed_under_the_cache_is_folded_again(store: Store, club: ClubInfo) -> None:
    evening = opened(store, club)
    store.evenings.decide(club.id, evening, lambda state, _: core.decide(state, core.Freeze(0)), OPERATOR)
    kept = store.evenings.evening(club.id, evening).state
    with store.db.writing() as session:  # a row put in place of the log's end (the triggers refuse an UPDATE)
        session.execute(text("INSERT INTO evening_log (evening_id, seq, type, data, by, recorded_at, hash) "
                             "VALUES (:evening, 3, 'evening_closed', '{\"reason\": \"\"}', '{}', 'x', 'y')"),
                        {"evening": evening})
    read = store.evenings.evening(club.id, evening)
    assert read.state is not kept and read.state.closed and core.first_bad_entry(read.entries) == 3
