"""The recorders' contract: one suite, run against SQLite and PostgreSQL, of everything the store asks of its
database (nj_ledger/store/recorder.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, Table, func, insert, select, text
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError

from benchmarks.data import long_game
from nj_ledger.chain import Chained, canonical_json
from nj_ledger.evenings import ADJUSTED, CLOSED, ENTRY_VERSION, entry, entry_hash, first_bad_entry
from nj_ledger.events import UPCASTERS
from nj_ledger.store import ClubInfo, LogDamaged, NotFound, Store, recorder_for, utcnow
from nj_ledger.store import recorder as recorder_module
from nj_ledger.store.base import new_id
from nj_ledger.store.log import GENESIS, chain_records
from nj_ledger.store.migrate import upgrade
from nj_ledger.store.models import Evening, EveningEntry, GamePlayer, Player
from nj_ledger.store.postgresql import COPY_FROM
from nj_ledger.store.recorder import LAST_SEQ
from nj_ledger.store.rows import event_rows
from nj_ledger.store.tokens import token_digest
from nj_ledger.store.values import GameInfo, Record
from nj_ledger.store.writes import NewGame, insert_games, register_players

PLAYERS = ["Ana", "Ben", "Chloé"]


def new_info(club_id: str, players: list[str] = PLAYERS) -> GameInfo:
    now = utcnow()
    return GameInfo(id=new_id(), club_id=club_id, created_at=now, updated_at=now, played_on=now.date(), version=0,
                    status="playing", profile="classic", players=list(players), starting_chips=60, deals_played=0)


def simulated_records(events: int = 100) -> list[Record]:
    return chain_records(GENESIS, 0, long_game(events).events, utcnow())


def stored_log(store: Store, club: ClubInfo, records: list[Record]) -> str:
    """A game row and its records, written through the recorder alone (no checkpoints, no projections)."""
    info = replace(new_info(club.id), version=len(records))
    with store.db.writing_connection() as connection:
        insert_games(connection, [NewGame(info, records[-1]["hash"])], utcnow())
        store.db.recorder.insert_events(connection, info.id, records)
    return info.id


def read(store: Store, game_id: str, after: int = 0, upto: int = LAST_SEQ) -> list[Record]:
    with store.db.reading() as session:
        return list(store.db.recorder.select_records(session.connection(), game_id, after, upto))


def test_the_store_asks_the_recorder_of_its_database(store: Store, backend: str) -> None:
    assert store.db.recorder.name == store.db.dialect == backend
    assert recorder_for(store.db.engine) is recorder_for(store.db.url) is store.db.recorder
    with store.db.reading() as session:
        assert recorder_for(session) is recorder_for(session.connection()) is store.db.recorder
    assert store.db.recorder.embedded == (backend == "sqlite") == store.db.recorder.queues_writers


def test_records_read_back_equal_to_the_records_inserted(store: Store, club: ClubInfo) -> None:
    records = simulated_records()
    game_id = stored_log(store, club, records)
    assert read(store, game_id) == records
    assert all(isinstance(record["data"], dict) for record in read(store, game_id))


def test_a_read_takes_the_seqs_after_and_up_to_the_bounds_given(store: Store, club: ClubInfo) -> None:
    records = simulated_records()
    game_id = stored_log(store, club, records)
    assert read(store, game_id, 5, 9) == records[5:9]
    assert read(store, game_id, 0, 1) == records[:1]
    assert read(store, game_id, len(records), LAST_SEQ) == []
    assert read(store, game_id, 7, 7) == []
    assert read(store, "no-such-game") == []


def test_a_log_longer_than_a_fetch_is_read_a_chunk_at_a_time(store: Store, club: ClubInfo,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    records = simulated_records(300)
    game_id = stored_log(store, club, records)
    monkeypatch.setattr(recorder_module, "FETCH_ROWS", 7)
    assert read(store, game_id) == records
    assert read(store, game_id, 3, 40) == records[3:40]


def test_two_reads_of_a_log_can_be_open_at_once_on_one_connection(store: Store, club: ClubInfo,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    records = simulated_records()
    game_id = stored_log(store, club, records)
    monkeypatch.setattr(recorder_module, "FETCH_ROWS", 5)
    with store.db.reading() as session:
        connection = session.connection()
        outer = store.db.recorder.select_records(connection, game_id, 0, LAST_SEQ)
        first = [next(outer) for _ in range(6)]
        inner = list(store.db.recorder.select_records(connection, game_id, 10, 20))
        rest = list(outer)
    assert first + rest == records
    assert inner == records[10:20]


@pytest.mark.parametrize("size", [1, COPY_FROM - 1, COPY_FROM, 3 * COPY_FROM])
def test_batches_of_any_size_are_inserted_whole_copy_sized_ones_too(store: Store, club: ClubInfo,
                                                                    size: int) -> None:
    records = simulated_records(4 * COPY_FROM)
    assert len(records) > 1 + 3 * COPY_FROM
    game_id = stored_log(store, club, records[:1])
    with store.db.writing_connection() as connection:
        store.db.recorder.insert_events(connection, game_id, records[1:1 + size])
        store.db.recorder.insert_events(connection, game_id, [])
    assert read(store, game_id) == records[:1 + size]


def test_a_deal_is_read_by_itself_up_to_a_seq(store: Store, club: ClubInfo) -> None:
    records = simulated_records(300)
    game_id = stored_log(store, club, records)
    with store.db.reading() as session:
        connection = session.connection()
        deal = store.db.recorder.select_deal(connection, game_id, 2, LAST_SEQ)
        cut = store.db.recorder.select_deal(connection, game_id, 2, deal[3]["seq"])
        assert store.db.recorder.select_deal(connection, game_id, 9, LAST_SEQ) == []
    assert deal == [record for record in records if record["deal"] == 2]
    assert cut == deal[:4]


def test_every_deal_is_read_as_its_stretch_of_the_log(store: Store, club: ClubInfo) -> None:
    records = simulated_records(1500)
    game_id = stored_log(store, club, records)
    deals = sorted({record["deal"] for record in records} - {0})
    assert len(deals) > 10
    with store.db.reading() as session:
        connection = session.connection()
        for deal in deals:
            expected = [record for record in records if record["deal"] == deal]
            assert store.db.recorder.select_deal(connection, game_id, deal, LAST_SEQ) == expected
            middle = expected[len(expected) // 2]["seq"]
            assert store.db.recorder.select_deal(connection, game_id, deal, middle) == [
                record for record in expected if record["seq"] <= middle]
            before = expected[0]["seq"] - 1  # cut before the deal started: nothing of it yet
            assert store.db.recorder.select_deal(connection, game_id, deal, before) == []
        assert store.db.recorder.select_deal(connection, game_id, deals[-1] + 1, LAST_SEQ) == []


def test_reading_a_deal_reads_that_deal_and_not_the_rest_of_the_log(tmp_path: Path) -> None:
    """Counted in SQLite's own steps (its progress handler; PostgreSQL has none): the first deal of a long log
    costs what the last one does, not a walk to the end of the log."""
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    upgrade(url)
    store = Store(url)
    try:
        club = store.clubs.create_club("Club")[0]
        records = simulated_records(3000)
        game_id = stored_log(store, club, records)
        last = max(record["deal"] for record in records)
        steps: dict[int, int] = {}
        with store.db.reading() as session:
            connection = session.connection()
            driver = connection.connection.driver_connection
            for deal in (1, last):
                count = [0]

                def step(count: list[int] = count) -> int:
                    count[0] += 1
                    return 0

                driver.set_progress_handler(step, 10)
                try:
                    assert store.db.recorder.select_deal(connection, game_id, deal, LAST_SEQ)
                finally:
                    driver.set_progress_handler(None, 10)
                steps[deal] = count[0]
    finally:
        store.close()
    assert steps[1] < 3 * steps[last] + 50, steps


def test_the_rows_of_chained_records_hold_the_text_their_hashes_were_taken_over() -> None:
    records = simulated_records(300)
    assert isinstance(records, Chained)
    assert event_rows("g", records) == event_rows("g", list(records))  # the text kept is what json_text writes
    assert [row[4] for row in event_rows("g", records)] == [canonical_json(r["data"]) for r in records]


def test_a_games_owner_version_and_players_are_read_in_one_statement(store: Store, club: ClubInfo) -> None:
    records = simulated_records()
    game_id = stored_log(store, club, records)
    with store.db.reading() as session:
        connection = session.connection()
        players = store.games.game(club.id, game_id).players  # the game's summary
        assert store.db.recorder.owner_and_version(connection, game_id) == (club.id, len(records), players)
        assert store.db.recorder.owner_and_version(connection, "no-such-game") is None


def an_evening(store: Store, club: ClubInfo) -> str:
    """An evening's row, with nothing in its log."""
    now, evening_id = utcnow(), new_id()
    with store.db.writing() as session:
        session.add(Evening(id=evening_id, club_id=club.id, name="Jeudi", played_on=now.date(), created_at=now,
                            updated_at=now, version=0, head_hash=GENESIS, status="open"))
    return evening_id


