"""Alembic environment: the models' metadata, and the store's own engine settings.

The database URL comes from the Alembic config (``sqlalchemy.url``, set by
``nj-ledger db upgrade``) or else ``NJ_LEDGER_DATABASE_URL`` / the default
SQLite file. A caller may also hand over an open connection in
``config.attributes["connection"]``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from nj_ledger.store.database import default_database_url, make_engine
from nj_ledger.store.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or default_database_url()


def run_migrations_offline() -> None:
    context.configure(
        url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection: Connection) -> None:
    # render_as_batch: SQLite alters a table by copying it, and batch mode writes migrations that way.
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
