"""SQLite's backups: a copy made by SQLite's online backup, and a restore that replaces the file in one step.

The copy is one step of ``sqlite3_backup`` (Python's ``Connection.backup``): a read transaction that sees
one moment of the database while its writers go on appending to the write-ahead log. The copy is then checked
(``PRAGMA integrity_check``) and counted, so the manifest describes the copy itself, not the live database.

A restore writes the backup's database beside the live file, checks it again, and renames it over the live
file while it holds the writers' turn (:class:`~nj_ledger.store.database.WriterQueue`). Before that, the live
database is backed up (the caller's ``first``: the command line writes ``…-before-restore.tar``), then its
write-ahead log is written into its file and emptied (``PRAGMA wal_checkpoint(TRUNCATE)``, checked to have
completed): only then is the empty log removed (its pages would be replayed onto the new file). So a crash at
any point leaves the old database whole, with every transaction it committed. It refuses while another process
has the database open: a server would go on with the old file's pages in its memory.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import create_engine

from ..base import iso, utcnow
from ..database import WriterQueue
from ..sqlite import BUSY_TIMEOUT_MS, database_file
from .archive import BackupError, Contents, Manifest, sync_folder
from .contents import read_contents

if sys.platform != "win32":  # POSIX: SQLite's locks are fcntl's; elsewhere no other process's is seen
    import fcntl

WAL_INDEX_DMS = 128  # the byte of the -shm file every open connection holds a shared lock on (SQLite's wal.c)


def live_file(url: str) -> Path:
    """The database file of ``url`` (a database in memory has none to back up or restore)."""
    path = database_file(url)
    if path is None:
        raise BackupError("no-database-file", "This SQLite database is in memory: it has no file to back up or "
                                              "restore.")
    return path


def dump(url: str, into: Path) -> tuple[Contents, str, None]:
    """Copy the database of ``url`` to the new file ``into``: what the copy holds, and when it was taken."""
    path = live_file(url)
    if not path.is_file():
        raise BackupError("no-database", f"There is no database at {path}: nothing to back up.")
    try:
        source = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            target = sqlite3.connect(into)
            try:
                taken = iso(utcnow())
                source.backup(target)  # in one step: one read transaction, one moment of the database
            finally:
                target.close()
        finally:
            source.close()
    except sqlite3.Error as error:  # a full disk is said by SQLite: "database or disk is full"
        raise BackupError("backup-failed", f"SQLite could not copy {path}: {error}.") from None
    return contents(into, str(path)), taken, None


def contents(path: Path, where: str) -> Contents:
    """What the database file ``path`` holds, after SQLite checked every page of it."""
    connection = sqlite3.connect(path)
    try:
        found = [row[0] for row in connection.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as error:
        raise BackupError("damaged-database", f"The copy of {where} is not a sound database: {error}.") from None
    finally:
        connection.close()
    if found != ["ok"]:
        raise BackupError("damaged-database", f"The copy of {where} is not a sound database: {'; '.join(found[:3])}.")
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as read:
            return read_contents(read, where)
    finally:
        engine.dispose()


def in_use(path: Path) -> bool:
    """Whether a connection of another process has the database open: each holds a shared lock on a byte of its
    ``-shm`` file for as long as it is open (a connection of this process would not show; none is open here)."""
    if sys.platform == "win32":
        return False
    try:
        descriptor = os.open(f"{path}-shm", os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        try:
            fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, WAL_INDEX_DMS)
        except OSError:
            return True
        fcntl.lockf(descriptor, fcntl.LOCK_UN, 1, WAL_INDEX_DMS)
        return False
    finally:
        os.close(descriptor)


def check(url: str, payload: Path, manifest: Manifest, shown: str) -> None:
    """Before anything is changed: the backup's database (``payload``) is sound and holds what its manifest says."""
    live_file(url)
    found = contents(payload, shown)
    if (found.revision, found.counts) != (manifest.contents.revision, manifest.contents.counts):
        raise BackupError("not-a-backup", f"The database in {shown} does not hold what its manifest says "
                                          f"({found.counts} at {found.revision}, not {manifest.contents.counts} at "
                                          f"{manifest.contents.revision}): nothing was changed.")


def checkpoint(path: Path) -> None:
    """Write every transaction of the live database's write-ahead log into its file and empty the log, or refuse:
    what was committed only in the log would be lost with it."""
    if not path.exists():
        return
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # a hot journal is rolled back
            busy, logged, written = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise BackupError("restore-failed", f"The write-ahead log of {path} could not be written into it "
                                            f"({error}): nothing was changed.") from None
    log = Path(f"{path}-wal")
    left = log.stat().st_size if log.exists() else 0
    if busy or logged != written or left:
        raise BackupError("database-in-use", f"The write-ahead log of {path} could not be written into it whole "
                                             "(another process is reading or writing the database): stop it first "
                                             "(`systemctl stop nj-ledger`), then restore. Nothing was changed.")


def load(url: str, payload: Path, manifest: Manifest, shown: str, first: Callable[[], object] | None) -> None:
    """Put the backup's database (``payload``, a file beside the live one) in the live file's place, once
    ``first`` (the backup of the live database) is done."""
    path = live_file(url)
    check(url, payload, manifest, shown)
    with WriterQueue(url).turn(wait=False) as free:
        if not free or in_use(path):
            raise _in_use(path)
        if first is not None:
            first()
        checkpoint(path)
        if in_use(path):  # opened since
            raise _in_use(path)
        if path.exists():  # the server's user keeps its file, whoever restores it
            kept = path.stat()
            os.chmod(payload, stat.S_IMODE(kept.st_mode))
            try:
                os.chown(payload, kept.st_uid, kept.st_gid)
            except PermissionError:
                pass  # not root: the file is the restorer's, as the old one was
        for stale in (f"{path}-wal", f"{path}-shm", f"{path}-journal"):  # emptied: never to touch the new file
            Path(stale).unlink(missing_ok=True)
        os.replace(payload, path)
        sync_folder(path.parent)


def _in_use(path: Path) -> BackupError:
    return BackupError("database-in-use", f"The database {path} is open in another process (a server, an import): "
                                          "stop it first (`systemctl stop nj-ledger`), then restore. Nothing was "
                                          "changed.")