def test_an_evenings_entries_read_back_as_written_from_a_seq_on(store: Store, club: ClubInfo) -> None:
    evening_id = an_evening(store, club)
    items, previous = [], GENESIS
    for seq in range(1, 6):
        kind, data = (CLOSED, {"reason": ""}) if seq in (2, 4) else (ADJUSTED, {"player": "Chloé", "amount": seq,
                                                                                "reason": "retard"})
        item = entry(seq, kind, data, {"role": "scorer", "label": "Élise"}, f"2026-11-26T20:0{seq}:00.000000Z")
        item["hash"] = previous = entry_hash(previous, item)
        items.append(item)
    with store.db.writing_connection() as connection:
        for item in items:
            store.db.recorder.insert_entry(connection, evening_id, item)
    with store.db.reading() as session:
        connection = session.connection()
        entries = store.db.recorder.select_entries(connection, evening_id)
        assert [dict(value) for value in entries] == items and [value.v for value in entries] == [ENTRY_VERSION] * 5
        assert list(entries[0].data) == ["player", "amount", "reason"]  # the keys in the order written
        assert store.db.recorder.select_entries(connection, evening_id, 2) == entries[2:]
        assert store.db.recorder.select_entries(connection, evening_id, 1, limit=2) == entries[1:3]
        assert store.db.recorder.select_entries(connection, evening_id, 5) == []
        assert store.db.recorder.select_entries(connection, evening_id, kind=CLOSED) == [entries[1], entries[3]]
        assert store.db.recorder.select_entries(connection, evening_id, 1, limit=2, kind=ADJUSTED) == [entries[2],
                                                                                                      entries[4]]
        assert store.db.recorder.select_entries(connection, "no-such-evening") == []
        versions = connection.execute(select(EveningEntry.v).where(EveningEntry.evening_id == evening_id))
        assert set(versions.scalars()) == {ENTRY_VERSION}


