"""A restore refuses, with a sentence and a stable code, every file that is not a whole backup of this product
for this database (cut short, damaged, another program's, the other database's, a later release's), and a
database that a process has open; and it changes nothing when it refuses."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.scratch import migrated_database
from nj_ledger.store import recorder_for
from nj_ledger.store.database import DATABASE_URL_ENV
from nj_ledger.store.sqlite import database_file
from support.backends import usable_backend

from .helpers import destroy, fill, fingerprint, invoked, nj_ledger


def members(backup: Path) -> tuple[dict[str, Any], bytes, tarfile.TarInfo]:
    """A backup's manifest, its database's bytes, and the database's member (where its bytes lie in the file)."""
    with tarfile.open(backup) as tar:
        manifest_member, payload_member = tar.getmembers()
        manifest = json.loads(tar.extractfile(manifest_member).read())  # type: ignore[union-attr]
        payload = tar.extractfile(payload_member).read()  # type: ignore[union-attr]
    return manifest, payload, payload_member


def archive(path: Path, manifest: dict[str, Any], payload: bytes, name: str | None = None) -> Path:
    """A tar laid out as a backup, with the manifest given (the payload's checksum made to match)."""
    manifest = {**manifest, "payload": {**manifest["payload"], "size": len(payload),
                                        "sha256": hashlib.sha256(payload).hexdigest()}}
    with tarfile.open(path, "w") as tar:
        for member, data in (("manifest.json", json.dumps(manifest).encode()),
                             (name or manifest["payload"]["name"], payload)):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def foreign_files(good: Path, folder: Path) -> dict[str, tuple[Path, str]]:
    """Every kind of file a restore must refuse, and the code it is refused with."""
    raw = good.read_bytes()
    manifest, payload, member = members(good)
    made: dict[str, tuple[Path, str]] = {}

    def file(name: str, data: bytes, code: str = "not-a-backup") -> None:
        (folder / name).write_bytes(data)
        made[name] = (folder / name, code)

    file("cut-in-the-database.tar", raw[:member.offset_data + member.size // 2])
    file("cut-before-its-last-bytes.tar", raw[:member.offset_data + member.size - 100])
    file("manifest-only.tar", raw[:member.offset])
    file("cut-in-the-manifest.tar", raw[:700])
    file("empty.tar", b"")
    file("random.bin", os.urandom(200_000))
    file("backup.tar.gz", gzip.compress(raw, compresslevel=1))
    file("manifest.json", json.dumps(manifest).encode())
    damaged = bytearray(raw)
    damaged[member.offset_data + member.size // 3] ^= 0xFF
    file("one-byte-changed.tar", bytes(damaged))
    other = sqlite3.connect(folder / "another-program.sqlite")
    other.execute("CREATE TABLE notes (text)")
    other.execute("INSERT INTO notes VALUES ('not a ledger')")
    other.commit()
    other.close()
    made["another-program.sqlite"] = (folder / "another-program.sqlite", "not-a-backup")
    made["another-product.tar"] = (archive(folder / "another-product.tar", {**manifest, "product": "ledger-x"},
                                           payload), "not-a-backup")
    made["incomplete-manifest.tar"] = (archive(folder / "incomplete-manifest.tar",
                                               {k: v for k, v in manifest.items() if k != "counts"}, payload),
                                       "not-a-backup")
    made["a-later-format.tar"] = (archive(folder / "a-later-format.tar", {**manifest, "format": 2}, payload),
                                  "backup-too-new")
    made["a-later-schema.tar"] = (archive(folder / "a-later-schema.tar", {**manifest, "revision": "0099_future"},
                                          payload), "backup-too-new")
    made["counts-that-lie.tar"] = (archive(folder / "counts-that-lie.tar", {
        **manifest, "counts": {**manifest["counts"], "events": manifest["counts"]["events"] + 1}}, payload),
        "not-a-backup" if manifest["backend"] == "sqlite" else "restore-failed")
    made["a-third-member.tar"] = (folder / "a-third-member.tar", "not-a-backup")
    with tarfile.open(folder / "a-third-member.tar", "w") as tar, tarfile.open(good) as source:
        for item in source.getmembers():
            tar.addfile(item, source.extractfile(item))
        extra = tarfile.TarInfo("more.sql")
        extra.size = 4
        tar.addfile(extra, io.BytesIO(b"DROP"))
    return made


def sqlite_files(url: str) -> dict[str, str]:
    """The SQLite database's folder: every file and its checksum (nothing may appear, vanish or change)."""
    folder = Path(str(database_file(url))).parent
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in folder.iterdir() if path.is_file()}


@pytest.fixture
def other_backend_backup(backend: str, tmp_path: Path) -> Path:
    """A real backup of the other kind of database: both must be reachable (an unreachable PostgreSQL skips the
    test, or fails it where it is required)."""
    other = "postgresql" if backend == "sqlite" else "sqlite"
    usable_backend(other)
    with migrated_database(other, tmp_path / "other") as url:
        fill(url, 1, seed=7, name="Un autre club")
        target = tmp_path / "other.tar"
        nj_ledger("backup", str(target), env={**os.environ, DATABASE_URL_ENV: url})
    return target


def refused_and_nothing_changed(url: str, bad: dict[str, tuple[Path, str]]) -> None:
    """Each file restored, each refused with its code, the database and its folder as they were."""
    before = fingerprint(url)
    files = sqlite_files(url) if recorder_for(url).embedded else None
    for name, (path, code) in bad.items():
        refused = invoked("restore", str(path), expect=1).stderr
        assert refused.startswith(f"Error: {code}: "), (name, refused)
        assert "othing was changed" in refused and "Traceback" not in refused, (name, refused)
        assert fingerprint(url) == before, name
        if files is not None:
            assert sqlite_files(url) == files, name


def test_a_file_that_is_not_a_whole_backup_is_refused_and_nothing_changes(fresh_url: str, tmp_path: Path) -> None:
    fill(fresh_url, 4)
    good = tmp_path / "good.tar"
    nj_ledger("backup", str(good))
    (tmp_path / "bad").mkdir()
    before = fingerprint(fresh_url)
    refused_and_nothing_changed(fresh_url, foreign_files(good, tmp_path / "bad"))
    assert before is not None and len(before["games"]) == 4
    nj_ledger("restore", str(good))  # and the whole one restores
    assert fingerprint(fresh_url) == before


def test_a_backup_of_the_other_database_is_refused_and_nothing_changes(fresh_url: str,
                                                                      other_backend_backup: Path) -> None:
    fill(fresh_url, 2)
    refused_and_nothing_changed(fresh_url, {"the-other-database.tar": (other_backend_backup, "wrong-database")})


def test_a_refused_restore_into_a_destroyed_database_makes_none(fresh_url: str, tmp_path: Path) -> None:
    fill(fresh_url, 2)
    good = tmp_path / "good.tar"
    nj_ledger("backup", str(good))
    _, _, member = members(good)
    cut = tmp_path / "cut.tar"
    cut.write_bytes(good.read_bytes()[:member.offset_data + 1000])
    destroy(fresh_url)
    assert "not-a-backup" in nj_ledger("restore", str(cut), expect=1).stderr
    assert fingerprint(fresh_url) is None
    if recorder_for(fresh_url).embedded:
        assert not Path(str(database_file(fresh_url))).exists()
        assert [p.name for p in Path(str(database_file(fresh_url))).parent.iterdir() if "work" in p.name] == []


def holding(url: str) -> Callable[[], None]:
    """A process that has the database open (as a server does between requests); the function lets it go."""
    script = ("import sys; from nj_ledger.store import Store; store = Store(sys.argv[1]); store.clubs.list_clubs(); "
              "print('ready', flush=True); sys.stdin.read(); store.close()")
    process = subprocess.Popen([sys.executable, "-c", script, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"

    def release() -> None:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)

    return release


def test_an_sqlite_database_open_in_another_process_is_not_replaced(sqlite_url: str, tmp_path: Path) -> None:
    fresh_url = sqlite_url
    fill(fresh_url, 2)
    good = tmp_path / "good.tar"
    nj_ledger("backup", str(good))
    fill(fresh_url, 1, seed=50, name="Après la sauvegarde")
    before, files = fingerprint(fresh_url), sqlite_files(fresh_url)
    release = holding(fresh_url)
    try:
        refused = nj_ledger("restore", str(good), expect=1).stderr
    finally:
        release()
    assert refused.startswith("Error: database-in-use: ") and "stop it first" in refused
    assert fingerprint(fresh_url) == before and sqlite_files(fresh_url) == files
    nj_ledger("restore", str(good))  # once the process has let go
    after = fingerprint(fresh_url)
    assert after is not None and before is not None and len(after["games"]) == len(before["games"]) - 1
