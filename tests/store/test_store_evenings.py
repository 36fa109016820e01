"""The evening's store: concurrent decisions, the chain, table tokens and their scope, on both databases."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import text

from nj_ledger import evenings as core
from nj_ledger.evenings import first_bad_entry
from nj_ledger.store import ClubInfo, NotFound, Store, TableInfo

PLAYERS = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny"]
OPERATOR = {"role": "operator"}


def opened(store: Store, club: ClubInfo, confirmation: bool = False):
    created = core.decide_creation(name="Jeudi", played_on="2026-11-26", players=PLAYERS, rounds=2,
                                   rules="classic", starting_chips=60, confirmation=confirmation,
                                   seating=[[PLAYERS[:3], PLAYERS[3:]], [PLAYERS[::2], PLAYERS[1::2]]])
    return store.evenings.create_evening(club.id, created, OPERATOR)


def test_concurrent_decisions_are_all_recorded_in_one_chain(store: Store, club: ClubInfo) -> None:
    read, _ = opened(store, club)
    evening = read.info.id
    errors: list[BaseException] = []

    def adjust(number: int) -> None:
        try:
            store.evenings.decide(club.id, evening, lambda state, _: core.decide_mend(
                state, core.ADJUSTED, {"player": PLAYERS[number % 6], "amount": number, "reason": f"r{number}"}),
                {"role": "scorer", "token": number})
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=adjust, args=(number,)) for number in range(1, 13)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    entries = store.evenings.evening(club.id, evening).entries
    assert [item["seq"] for item in entries] == list(range(1, 14))
    assert first_bad_entry(entries) is None
    assert sorted(item["data"]["amount"] for item in entries[1:]) == list(range(1, 13))
    assert store.evenings.evening(club.id, evening).info.version == 13


def test_the_chain_finds_a_decision_changed_in_the_database(store: Store, club: ClubInfo) -> None:
    read, _ = opened(store, club)
    store.evenings.decide(club.id, read.info.id, lambda state, _: core.decide_freeze(state, 0), OPERATOR)
    with store.db.writing() as session:  # the triggers refuse an UPDATE: a row put in its place is what is left
        session.execute(text("INSERT INTO evening_log (evening_id, seq, type, data, by, recorded_at, hash) "
                             "VALUES (:evening, 3, 'evening_closed', '{\"reason\": \"\"}', '{}', 'x', 'y')"),
                        {"evening": read.info.id})
    entries = store.evenings.evening(club.id, read.info.id).entries
    assert first_bad_entry(entries) == 3


def test_a_table_token_speaks_for_its_table_and_its_games_only(store: Store, club: ClubInfo) -> None:
    read, links = opened(store, club)
    evening = read.info.id
    assert [link.table for link in links] == [1, 2] and len({link.code for link in links}) == 2
    found = store.authenticate(links[1].secret)
    assert isinstance(found, TableInfo) and (found.club_id, found.evening_id, found.table) == (club.id, evening, 2)
    assert found.can_write and found.role == "table"
    assert store.tables.table_scope(club.id, evening, 2).games == frozenset()
    started = store.evenings.start_round(club.id, evening, OPERATOR)
    second = started.state.started[0][1].game
    assert store.tables.table_scope(club.id, evening, 2).games == {second}
    assert store.tables.table_by_code(club.id, links[1].code.lower()) == (evening, 2)
    other, _ = store.clubs.create_club("Les Voisins")
    with pytest.raises(NotFound):
        store.tables.table_by_code(other.id, links[1].code)
    again = store.evenings.table_link(club.id, evening, 2)
    assert again.code == links[1].code and again.secret != links[1].secret
    with store.db.reading() as session:
        stored = session.execute(text("SELECT digest FROM table_tokens")).scalars().all()
    assert links[1].secret not in stored and again.secret not in stored
