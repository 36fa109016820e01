"""Connecting to the database: the URL from the environment, and engines tuned per back end.

SQLite runs in WAL mode with a busy timeout and foreign keys on; a write
transaction starts with ``BEGIN IMMEDIATE`` so two writers queue for the lock
instead of failing when the second tries to upgrade a read. PostgreSQL uses
psycopg 3.

    >>> engine = make_engine("sqlite://")
    >>> engine.dialect.name
    'sqlite'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

DATABASE_URL_ENV = "NJ_LEDGER_DATABASE_URL"
WRITE = "nj_ledger_write"  # execution option marking a write transaction
SQLITE_BUSY_TIMEOUT_MS = 30_000


def instance_path() -> Path:
    """Where the embedded database lives by default: ``./instance``."""
    return Path.cwd() / "instance"


def default_database_url() -> str:
    """``NJ_LEDGER_DATABASE_URL``, or a SQLite file in the instance folder.

    >>> default_database_url().startswith(("sqlite:///", "postgresql"))
    True
    """
    url = os.environ.get(DATABASE_URL_ENV)
    if url:
        return url
    return f"sqlite:///{instance_path() / 'nj-ledger.sqlite'}"


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _prepare_sqlite_file(url: str) -> None:
    database = make_url(url).database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)


def make_engine(url: str, **options: Any) -> Engine:
    """An engine for ``url`` with the settings this store relies on."""
    from .rows import json_text, json_value

    options.setdefault("json_serializer", json_text)
    options.setdefault("json_deserializer", json_value)
    if not is_sqlite(url):
        return create_engine(url, pool_pre_ping=True, **options)
    _prepare_sqlite_file(url)
    database = make_url(url).database
    if not database or database == ":memory:":
        options.setdefault("poolclass", StaticPool)
    engine = create_engine(url, connect_args={"check_same_thread": False}, **options)

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Transactions are begun explicitly below (pysqlite's own BEGIN cannot say IMMEDIATE).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get(WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine
