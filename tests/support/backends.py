"""The back ends every database test runs on: SQLite, and PostgreSQL (a private schema, dropped afterwards).

A conftest imports these fixtures (``from support.backends import backend, database_url, store``) and adds
its own on top. An unreachable PostgreSQL skips its tests, or fails them when it is required
(``NJ_LEDGER_REQUIRE_POSTGRES=1``, as ``.ci/run`` sets).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchmarks.scratch import (
    BACKENDS,
    REQUIRE_POSTGRES_ENV,
    migrated_database,
    postgres_required,
    postgres_unreachable,
    postgres_url,
)
from nj_ledger.store import Store


def usable_backend(backend: str) -> None:
    """Skip (or, when PostgreSQL is required, fail) a back end that cannot be reached."""
    if backend != "postgresql":
        return
    reason = postgres_unreachable(postgres_url())
    if reason is None:
        return
    if postgres_required():
        pytest.fail(f"{reason} ({REQUIRE_POSTGRES_ENV}=1 makes this a failure)")
    pytest.skip(reason)


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    usable_backend(request.param)
    return str(request.param)


@pytest.fixture(scope="session")
def database_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with migrated_database(backend, tmp_path_factory.mktemp(backend)) as url:
        yield url


@pytest.fixture(scope="session")
def store(database_url: str) -> Iterator[Store]:
    store = Store(database_url)
    yield store
    store.close()
