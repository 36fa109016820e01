"""Backing up and restoring the ledger's database: ``nj-ledger backup``, ``nj-ledger restore``, and the backups
made before a change that could lose what a database holds: ``nj-ledger db upgrade`` before it migrates one,
``nj-ledger restore`` before it replaces one (the event log is never deleted, not even by restoring the wrong
file). Each begins by removing what an interrupted backup or restore left in its folder (:mod:`.leftovers`)."""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from ..base import utcnow
from ..database import make_engine
from ..migrate import alembic_config, current_revision, head_revision, upgrade
from ..recorder import recorder_for
from . import postgresql, sqlite
from .archive import PAYLOADS, BackupError, Contents, Manifest, digest, extract, opened, work_folder, write_archive
from .contents import signing_after_restore
from .leftovers import sweep

SCHEDULED = re.compile(r"nj-ledger-\d{8}T\d{6}\.\d{3}Z\.tar")  # the names `--keep` counts (and may remove)
BEFORE_RESTORE = "-before-restore"  # the label of the backup a restore makes first (never removed by `--keep`)


@dataclass(frozen=True)
class Made:
    """A backup written: where, what it holds, how long it took, the older backups ``--keep`` removed, and what
interrupted backups or restores had left in its folder (removed)."""

    path: Path
    manifest: Manifest
    seconds: float
    removed: list[Path] = field(default_factory=list)
    swept: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Restored:
    """A restore done: what the backup held, the key that signs from now on (None: none of the backup's, see
    ``signing``), the revision it was migrated to (None: it was at this release's), how long it took, and what
    interrupted backups or restores had left where it unpacks (removed)."""

    manifest: Manifest
    key: str | None
    signing: str | None
    migrated_to: str | None
    seconds: float
    swept: list[Path] = field(default_factory=list)


def shown(url: str) -> str:
    """The database as a sentence names it (never its password)."""
    return str(sqlite.live_file(url)) if recorder_for(url).embedded else postgresql.where(url)


def release() -> str:
    try:
        return version("nj-ledger")
    except PackageNotFoundError:
        return "unknown"


def _dump(url: str, into: Path) -> tuple[Contents, str, str | None]:
    if recorder_for(url).embedded:
        return sqlite.dump(url, into)
    return postgresql.dump(url, into)


def backup(url: str, target: Path) -> Made:
    """Write a backup of the database of ``url`` to ``target`` (replaced in one step if it is there), taken in one
    moment while writers go on. A failure (a full disk) leaves no partial file and every other file as it was
    (but the leftovers of interrupted backups, removed first: the room they took is what a full disk lacks)."""
    started = time.perf_counter()
    target = target.absolute()
    backend = recorder_for(url).name
    swept = sweep(target.parent)
    try:
        with work_folder(target) as folder:
            payload = folder / PAYLOADS[backend]
            contents, taken, schema = _dump(url, payload)
            size, sha256 = digest(payload)
            manifest = Manifest(backend, taken, release(), contents, size, sha256, schema)
            write_archive(target, manifest, payload)
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        raise _failed(target, f"{error.strerror or error}{where}.") from None
    except BackupError as error:
        if error.code != "backup-failed":
            raise
        raise _failed(target, error.sentence) from None
    return Made(target, manifest, time.perf_counter() - started, swept=swept)


def _failed(target: Path, why: str) -> BackupError:
    return BackupError("backup-failed", f"The backup to {target} failed: {why} No backup was made; every file "
                                        f"already in {target.parent} is as it was.")


def stamped(label: str = "") -> str:
    """A backup's name in a folder: the moment it was taken, UTC, to the millisecond (names sort as moments)."""
    moment = utcnow()
    return f"nj-ledger-{moment:%Y%m%dT%H%M%S}.{moment.microsecond // 1000:03d}Z{label}.tar"


def backup_in(url: str, folder: Path, keep: int | None = None, label: str = "") -> Made:
    """A backup in ``folder`` under a name of its moment; with ``keep``, then only the ``keep`` newest such
    backups stay there (removed once the new one is whole; named otherwise, a file is never removed)."""
    made = backup(url, folder / stamped(label))
    if keep is None:
        return made
    backups = sorted(path for path in made.path.parent.iterdir() if SCHEDULED.fullmatch(path.name))
    removed = backups[:-keep] if len(backups) > keep else []
    for old in removed:
        try:
            old.unlink()
        except OSError as error:
            raise BackupError("prune-failed", f"The backup {made.path} is written, but the older {old} could not "
                                              f"be removed: {error.strerror or error}.") from None
    return replace(made, removed=removed)


# --- restoring -----------------------------------------------------------------------------------------
def known_revision(revision: str) -> bool:
    """Whether this release's migrations know the schema revision (a later release's is unknown)."""
    try:
        return ScriptDirectory.from_config(alembic_config("sqlite://")).get_revision(revision) is not None
    except CommandError:
        return False


