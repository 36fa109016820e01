"""``nj-ledger backup`` and ``nj-ledger restore`` (docs/DEPLOY.md, "Backups and restores"), and the backup made
before a database that holds data is changed: ``nj-ledger db upgrade`` makes one before it migrates it,
``nj-ledger restore`` before it replaces it (so that restoring the wrong file is undone, and no event is lost).

    $ nj-ledger backup /var/lib/nj-ledger/backups --keep 14
    $ nj-ledger restore /var/lib/nj-ledger/backups/nj-ledger-20261127T033000.000Z.tar

The store's work is in :mod:`nj_ledger.store.backups`, imported inside the commands (``--help`` stays quick).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .language import N_, Nn_, _, say, say_n
from .spoken import SpokenCommand

if TYPE_CHECKING:
    from nj_ledger.store.backups import BackupError, Manifest

BACKUPS_ENV = "NJ_LEDGER_BACKUPS"
BACKUPS_FOLDER = "backups"  # in the instance folder, unless NJ_LEDGER_BACKUPS or --backup-to names another


COUNTED_AS = {"clubs": Nn_("{count:,} club", "{count:,} clubs"), "games": Nn_("{count:,} game", "{count:,} games"),
              "events": Nn_("{count:,} event", "{count:,} events")}  # what a backup holds, counted


def _said(error: BackupError) -> click.ClickException:
    return click.ClickException(f"{error.code}: {error.sentence}")


def _size(count: int) -> str:
    if count < 1000:
        return say("{count:,} bytes", count=count)
    value, unit = count / 1000, "KB"
    for larger in ("MB", "GB"):
        if value < 1000:
            break
        value, unit = value / 1000, larger
    return f"{value:,.1f} {unit}"


def _held(manifest: Manifest) -> str:
    counted = ", ".join(say_n(*COUNTED_AS[name], count) if name in COUNTED_AS
                        else f"{count:,} {name[:-1] if count == 1 else name}"
                        for name, count in manifest.contents.counts.items())
    return say("{counted} as they were at {moment} (schema {revision})", counted=counted,
               moment=manifest.created_at, revision=manifest.contents.revision)


def _swept(paths: list[Path]) -> None:
    for path in paths:
        click.echo(say("  removed {name}, left by an interrupted backup or restore (its process is gone)",
                       name=path.name))


def _key_note() -> str:
    from nj_ledger.store.keys import SIGNING_KEY_ENV, key_source

    source = key_source()
    where = _("the settings file") if source == SIGNING_KEY_ENV else source
    return say("The signing key is not in it: keep a copy of {where} apart, once and after every `nj-ledger keys "
               "rotate` (docs/DEPLOY.md, \"The signing key\").", where=where)


@click.command("backup", cls=SpokenCommand)
@click.argument("named", metavar="FILE|FOLDER", type=click.Path())
@click.option("--keep", type=click.IntRange(1), metavar="N",
              help="With a FOLDER: keep its N newest backups named after their moment, removing older ones once "
                   "the new one is whole (files named otherwise are never removed).")
def backup(named: str, keep: int | None) -> None:
    """Write a backup of the database to FILE (replaced in one step when it is there), or to a new file named
    after its moment in FOLDER (a folder, or a name ending in /). It is taken in one moment while the server
    goes on writing; a backup that fails leaves no file and the older backups as they were."""
    from nj_ledger.store import default_database_url
    from nj_ledger.store.backups import BackupError, backup_in, shown
    from nj_ledger.store.backups import backup as write

    url = default_database_url()
    target = Path(named)
    in_folder = target.is_dir() or named.endswith(os.sep)
    if keep is not None and not in_folder:
        raise click.BadParameter(_("only with a FOLDER: the backups named after their moment there are counted"),
                                 param_hint="--keep")
    try:
        made = backup_in(url, target, keep) if in_folder else write(url, target)
    except BackupError as error:
        raise _said(error) from None
    _swept(made.swept)
    click.echo(say("Backup of {url} written to {path} ({size}, {seconds:.1f} s): {held}.", url=shown(url),
                   path=made.path, size=_size(made.manifest.size), seconds=made.seconds, held=_held(made.manifest)))
    for old in made.removed:
        click.echo(say("  removed the older {name} (--keep {keep})", name=old.name, keep=keep))
    click.echo(_key_note())


@click.command("restore", cls=SpokenCommand)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--other-key", is_flag=True,
              help="Restore although the configured signing key did not sign the backup's games (that key is "
                   "lost); then sign with yours: `nj-ledger keys rotate --adopt --after KEY`.")
@click.option("--backup-to", "backups", type=click.Path(path_type=Path), envvar=BACKUPS_ENV, show_envvar=True,
              help="Where the backup of the database it replaces goes, when that one holds data (default: "
                   "backups/ in the instance folder).")
@click.option("--no-backup", is_flag=True, help="Replace a database that holds data without a backup of it first "
                                                "(you made one yourself).")
def restore(file: Path, other_key: bool, backups: Path | None, no_backup: bool) -> None:
    """Replace the database by the backup FILE. Everything is checked first (a whole backup of nj-ledger, of
    this kind of database, whose games the configured signing key signed); a refusal changes nothing. The
    database it replaces, when it holds data, is backed up first (`nj-ledger restore` of that backup undoes
    this one). Stop the server first, and start it after: what was recorded after the backup is not in it, and
    the receipts members kept name those events."""
    from nj_ledger.store import default_database_url
    from nj_ledger.store.backups import BackupError, shown
    from nj_ledger.store.backups import restore as bring_back

    url = default_database_url()
    kept: list[Path] = []

    def first() -> None:
        made = backup_first(url, backups, RESTORE)
        if made is not None:
            kept.append(made)

    try:
        done = bring_back(url, file, first=None if no_backup else first, other_key=other_key)
    except BackupError as error:
        raise _said(error) from None
    _swept(done.swept)
    migrated = say(", migrated to {revision}", revision=done.migrated_to) if done.migrated_to else ""
    click.echo(say("Restored {file} into {url} in {seconds:.1f} s: {held}{migrated}.", file=file, url=shown(url),
                   seconds=done.seconds, held=_held(done.manifest), migrated=migrated))
    if kept:
        click.echo(say("The database it replaced is kept in {kept}: `nj-ledger restore {kept}` undoes this restore.",
                       kept=kept[0]))
    if done.key is not None:
        click.echo(say("Receipts are signed with key {key}, which the restored games' receipts trust.", key=done.key))
    elif done.signing is not None:
        click.echo(say("Warning: {warning}", warning=done.signing), err=True)
    click.echo(say("What was recorded after {moment} is not in it: the receipts members kept name those events (the "
                   "audit with receipts, `nj-ledger heads check`). Start the server again.",
                   moment=done.manifest.created_at))


def register_backups(group: click.Group) -> None:
    """Add ``backup`` and ``restore`` to the ``nj-ledger`` command."""
    group.add_command(backup)
    group.add_command(restore)


UPGRADE, RESTORE = "upgrade", "restore"
# the refusal when no backup could be made first: what was not done, and how to do it without one
_WITHOUT = {
    UPGRADE: N_("The database holds data and was not migrated, because no backup of it could be made first: "
                "{why} Nothing was changed. Make a backup possible (install what is missing, or name a folder it "
                "may be written to: --backup-to FOLDER or {setting}), or migrate without one if you made your own: "
                "`{command}`."),
    RESTORE: N_("The database holds data and was not replaced, because no backup of it could be made first: "
                "{why} Nothing was changed. Make a backup possible (install what is missing, or name a folder it "
                "may be written to: --backup-to FOLDER or {setting}), or restore without one if you made your own: "
                "`{command}`."),
}
_BARE = {UPGRADE: "nj-ledger db upgrade --no-backup", RESTORE: "nj-ledger restore --no-backup FILE"}


def backup_first(url: str, folder: Path | None, before: str) -> Path | None:
    """The backup made before a database that holds data is changed (``before``: :data:`UPGRADE`, a migration;
    :data:`RESTORE`, a restore over it), in ``folder`` (default: ``backups/`` in the instance folder), said with
    how to bring it back; None when none was needed. When none can be made, the refusal says how on: the
    database is not changed unknowingly, and never without a way back."""
    from nj_ledger.store.backups import BackupError, backup_before_restore
    from nj_ledger.store.backups import backup_before_upgrade as before_upgrade
    from nj_ledger.store.database import instance_path

    make = before_upgrade if before == UPGRADE else backup_before_restore
    try:
        made = make(url, folder or instance_path() / BACKUPS_FOLDER)
    except BackupError as error:
        raise click.ClickException(say(_WITHOUT[before], why=error.sentence, setting=BACKUPS_ENV,
                                       command=_BARE[before])) from None
    if made is None:
        return None
    _swept(made.swept)
    click.echo(say("Backup of the database at schema {revision} written to {path} ({size}): `nj-ledger restore "
                   "{path}` brings it back.", revision=made.manifest.contents.revision, path=made.path,
                   size=_size(made.manifest.size)))
    return made.path


def backup_before_upgrade(url: str, folder: Path | None) -> Path | None:
    """The backup ``db upgrade`` (and ``serve``, on SQLite) makes before it migrates a database that holds data
    (:func:`backup_first`)."""
    return backup_first(url, folder, UPGRADE)