def test_an_entry_stored_at_an_older_version_is_read_upcast_its_hash_over_what_was_written(
        store: Store, club: ClubInfo, monkeypatch: pytest.MonkeyPatch) -> None:
    renamed = {"why": "reason"}  # an older version's name of a field
    monkeypatch.setitem(UPCASTERS, (ADJUSTED, ENTRY_VERSION - 1),
                        lambda data: {renamed.get(name, name): value for name, value in data.items()})
    evening_id = an_evening(store, club)
    item = entry(1, ADJUSTED, {"player": "Ana", "amount": 5, "why": "retard"}, {}, "2026-11-26T20:00:00.000000Z")
    item["hash"] = entry_hash(GENESIS, item)
    with store.db.writing_connection() as connection:
        connection.execute(insert(EveningEntry), [{"evening_id": evening_id, **item, "v": ENTRY_VERSION - 1}])
    with store.db.reading() as session:
        [value] = store.db.recorder.select_entries(session.connection(), evening_id)
    assert value.v == ENTRY_VERSION and value.data == {"player": "Ana", "amount": 5, "reason": "retard"}
    assert value.hashed()["data"] == item["data"] and first_bad_entry([value]) is None


def test_an_entry_at_a_version_no_upcaster_reads_is_a_damaged_log(store: Store, club: ClubInfo) -> None:
    evening_id = an_evening(store, club)
    item = entry(1, CLOSED, {"reason": ""}, {}, "2026-11-26T20:00:00.000000Z")
    item["hash"] = entry_hash(GENESIS, item)
    with store.db.writing_connection() as connection:
        connection.execute(insert(EveningEntry), [{"evening_id": evening_id, **item, "v": ENTRY_VERSION - 1}])
    with store.db.reading() as session, pytest.raises(LogDamaged) as damaged:
        store.db.recorder.select_entries(session.connection(), evening_id)
    assert damaged.value.code == "log-damaged" and damaged.value.params == {"evening": evening_id, "seq": 1}


