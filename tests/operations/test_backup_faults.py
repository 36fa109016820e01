"""Backups on a full disk fail loudly and leave the older backups as they were; ``--keep N`` keeps the N newest
of a folder's scheduled backups and nothing else is ever removed."""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from nj_ledger.store.backups import SCHEDULED, verify

from .helpers import NJ_LEDGER, fill, nj_ledger

OLDER = "nj-ledger-20000101T000000.000Z.tar"  # a scheduled backup's name, of a moment long past


def on_a_small_disk(folder: Path, size: int, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with a tmpfs of ``size`` bytes mounted on ``folder``, in a mount namespace of its own (this
    machine's mounts untouched; a user namespace where the test does not run as root)."""
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed to give the backup a full disk")
    shell = f"set -eu\nmount -t tmpfs -o size={size} nj-ledger-full {shlex.quote(str(folder))}\n{script}"
    namespace = ["--mount", "--propagation", "private"] if os.geteuid() == 0 else ["--user", "--map-root-user",
                                                                                     "--mount"]
    return subprocess.run(["unshare", *namespace, "sh", "-c", shell], capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.mark.parametrize("room", [0.5, 1.5], ids=["the-copy-fails", "the-archive-fails"])
def test_a_backup_on_a_full_disk_fails_loudly_and_the_older_backups_stay(fresh_url: str, tmp_path: Path,
                                                                          room: float) -> None:
    """The disk holds the older backup and ``room`` times the new one: too little for the database's copy, or
    enough for the copy but not for the backup file made of it."""
    fill(fresh_url, 6)
    older = tmp_path / OLDER
    nj_ledger("backup", str(older))
    fill(fresh_url, 6, seed=100, name="Après la sauvegarde")
    probe = tmp_path / "probe.tar"
    nj_ledger("backup", str(probe))
    size = older.stat().st_size + int(probe.stat().st_size * room)
    disk, said = tmp_path / "disk", tmp_path / "said"
    disk.mkdir()
    said.mkdir()
    quoted = {name: shlex.quote(str(path)) for name, path in
              {"older": older, "disk": disk, "out": said / "out", "err": said / "err", "rc": said / "rc",
               "listing": said / "listing"}.items()}
    script = (f"cp {quoted['older']} {quoted['disk']}/\n"
              f"rc=0; {shlex.quote(NJ_LEDGER)} backup --keep 1 {quoted['disk']}/ >{quoted['out']} "
              f"2>{quoted['err']} || rc=$?\necho $rc >{quoted['rc']}\n"
              f"cd {quoted['disk']} && for f in $(ls -A); do echo \"$f $(sha256sum < \"$f\" | cut -d' ' -f1)\"; "
              f"done >{quoted['listing']}\n")
    ran = on_a_small_disk(disk, size, script)
    assert ran.returncode == 0, ran.stderr
    error = (said / "err").read_text()
    assert (said / "rc").read_text().strip() == "1", (said / "out").read_text() + error
    assert error.startswith("Error: backup-failed: ") and "Traceback" not in error
    assert "No space left on device" in error or "disk is full" in error, error
    if room > 1:  # the copy was made: the backup file is what could not be written
        assert "pg_dump" not in error and "SQLite" not in error, error
    assert "as it was" in error or "No backup was made" in error, error
    kept = dict(line.split() for line in (said / "listing").read_text().splitlines())
    assert kept == {OLDER: hashlib.sha256(older.read_bytes()).hexdigest()}  # no partial file, the older one whole
    assert verify(older).contents.counts["games"] == 6


def test_keep_removes_the_oldest_scheduled_backups_once_the_new_one_is_whole(fresh_url: str,
                                                                             tmp_path: Path) -> None:
    fill(fresh_url, 2)
    folder = tmp_path / "backups"
    folder.mkdir()
    others = {"notes.txt": b"the club's notes", "nj-ledger-20000101T000000.000Z-at-0009_deal_analysis.tar": b"x",
              "nj-ledger-latest.tar": b"y"}
    for name, data in others.items():
        (folder / name).write_bytes(data)
    made = []
    for number in range(4):
        said = nj_ledger("backup", "--keep", "2", f"{folder}/").stdout
        made.append(next(word for word in said.split() if SCHEDULED.fullmatch(Path(word).name)))
        assert ("removed the older" in said) == (number >= 2), said
    scheduled = sorted(path.name for path in folder.iterdir() if SCHEDULED.fullmatch(path.name))
    assert scheduled == sorted(Path(name).name for name in made[-2:])
    assert {name: (folder / name).read_bytes() for name in others} == others  # named otherwise: never removed
    for name in scheduled:
        assert verify(folder / name).contents.counts["games"] == 2
    refused = nj_ledger("backup", "--keep", "2", str(tmp_path / "one.tar"), expect=2).stderr
    assert "--keep" in refused and "only with a FOLDER" in refused
