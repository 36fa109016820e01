"""A restore loses nothing the database it replaces held (the event log is never deleted): when that database
holds data it is backed up first (``backups/nj-ledger-<moment>-before-restore.tar``, which ``--keep`` never
removes), and the restore says where and how to undo it; when that backup cannot be made, the restore refuses,
changes nothing and says how on (``--no-backup``). On SQLite, what was committed only in the write-ahead log is
written into the file before anything is replaced, so a restore that fails half-way keeps it."""

from __future__ import annotations

import errno
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nj_ledger.store import recorder_for
from nj_ledger.store.backups import SCHEDULED, verify
from nj_ledger.store.sqlite import database_file

from .helpers import destroy, fill, fingerprint, invoked, nj_ledger
from .test_restore_refusals import sqlite_files

KEPT = re.compile(r"Backup of the database at schema \S+ written to (?P<path>\S+) \([^)]*\): "
                  r"`nj-ledger restore (?P=path)` brings it back\.")


def kept_by(said: str) -> Path:
    """The backup a restore made of the database it replaced, as the restore says it (and how it is undone)."""
    found = KEPT.search(said)
    assert found is not None, said
    path = Path(found["path"])
    assert re.fullmatch(r"nj-ledger-\d{8}T\d{6}\.\d{3}Z-before-restore\.tar", path.name), path
    assert f"The database it replaced is kept in {path}: `nj-ledger restore {path}` undoes this restore." in said
    return path


def held(state: dict[str, Any] | None) -> tuple[Any, ...]:
    assert state is not None
    return state["games"], state["clubs"], state["events"]


def test_restoring_the_wrong_file_is_undone_with_the_backup_it_made_first(fresh_url: str, instance: Path,
                                                                         tmp_path: Path) -> None:
    fill(fresh_url, 3)
    old = tmp_path / "old.tar"
    nj_ledger("backup", str(old))
    fill(fresh_url, 2, seed=40, name="Après la sauvegarde")  # recorded since: the wrong restore would lose it
    recorded = fingerprint(fresh_url)

    said = nj_ledger("restore", str(old)).stdout
    kept = kept_by(said)
    assert kept.parent == instance / "backups"
    assert said.index("Backup of the database") < said.index("Restored ")
    games, clubs, events = held(fingerprint(fresh_url))
    assert {"clubs": clubs, "games": len(games), "events": events} == verify(old).contents.counts
    assert len(games) == 3
    assert verify(kept).contents.counts == {"clubs": 2, "games": 5, "events": held(recorded)[2]}

    undone = nj_ledger("restore", str(kept)).stdout  # the undo keeps what it replaces too
    assert held(fingerprint(fresh_url)) == held(recorded)
    again = kept_by(undone)
    assert again != kept and verify(again).contents.counts["games"] == 3

    for _ in range(2):  # the nightly backups' --keep counts its own files only
        nj_ledger("backup", "--keep", "1", f"{instance / 'backups'}/")
    names = sorted(path.name for path in (instance / "backups").iterdir())
    assert kept.name in names and again.name in names
    assert len([name for name in names if SCHEDULED.fullmatch(name)]) == 1 and len(names) == 3


def test_a_restore_into_a_database_holding_nothing_makes_no_backup_first(fresh_url: str, instance: Path,
                                                                        tmp_path: Path) -> None:
    fill(fresh_url, 2)
    good = tmp_path / "good.tar"
    nj_ledger("backup", str(good))
    destroy(fresh_url)
    said = nj_ledger("restore", str(good)).stdout
    assert "Backup of the database" not in said and "undoes this restore" not in said
    assert not (instance / "backups").exists()
    assert len(held(fingerprint(fresh_url))[0]) == 2


def test_a_restore_that_cannot_back_up_first_refuses_and_says_how(fresh_url: str, tmp_path: Path) -> None:
    fill(fresh_url, 2)
    good = tmp_path / "good.tar"
    nj_ledger("backup", str(good))
    fill(fresh_url, 1, seed=60, name="Après la sauvegarde")
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way", encoding="utf-8")
    before = fingerprint(fresh_url)
    files = sqlite_files(fresh_url) if recorder_for(fresh_url).embedded else None
    refusals = [nj_ledger("restore", "--backup-to", str(blocked / "backups"), str(good), expect=1).stderr,
                nj_ledger("restore", str(good), expect=1, env={**os.environ, "NJ_LEDGER_BACKUPS": str(blocked)}).stderr]
    for refused in refusals:
        assert refused.startswith("Error: The database holds data and was not replaced, because no backup of it "
                                  "could be made first: "), refused
        assert "Nothing was changed." in refused and "--backup-to FOLDER" in refused
        assert "`nj-ledger restore --no-backup FILE`" in refused and "Traceback" not in refused
        assert fingerprint(fresh_url) == before
        if files is not None:
            assert sqlite_files(fresh_url) == files

    said = nj_ledger("restore", "--no-backup", str(good)).stdout  # knowingly
    assert "Backup of the database" not in said and "Restored" in said
    assert len(held(fingerprint(fresh_url))[0]) == 2


# --- SQLite: what only the write-ahead log holds -------------------------------------------------------------
ONLY_IN_THE_LOG = "Renommé dans le journal seulement"


def committed_only_in_the_log(url: str) -> None:
    """A club renamed by a process that committed it, then died before anything wrote its log into the file."""
    script = ("import os, sqlite3, sys; connection = sqlite3.connect(sys.argv[1]); "
              "connection.execute('PRAGMA wal_autocheckpoint=0'); "
              "connection.execute('UPDATE clubs SET name = ?', (sys.argv[2],)); connection.commit(); os._exit(0)")
    path = str(database_file(url))
    subprocess.run([sys.executable, "-c", script, path, ONLY_IN_THE_LOG], check=True)
    assert Path(f"{path}-wal").stat().st_size > 0
    assert ONLY_IN_THE_LOG.encode() not in Path(path).read_bytes()


def club_names(path: Path) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return [row[0] for row in connection.execute("SELECT name FROM clubs ORDER BY name")]
    finally:
        connection.close()


def test_a_restore_that_fails_half_way_keeps_what_only_the_log_held(sqlite_url: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    fresh_url = sqlite_url
    fill(fresh_url, 2)
    good = tmp_path / "good.tar"
    nj_ledger("backup", str(good))
    committed_only_in_the_log(fresh_url)
    live = Path(str(database_file(fresh_url)))
    replace = os.replace

    def failing(source: Any, target: Any) -> None:  # the disk fails as the new file is put in the old one's place
        if Path(target) == live:
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(target))
        replace(source, target)

    monkeypatch.setattr(os, "replace", failing)
    refused = invoked("restore", "--no-backup", str(good), expect=1).stderr
    assert refused.startswith("Error: restore-failed: ") and "Nothing was changed." in refused, refused
    monkeypatch.setattr(os, "replace", replace)
    assert club_names(live) == [ONLY_IN_THE_LOG]  # the file alone holds it now


def test_the_backup_made_before_a_restore_holds_what_only_the_log_held(sqlite_url: str, tmp_path: Path) -> None:
    fresh_url = sqlite_url
    fill(fresh_url, 2)
    good = tmp_path / "good.tar"
    nj_ledger("backup", str(good))
    committed_only_in_the_log(fresh_url)
    kept = kept_by(nj_ledger("restore", str(good)).stdout)
    assert club_names(Path(str(database_file(fresh_url)))) == ["Cercle de la sauvegarde"]
    nj_ledger("restore", str(kept))
    assert club_names(Path(str(database_file(fresh_url)))) == [ONLY_IN_THE_LOG]
