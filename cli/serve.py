"""``nj-ledger serve`` and ``nj-ledger db upgrade``: the service, and the database's schema.

    $ nj-ledger db upgrade
    $ nj-ledger serve --port 5000
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from .app import _shown_url, main
from .backup import BACKUPS_ENV, backup_before_upgrade
from .lan import lan_options, room
from .language import say


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, envvar="NJ_LEDGER_HOST", show_envvar=True,
              help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535), envvar="NJ_LEDGER_PORT",
              show_envvar=True, help="Port to listen on.")
@click.option("--threads", default=None, type=click.IntRange(1, 64), show_default="8 in one process, 1 per worker",
              envvar="NJ_LEDGER_THREADS", show_envvar=True,
              help="Threads in each worker for the requests that are not streams.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), envvar="NJ_LEDGER_WORKERS",
              show_envvar=True,
              help="granian's worker processes (one per core); streams run on each worker's event loop.")
@lan_options  # --lan, --https, --https-port: phones on a room's network (cli/lan.py)
def serve(host: str, port: int, threads: int | None, workers: int, lan: bool, https: bool, https_port: int) -> None:
    """Serve the API and the pages (an embedded SQLite database is migrated on start).

    Each option may come from the environment instead (a service's settings file: deploy/nj-ledger.env)."""
    from api.auth import WeakAdminToken, check_admin_token
    from api.config import ADMIN_TOKEN_ENV, METRICS_FROM_ENV, PROXIES_ENV
    from api.proxies import AddressSettingError, networks, trusted_proxies
    from api.serving import PortInUse, check_ports_free
    from api.serving import serve as serve_app
    from nj_ledger.store import Store, default_database_url, recorder_for
    from nj_ledger.store.migrate import is_current, upgrade

    try:
        check_admin_token(os.environ.get(ADMIN_TOKEN_ENV))
        trusted_proxies(os.environ.get(PROXIES_ENV))
        networks(os.environ.get(METRICS_FROM_ENV), METRICS_FROM_ENV)
    except (WeakAdminToken, AddressSettingError) as refused:
        raise click.ClickException(str(refused)) from None
    where = room(lan, https, https_port, host, port)  # with --lan: the room's network's addresses (cli/lan.py)
    try:
        check_ports_free(where.host, [port] if where.tls is None else [port, where.tls.port])
    except PortInUse as taken:
        raise click.ClickException(str(taken.strerror)) from None
    url = default_database_url()
    if recorder_for(url).embedded:  # migrated here, as `db upgrade` does: a database that holds data backed up first
        folder = os.environ.get(BACKUPS_ENV)
        backup_before_upgrade(url, Path(folder) if folder else None)
        upgrade(url)
    elif not is_current(url):
        raise click.ClickException(say("The database {url} is not up to date: run `nj-ledger db upgrade`.",
                                       url=_shown_url(url)))
    store = Store(url)
    try:
        signer = store.keys.signer()  # said now, not at the first write: the key must be the one that signed here
    finally:
        store.close()
    click.echo(say("Nain Jaune Ledger on {local}/  (API docs: {local}/api/v1/docs)", local=where.local))
    click.echo(say("Database: {url}", url=_shown_url(url)) + (say(", {workers} workers", workers=workers) if workers > 1
                                                              else "")
               + say("; receipts signed with key {key}", key=signer.id))
    where.announce()
    serve_app({"DATABASE_URL": url, **where.config}, where.host, port, threads, workers, where.tls)


@main.group()
def db() -> None:
    """The database schema."""


@db.command("upgrade")
@click.option("--backup-to", "backups", type=click.Path(path_type=Path), envvar=BACKUPS_ENV,
              show_envvar=True, help="Where the backup of a database that holds data goes before it is migrated "
                                     "(default: backups/ in the instance folder).")
@click.option("--no-backup", is_flag=True, help="Migrate a database that holds data without a backup first (you "
                                                "made one yourself).")
def db_upgrade(backups: Path | None, no_backup: bool) -> None:
    """Create or migrate the database to the latest schema; a database that holds data is backed up first."""
    from sqlalchemy.exc import SQLAlchemyError

    from nj_ledger.store import default_database_url
    from nj_ledger.store.migrate import current_revision, upgrade

    url = default_database_url()
    made = None if no_backup else backup_before_upgrade(url, backups)
    try:
        upgrade(url)
    except SQLAlchemyError as error:
        if made is None:
            raise
        raise click.ClickException(say("The migration failed: {error}. The backup made before it is {made}: install "
                                       "the release you had and run `nj-ledger restore {made}`.", error=error,
                                       made=made)) from None
    click.echo(say("Database {url} is at revision {revision}.", url=_shown_url(url), revision=current_revision(url)))

