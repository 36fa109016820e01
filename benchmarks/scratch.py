"""Throwaway databases for tests and benchmarks: a SQLite file, or a private PostgreSQL schema.

A PostgreSQL scratch database is a schema with a random name on the given
server, put first on the connection's ``search_path`` and dropped afterwards,
so runs on one server never see each other's tables.

    >>> with scratch_sqlite() as url:
    ...     url.startswith("sqlite:///")
    True
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

POSTGRES_URL_ENV = "NJ_LEDGER_TEST_POSTGRES_URL"
REQUIRE_POSTGRES_ENV = "NJ_LEDGER_REQUIRE_POSTGRES"
BACKENDS = ("sqlite", "postgresql")
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def postgres_url() -> str:
    return os.environ.get(POSTGRES_URL_ENV) or DEFAULT_POSTGRES_URL


def postgres_required() -> bool:
    """Whether an unreachable PostgreSQL is a failure rather than a reason to skip (CI sets it)."""
    return os.environ.get(REQUIRE_POSTGRES_ENV) == "1"


def postgres_unreachable(url: str) -> str | None:
    """Why the PostgreSQL server at ``url`` cannot be used, or None when it can."""
    engine = create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        return None
    except (SQLAlchemyError, OSError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"PostgreSQL at {make_url(url).render_as_string()} is unreachable: {first_line}"
    finally:
        engine.dispose()


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``schema`` first on the search path of every connection."""
    return make_url(url).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False
    )


@contextmanager
def scratch_postgres(url: str | None = None) -> Iterator[str]:
    """A URL whose connections work in a fresh schema, dropped on exit."""
    server = url or postgres_url()
    schema = f"njl_scratch_{secrets.token_hex(6)}"
    engine = create_engine(server)
    try:
        with engine.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        yield with_search_path(server, schema)
    finally:
        with engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


@contextmanager
def scratch_sqlite(directory: str | Path | None = None) -> Iterator[str]:
    """A URL of a new SQLite file (in a temporary folder removed on exit unless ``directory`` is given)."""
    if directory is not None:
        yield f"sqlite:///{Path(directory) / f'scratch-{secrets.token_hex(4)}.sqlite'}"
        return
    with tempfile.TemporaryDirectory(prefix="nj-ledger-") as folder:
        yield f"sqlite:///{Path(folder) / 'scratch.sqlite'}"


@contextmanager
def migrated_database(backend: str, directory: str | Path | None = None) -> Iterator[str]:
    """A scratch database of ``backend`` (``sqlite`` or ``postgresql``) at the latest schema."""
    from nj_ledger.store.migrate import upgrade

    scratch = scratch_sqlite(directory) if backend == "sqlite" else scratch_postgres()
    with scratch as url:
        upgrade(url)
        yield url