def test_a_lookup_runs_one_statement_on_a_pooled_connection(store: Store, club: ClubInfo) -> None:
    token = store.tokens.create_token(club.id, "viewer", "lookup")
    sql = "SELECT club_id, role FROM tokens WHERE digest = {mark}"
    assert store.db.recorder.lookup(store.db.engine, sql, (token_digest(token.secret),)) == [(club.id, "viewer")]
    assert store.db.recorder.lookup(store.db.engine, sql, ("nothing",)) == []


def test_games_are_written_with_their_seats_and_their_players_as_members(store: Store, club: ClubInfo) -> None:
    first, second = new_info(club.id), new_info(club.id, ["chloé", "Denis", "ANA"])
    with store.db.writing_connection() as connection:
        seats = insert_games(connection, [NewGame(first, "a" * 64), NewGame(second, "b" * 64, "digest")], utcnow())
    members = {player.name: player.id for player in store.clubs.players(club.id)}
    assert seats == [[members["Ana"], members["Ben"], members["Chloé"]],
                     [members["Chloé"], members["Denis"], members["Ana"]]]  # one member whatever the case
    for info in (first, second):  # (SQLite keeps no time zone: its times are read back naive)
        stored = store.games.game(club.id, info.id)
        assert replace(stored, created_at=info.created_at, updated_at=info.updated_at) == info
    assert store.games.find_game(club.id, "digest") == second.id
    with store.db.reading() as session:
        stored = session.execute(select(GamePlayer.seat, GamePlayer.player_id)
                                 .where(GamePlayer.game_id == second.id).order_by(GamePlayer.seat)).all()
    assert [tuple(row) for row in stored] == list(enumerate(seats[1]))


def test_no_game_is_written_for_a_club_that_is_not_there(store: Store) -> None:
    with pytest.raises(NotFound), store.db.writing_connection() as connection:
        insert_games(connection, [NewGame(new_info("no-such-club"), "a" * 64)], utcnow())


def test_a_player_registered_twice_is_one_member(store: Store, club: ClubInfo) -> None:
    with store.db.writing_connection() as connection:
        once = register_players(connection, club.id, ["Eve", "Fred"], utcnow())
        again = register_players(connection, club.id, ["fred", "Gus", "EVE"], utcnow())
        count = connection.execute(select(func.count()).select_from(Player).where(Player.club_id == club.id))
        assert count.scalar() == 3
    assert again[0] == once[1] and again[2] == once[0]


def test_an_upsert_adds_to_the_row_already_there(store: Store, club: ClubInfo) -> None:
    from nj_ledger.store.projections import ScoreRollup

    table = ScoreRollup.__table__
    assert isinstance(table, Table)
    member = store.clubs.add_player(club.id, "Hugo").id
    row = {"club_id": club.id, "grain": "day", "period_start": date(2026, 1, 1), "player_id": member, "games": 1,
           "last_end_key": "1", "rating_mu": 25.0, "rating_sigma": 8.0}
    row |= {column.name: 0 for column in table.c if column.name not in row}
    keys = [table.c.club_id, table.c.grain, table.c.period_start, table.c.player_id]
    statement = store.db.recorder.upsert(table, keys, lambda new: {"games": table.c.games + new.games})
    with store.db.writing_connection() as connection:
        connection.execute(statement, [row, row | {"games": 2}])
        connection.execute(statement, row | {"period_start": date(2026, 1, 1) + timedelta(days=1)})
        games = connection.execute(select(table.c.games).where(table.c.player_id == member)
                                   .order_by(table.c.period_start)).scalars().all()
    assert games == [3, 1]