def _unpacked_beside(url: str) -> Path:
    """What a backup's database is unpacked beside: the live SQLite file (renamed into its place from there), or
    for a PostgreSQL dump, the temporary folder (``TMPDIR``)."""
    if recorder_for(url).embedded:
        return sqlite.live_file(url)
    return Path(tempfile.gettempdir()) / "nj-ledger-restore"


def restore(url: str, path: Path, *, first: Callable[[], object] | None, other_key: bool = False) -> Restored:
    """Replace the database of ``url`` by the backup at ``path``, after checking everything that can be checked
    first: a whole backup of this product (manifest, checksum), of this kind of database, of a schema this
    release knows (an older one is migrated after), whose games the configured key may go on signing (unless
    ``other_key``), an SQLite file no other process has open. Then ``first`` is done (the backup of the database
    as it stands, :func:`backup_before_restore`; None: the operator made one), and only then is the database
    replaced. A refusal, or a ``first`` that raises, changes nothing."""
    started = time.perf_counter()
    backend = recorder_for(url).name
    with opened(path) as (manifest, archive, member):
        if manifest.backend != backend:
            raise BackupError("wrong-database", f"{path} is a backup of a {manifest.backend} database, and the "
                                                f"database to restore ({shown(url)}) is {backend}: restore it with "
                                                "NJ_LEDGER_DATABASE_URL naming a database of its kind. Nothing was "
                                                "changed.")
        if not known_revision(manifest.contents.revision):
            raise BackupError("backup-too-new", f"{path} holds schema revision {manifest.contents.revision}, which "
                                                f"this release ({release()}) does not know: it was made by a later "
                                                "release. Restore it with that release or a later one. Nothing was "
                                                "changed.")
        key, signing = signing_after_restore(manifest.contents)
        if signing is not None and not other_key:
            raise BackupError("signing-key", f"{signing} Nothing was changed.")
        if recorder_for(url).embedded and sqlite.in_use(sqlite.live_file(url)):
            raise BackupError("database-in-use", f"The database {shown(url)} is open in another process (a server, "
                                                 "an import): stop it first, then restore. Nothing was changed.")
        beside = _unpacked_beside(url)
        swept = sweep(beside.parent)
        try:
            with work_folder(beside) as folder:
                payload = folder / member.name
                extract(path, archive, member, manifest, payload)
                load = sqlite.load if recorder_for(url).embedded else postgresql.load
                load(url, payload, manifest, str(path), first)
        except OSError as error:
            where = f" ({error.filename})" if error.filename else ""
            raise BackupError("restore-failed", f"The backup could not be unpacked and put in place: "
                                                f"{error.strerror or error}{where}. Nothing was changed.") from None
    migrated = None
    if manifest.contents.revision != head_revision():
        try:
            upgrade(url)
        except SQLAlchemyError as error:
            raise BackupError("migration-failed", f"The backup is restored (schema revision "
                                                  f"{manifest.contents.revision}), but migrating it failed: "
                                                  f"{error}. Run `nj-ledger db upgrade` once mended.") from None
        migrated = head_revision()
    return Restored(manifest, key, signing, migrated, time.perf_counter() - started, swept)


# --- before an upgrade or a restore --------------------------------------------------------------------
def holds_data(url: str) -> bool:
    """Whether the database holds a club (so: anything worth a backup)."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(text("SELECT 1 FROM clubs LIMIT 1")).first() is not None
    except SQLAlchemyError:
        return False  # no such table: a database never set up
    finally:
        engine.dispose()


def revision_to_back_up(url: str) -> str | None:
    """The database's revision when a migration would change a database that holds data; None when it needs no
    backup first (at this release's revision already, or empty)."""
    current = current_revision(url)
    if current is None or current == head_revision() or not holds_data(url):
        return None
    return current


def backup_before_upgrade(url: str, folder: Path) -> Made | None:
    """The backup a migration of a database holding data starts with, in ``folder`` and named after the revision
    it holds (never removed by ``--keep``); None when none is needed (:func:`revision_to_back_up`)."""
    revision = revision_to_back_up(url)
    if revision is None:
        return None
    return backup_in(url, folder, label=f"-at-{revision}")


def backup_before_restore(url: str, folder: Path) -> Made | None:
    """The backup a restore makes of the database it replaces when that one holds data, in ``folder`` and named
    :data:`BEFORE_RESTORE` (never removed by ``--keep``): restoring the wrong file loses nothing, it is undone by
    restoring this one. None when the database holds nothing (destroyed, never set up)."""
    if recorder_for(url).embedded and not sqlite.live_file(url).is_file():
        return None  # no file: nothing to keep (and none made by looking)
    if not holds_data(url):
        return None
    return backup_in(url, folder, label=BEFORE_RESTORE)
