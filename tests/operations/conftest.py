"""Operations: backups that restore and verify, restores that refuse what is not a whole backup, upgrades that
back up first; on SQLite and PostgreSQL, each test with a database and an instance folder (the signing key) of
its own, and the commands run as an operator runs them: ``nj-ledger`` in a process of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.scratch import migrated_database
from nj_ledger.store.database import DATABASE_URL_ENV, INSTANCE_ENV
from support.backends import backend, database_url, store  # noqa: F401 - fixtures of every database test


@pytest.fixture
def instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's instance folder: its signing key (and an SQLite database's backups by default)."""
    folder = tmp_path / "instance"
    folder.mkdir()
    monkeypatch.setenv(INSTANCE_ENV, str(folder))
    return folder


@pytest.fixture
def fresh_url(backend: str, tmp_path: Path, instance: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A database of this test's own at the latest schema, the one every command of the test reaches."""
    with migrated_database(backend, tmp_path) as url:
        monkeypatch.setenv(DATABASE_URL_ENV, url)
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path, instance: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An SQLite database of this test's own, for what only SQLite has (a file that other processes hold open, a
    write-ahead log); PostgreSQL restores in a transaction of its own instead, which its other sessions see whole."""
    with migrated_database("sqlite", tmp_path) as url:
        monkeypatch.setenv(DATABASE_URL_ENV, url)
        yield url
