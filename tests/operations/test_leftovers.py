"""What a backup or a restore killed half-way leaves behind (a ``.work`` folder holding a whole copy of the
database, a ``.partial`` backup file) is named after its process, and the next backup or restore in that folder
removes it once that process is gone, and nothing else: not the leftovers of a process that still runs, nor of
another machine, nor any other file. Otherwise ``--keep`` would never see them, and the disk would fill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from nj_ledger.store import recorder_for
from nj_ledger.store.backups import SCHEDULED, verify
from nj_ledger.store.backups.leftovers import owner
from nj_ledger.store.sqlite import database_file

from .helpers import fill, fingerprint, nj_ledger

# the command, in a process that dies (SIGKILL, as a power cut would stop it) when it first makes a file durable:
# a backup once its copy is whole and its archive written, not yet renamed; a restore as it unpacks the backup
KILLED_AT_FIRST_SYNC = ("import os, signal, sys\n"
                        "os.fsync = lambda descriptor: os.kill(os.getpid(), signal.SIGKILL)\n"
                        "from cli.commands import main\n"
                        "main(sys.argv[1:])\n")


def killed(*arguments: str, env: dict[str, str] | None = None) -> int:
    """``nj-ledger ARGUMENTS`` killed half-way: the id its process had."""
    process = subprocess.Popen([sys.executable, "-c", KILLED_AT_FIRST_SYNC, *arguments], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    _, errors = process.communicate(timeout=300)
    assert process.returncode == -signal.SIGKILL, errors
    return process.pid


def contents(folder: Path) -> dict[str, bytes | None]:
    """A folder's entries: a file's bytes, None for a folder."""
    return {path.name: None if path.is_dir() else path.read_bytes() for path in folder.iterdir()}


def others_beside(folder: Path) -> dict[str, bytes | None]:
    """Files a sweep must not touch: leftovers of this test's own process (it runs), of another machine (whether
    its process runs cannot be told), and files named like leftovers without an owner, or none at all."""
    _, pid, _ = owner().split("~")
    already = set(contents(folder))
    running = folder / f".nj-ledger-20261127T033000.000Z.tar~{owner()}~a1b2c3d4.work"
    running.mkdir()
    (running / "database.sqlite").write_bytes(b"a copy being made")
    for name, data in {f".nj-ledger-x.tar~another-machine~{pid}~0.1~e5f6g7h8.partial": b"theirs",
                       ".notes.work": b"the club's", "notes.partial": b"the club's",
                       "nj-ledger-20000101T000000.000Z-at-0009_deal_analysis.tar": b"kept"}.items():
        (folder / name).write_bytes(data)
    made = {name: data for name, data in contents(folder).items() if name not in already}
    return {**made, f"{running.name}/database.sqlite": b"a copy being made"}


def still_there(folder: Path, others: dict[str, bytes | None]) -> None:
    for name, data in others.items():
        assert (folder / name).exists(), name
        assert data is None or (folder / name).read_bytes() == data, name


def pid_taken_again(folder: Path) -> str:
    """A leftover whose process id is another process's now (this test's: it began after the one named)."""
    host, pid, _ = owner().split("~")
    name = f".nj-ledger-x.tar~{host}~{pid}~0.1~i9j0k1l2.partial"
    (folder / name).write_bytes(b"a dead process's")
    return name


def test_a_killed_backup_leaves_files_the_next_backup_removes_and_nothing_else(fresh_url: str,
                                                                              tmp_path: Path) -> None:
    fill(fresh_url, 3)
    folder = tmp_path / "backups"
    folder.mkdir()
    pid = killed("backup", "--keep", "2", f"{folder}/")
    left = sorted((path.name for path in folder.iterdir()), key=lambda name: name.rsplit(".", 1)[1])
    assert [name.rsplit(".", 1)[1] for name in left] == ["partial", "work"], left
    assert all(f"~{pid}~" in name for name in left), (pid, left)
    assert (folder / left[1] / ("database.sqlite" if recorder_for(fresh_url).embedded else "database.pgdump")
            ).stat().st_size > 0  # a whole copy of the database
    others = others_beside(folder)
    reused = pid_taken_again(folder)

    said = nj_ledger("backup", "--keep", "2", f"{folder}/").stdout
    for name in [*left, reused]:
        assert f"removed {name}, left by an interrupted backup or restore (its process is gone)" in said, said
    made = [name for name in contents(folder) if SCHEDULED.fullmatch(name)]
    assert len(made) == 1 and verify(folder / made[0]).contents.counts["games"] == 3
    still_there(folder, others)
    assert sorted(contents(folder)) == sorted(made + [name for name in others if "/" not in name])


def test_a_killed_restore_leaves_a_copy_the_next_restore_removes(fresh_url: str, tmp_path: Path) -> None:
    fill(fresh_url, 2)
    good = tmp_path / "good.tar"
    nj_ledger("backup", str(good))
    fill(fresh_url, 1, seed=30, name="Après la sauvegarde")
    before = fingerprint(fresh_url)
    temporary = tmp_path / "tmp"  # where PostgreSQL's dump is unpacked (TMPDIR); SQLite's, beside its file
    temporary.mkdir()
    environment = {**os.environ, "TMPDIR": str(temporary)}
    beside = Path(str(database_file(fresh_url))).parent if recorder_for(fresh_url).embedded else temporary
    earlier = contents(beside)

    pid = killed("restore", str(good), env=environment)
    assert fingerprint(fresh_url) == before  # killed before anything was replaced
    left = [name for name in contents(beside) if name not in earlier]
    assert len(left) == 1 and left[0].endswith(".work") and f"~{pid}~" in left[0], left
    others = others_beside(beside)

    said = nj_ledger("restore", str(good), env=environment).stdout
    assert f"removed {left[0]}, left by an interrupted backup or restore (its process is gone)" in said, said
    assert "Restored" in said
    after = fingerprint(fresh_url)
    assert after is not None and before is not None and len(after["games"]) == len(before["games"]) - 1
    assert left[0] not in contents(beside)
    still_there(beside, others)
