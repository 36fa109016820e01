"""An SQLite file's write-ahead log is checkpointed by a thread of the store's, off the writers' path."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from nj_ledger import new_game
from nj_ledger.store import Store
from nj_ledger.store.migrate import upgrade
from nj_ledger.store.walcheckpoints import BACKSTOP_PAGES, WalCheckpointer


def file_store(folder: Path) -> tuple[Store, Path]:
    path = folder / "ledger.sqlite"
    upgrade(f"sqlite:///{path}")
    return Store(f"sqlite:///{path}"), path


def write_a_game(store: Store) -> None:
    club, _ = store.clubs.create_club("Club")
    store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60), [{"type": "deal"}])


def unchecked_frames(path: Path) -> int:
    """Frames of the log not yet copied into the database (a PASSIVE checkpoint of a fresh connection copies
    nothing new when the store's thread has)."""
    with sqlite3.connect(path) as connection:
        busy, logged, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert busy == 0
    return int(logged - copied)


def test_the_log_is_checkpointed_after_a_write_by_the_stores_thread(tmp_path: Path) -> None:
    store, path = file_store(tmp_path)
    try:
        assert store.db.checkpointer is not None
        write_a_game(store)
        assert store.db.checkpointer.idle(timeout=10)
        assert store.db.checkpointer.checkpoints >= 1
        with store.db.reading() as session:  # the writers' own checkpoints wait for a log of BACKSTOP_PAGES
            assert session.connection().exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == BACKSTOP_PAGES
    finally:
        store.close()
    assert store.db.checkpointer._thread is None  # closing the store ends its thread
    assert unchecked_frames(path) == 0


def test_the_thread_ends_when_idle_and_starts_again_with_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    with sqlite3.connect(path, isolation_level=None) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA wal_autocheckpoint=0")  # only the checkpointer copies the log back
        connection.execute("CREATE TABLE t (x)")
        checkpointer = WalCheckpointer(path, delay=0.01, idle_seconds=0.05)
        try:
            for round_ in range(1, 3):
                connection.execute("INSERT INTO t VALUES (?)", (round_,))
                checkpointer.wrote()
                assert checkpointer.idle(timeout=10)
                assert checkpointer.checkpoints == round_
                assert unchecked_frames(path) == 0
                thread = checkpointer._thread
                if thread is not None:
                    thread.join(timeout=10)  # idle: it ends by itself
                assert checkpointer._thread is None
        finally:
            checkpointer.stop()
        connection.execute("INSERT INTO t VALUES (3)")
        checkpointer.wrote()  # stopped: no new thread
        assert checkpointer._thread is None
        assert checkpointer.checkpoints == 2


def test_a_database_in_memory_or_on_a_server_has_no_checkpointer(store: Store) -> None:
    memory = Store("sqlite://")
    try:
        assert memory.db.checkpointer is None
    finally:
        memory.close()
    if store.db.dialect == "postgresql":
        assert store.db.checkpointer is None


def test_a_database_removed_meanwhile_is_not_made_again(tmp_path: Path) -> None:
    path = tmp_path / "removed.sqlite"
    checkpointer = WalCheckpointer(path, delay=0)
    try:
        checkpointer.wrote()
        assert checkpointer.idle(timeout=10)
    finally:
        checkpointer.stop()
    assert checkpointer.checkpoints == 0
    assert not path.exists()
