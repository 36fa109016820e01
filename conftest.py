"""The examples in the docstrings of the ledger's modules run with the suite (``make test``): pytest's doctest
collection over the four packages, which pyproject.toml's ``testpaths`` names beside ``tests``.

Collected here rather than by ``--doctest-modules``, which would also read every module of ``tests`` (whose
folders' conftest files share one name). Not collected: the links ``nj_ledger/migrations`` (Alembic's scripts,
which read their context on import) and ``nj_ledger/examples`` (game files), the vendored runtime in
``api/static``, and ``__main__`` modules (which run a command). Each example runs with an instance folder of its
own, so that a signing key it makes never lands in the user's or in ``make run``'s.
"""

from __future__ import annotations

import tempfile
from collections.abc import Generator
from pathlib import Path

import pytest
from _pytest.doctest import DoctestModule

ROOT = Path(__file__).resolve().parent
PACKAGES = ("nj_ledger", "api", "cli", "benchmarks")
NOT_COLLECTED = ("nj_ledger/migrations", "nj_ledger/examples", "api/static")
INSTANCE_ENV = "NJ_LEDGER_INSTANCE"


def _name(path: Path) -> str | None:
    """The path from the top of the source tree (links not followed), or None outside it."""
    try:
        return path.absolute().relative_to(ROOT).as_posix()
    except ValueError:
        return None


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    name = _name(collection_path)
    return True if name in NOT_COLLECTED else None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> DoctestModule | None:
    name = _name(file_path)
    if (name and file_path.suffix == ".py" and name.split("/")[0] in PACKAGES and file_path.name != "__main__.py"
            and not name.startswith(tuple(f"{folder}/" for folder in NOT_COLLECTED))):
        return DoctestModule.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    if not isinstance(item, pytest.DoctestItem):
        return (yield)
    with tempfile.TemporaryDirectory(prefix="nj-ledger-doctest-") as folder, pytest.MonkeyPatch.context() as patch:
        patch.setenv(INSTANCE_ENV, folder)
        return (yield)
