"""What every test process shares (child processes too, through the environment).

- An instance folder of the run's own, so that no test reads or writes the user's (the default database, the
  signing key).
- One admin token, long and random as the app demands, made for the run (never written in a file).
- A limit on wrong tokens high enough for the suites that try hundreds on purpose; the test of the limit
  itself builds its app with the default (tests/reliability/test_tokens.py).
- One Playwright driver for the run, whichever folder's tests drive Chromium (browser, deploy): the sync API
  allows one at a time in a process.
- Two hypothesis profiles: ``quick`` (the default, ``make test``) and ``thorough`` (``make test-slow``), which
  the tests marked ``scaled`` read their sizes from (tests/support/scale.py).
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from playwright.sync_api import Playwright, sync_playwright

ADMIN_TOKEN_ENV = "NJ_LEDGER_TEST_ADMIN_TOKEN"

# Always the run's own: `make run`'s instance folder (exported by the Makefile) and the user's are never used.
_instance = tempfile.mkdtemp(prefix="nj-ledger-instance-")
os.environ["NJ_LEDGER_INSTANCE"] = _instance
atexit.register(shutil.rmtree, _instance, True)
for _setting in ("NJ_LEDGER_SIGNING_KEY", "NJ_LEDGER_SIGNING_KEY_FILE", "NJ_LEDGER_DATABASE_URL"):
    os.environ.pop(_setting, None)
os.environ.setdefault(ADMIN_TOKEN_ENV, secrets.token_urlsafe(32))
os.environ["NJ_LEDGER_AUTH_FAILURE_LIMIT"] = "1000000/minute"

settings.register_profile("quick")
settings.register_profile("thorough", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("quick")  # --hypothesis-profile=thorough loads the other one after this file is read


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``make test``'s ``-n auto --dist loadgroup``) the browser tests run one after the other
    on one worker, as they were written to: two Chromiums with their servers side by side on two cores slow
    each other past the pages' timeouts. The other workers take the rest."""
    for item in items:
        if {"browser", "deploy", "lan"} & set(item.path.parts):  # the deploy guides' tests drive Chromium too
            item.add_marker(pytest.mark.xdist_group("browser"))
