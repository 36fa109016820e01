"""The local network's tests: the guide's commands on this machine's real network address, phones in Chromium.

Skipped, with the reason, only when a program they need is missing: Chromium, zbar's ``zbarimg`` (which reads
the QR codes), NSS's ``certutil`` (which makes a phone's trust of the club's authority); ``make test`` installs
them.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright

from browser.conftest import CHROMIUM_ARGS, chromium_path
from deploy.guide import made_club
from reliability.helpers import free_port

from .guide import environment, lan_blocks, run_lines


def needs(*programs: str) -> None:
    """Skip, saying why, when a program the test needs is missing."""
    if chromium_path() is None:
        pytest.skip("Chromium not found at /usr/bin/chromium (make test installs it)")
    for program in programs:
        if shutil.which(program) is None:
            pytest.skip(f"{program} not found (make test installs it: zbar-tools, libnss3-tools)")


class Club:
    """The club the guide's first command made, in the instance folder the guide's servers share."""

    def __init__(self, instance: Path, ident: str, token: str) -> None:
        self.instance, self.id, self.token = instance, ident, token


@pytest.fixture(scope="session")
def guide_club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    """The lines of the guide's first block before ``serve``: the club is made."""
    instance = tmp_path_factory.mktemp("lan-instance")
    first = lan_blocks()[0][:-1]
    output = run_lines(first, environment(instance, free_port(), free_port()))
    return Club(instance, *made_club(output))


@pytest.fixture(scope="module")
def chromium(playwright: Playwright) -> Iterator[Browser]:
    needs("zbarimg")
    browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()