def duplicate_key_error(store: Store, connection: Connection, game_id: str, record: Record) -> DBAPIError:
    with pytest.raises(IntegrityError) as raised:
        store.db.recorder.insert_events(connection, game_id, [record])
    return raised.value


def test_a_duplicate_key_is_transient_other_errors_are_not(store: Store, club: ClubInfo) -> None:
    records = simulated_records()
    game_id = stored_log(store, club, records)
    with store.db.writing_connection() as connection:
        assert store.db.recorder.is_transient(duplicate_key_error(store, connection, game_id, records[0]))
    with pytest.raises(IntegrityError) as bad_seq, store.db.writing_connection() as connection:
        store.db.recorder.insert_events(connection, game_id, [{**records[0], "seq": 0}])  # CHECK (seq >= 1)
    assert not store.db.recorder.is_transient(bad_seq.value)
    with pytest.raises(DBAPIError) as bad_sql, store.db.reading() as session:
        session.execute(text("SELECT nothing FROM nowhere"))
    assert not store.db.recorder.is_transient(bad_sql.value)


def test_a_write_that_lost_a_race_is_run_again(store: Store, club: ClubInfo) -> None:
    records = simulated_records()
    game_id = stored_log(store, club, records[:3])
    tries: list[int] = []

    def attempt() -> int:
        tries.append(1)
        with store.db.writing_connection() as connection:
            store.db.recorder.insert_events(connection, game_id, records[2:4] if len(tries) == 1 else records[3:4])
        return len(tries)

    assert store.db.retrying(attempt) == 2
    assert read(store, game_id) == records[:4]


def test_a_snapshot_sees_one_moment_throughout(store: Store, club: ClubInfo) -> None:
    records = simulated_records()
    game_id = stored_log(store, club, records[:5])
    with store.db.snapshot() as session:
        connection = session.connection()
        before = list(store.db.recorder.select_records(connection, game_id, 0, LAST_SEQ))
        with store.db.writing_connection() as writer:
            store.db.recorder.insert_events(writer, game_id, records[5:9])
        assert list(store.db.recorder.select_records(connection, game_id, 0, LAST_SEQ)) == before == records[:5]
    assert read(store, game_id) == records[:9]


def test_the_signing_keys_and_clubs_can_be_locked_in_a_write(store: Store, club: ClubInfo) -> None:
    with store.db.writing_connection() as connection:
        store.db.recorder.lock_signing_keys(connection)
        store.db.recorder.lock_clubs(connection, [club.id, "no-such-club"])
        store.db.recorder.lock_clubs(connection, [])


def test_the_writers_file_is_beside_a_database_file_only(backend: str, database_url: str) -> None:
    recorder = recorder_for(database_url)
    if backend == "sqlite":
        assert recorder.writers_file(database_url) == f"{database_url.removeprefix('sqlite:///')}.writers"
        assert recorder.writers_file("sqlite://") is None
    else:
        assert recorder.writers_file(database_url) is None


def test_a_database_the_ledger_does_not_run_on_is_named() -> None:
    with pytest.raises(ArgumentError, match="not in mysql"):
        recorder_for("mysql://db.example/ledger")
    with pytest.raises(ArgumentError, match=r"Can't load plugin: sqlalchemy\.dialects:nosuchkind"):
        recorder_for("nosuchkind://x")


def test_a_text_is_found_in_another_whatever_the_case_of_either(store: Store) -> None:
    found = {}
    for needle in ("SOIRÉE", "soirée", "ŒUF", "strasse", "100%", "a_b", "é", "x"):
        column = func.cast(text("'Soirée : œuf, 100% STRASSE, a_b'"), Player.name.type)
        with store.db.reading() as session:
            found[needle] = session.scalar(select(store.db.recorder.contains_folded(column, needle)))
    assert found == {"SOIRÉE": True, "soirée": True, "ŒUF": True, "strasse": True, "100%": True, "a_b": True,
                     "é": True, "x": False}
    with store.db.reading() as session:  # % and _ are letters, not patterns
        column = func.cast(text("'a1b 100 percent'"), Player.name.type)
        assert session.scalar(select(store.db.recorder.contains_folded(column, "a_b"))) is False
        assert session.scalar(select(store.db.recorder.contains_folded(column, "1%"))) is False
