"""Running the Alembic migrations from code (``nj-ledger db upgrade``, ``nj-ledger serve``).

The migrations live in the source tree's top-level ``migrations/`` folder, installed as
``nj_ledger/migrations/`` (:func:`~nj_ledger.store.database.shipped` finds either).
"""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from .database import default_database_url, make_engine, shipped

MIGRATIONS = shipped("migrations")


def alembic_config(url: str | None = None) -> Config:
    """An Alembic configuration for ``url`` (default: the configured database)."""
    if not (MIGRATIONS / "env.py").is_file():
        raise FileNotFoundError(f"The migrations folder is missing: {MIGRATIONS}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # '%' is ConfigParser's interpolation character; a URL may hold escaped characters.
    config.set_main_option("sqlalchemy.url", (url or default_database_url()).replace("%", "%%"))
    return config


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Bring the database up to ``revision`` (creating every table on an empty database)."""
    command.upgrade(alembic_config(url), revision)


def upgrade_engine(engine: Engine, revision: str = "head") -> None:
    """Migrate the database behind an open engine (an in-memory SQLite database, for one)."""
    config = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def current_revision(url: str | None = None) -> str | None:
    """The revision the database is at (None for an empty database)."""
    engine = make_engine(url or default_database_url())
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def is_current(url: str | None = None) -> bool:
    return current_revision(url) == head_revision()
