"""Browser tests: Playwright drives Debian's Chromium against the real app on a loopback port.

Skipped, with the reason, only when no Chromium can be found (``make test`` installs it).
Screenshots go to ``test-artifacts/`` at the top of the repository.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, ViewportSize, expect

from .server import LiveServer, start_server

CHROMIUM_ENV = "NJ_LEDGER_CHROMIUM"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SESSION_KEY = "nj-ledger.session"


def chromium_path() -> str | None:
    """Debian's Chromium (or the one named by NJ_LEDGER_CHROMIUM)."""
    for candidate in (os.environ.get(CHROMIUM_ENV), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    missing = chromium_path() is None
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            if missing:
                item.add_marker(pytest.mark.skip(
                    reason="Chromium not found at /usr/bin/chromium (make test installs it with "
                           f"apt-get install chromium; or set {CHROMIUM_ENV})"))


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("browser"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    path = chromium_path()
    assert path is not None
    browser = playwright.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def new_context(browser: Browser, locale: str = "en-GB", phone: bool = False,
                service_workers: Literal["allow", "block"] = "block") -> BrowserContext:
    """A browser context; the pages' service worker is blocked unless asked for (`page.route` does not see what
    a service worker answers), as the offline tests do."""
    viewport: ViewportSize = {"width": 390, "height": 844} if phone else {"width": 1200, "height": 900}
    context = browser.new_context(locale=locale, viewport=viewport, has_touch=phone, is_mobile=phone,
                                  service_workers=service_workers)
    context.set_default_timeout(10_000)
    return context


def sign_in(page: Page, server: LiveServer) -> None:
    """Store the club's session the way the sign-in page does (in localStorage)."""
    page.goto(f"{server.url}/signin")
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, JSON.stringify(value))",
        [SESSION_KEY, {"club": server.club, "token": server.token, "name": server.club_name}],
    )


class PageErrors:
    """Uncaught errors of a page's scripts; a test ends by asserting there were none."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = new_context(browser)
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext, live_server: LiveServer) -> Iterator[Page]:
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    yield page
    assert errors.errors == []


def settled(page: Page) -> None:
    """The scorer page has the rules' answer of what may be tapped on what it shows (its controls are not busy):
    a key's state may be read at once."""
    expect(page.locator("#controls")).to_have_attribute("aria-busy", "false")


def wait_for_runtime(page: Page) -> None:
    """The Pyodide runtime kept by the service worker (the scorer asks for it when it opens with a connection)."""
    assert page.evaluate("""async () => {
        const files = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                       "pyodide-lock.json"].map((name) => `/static/vendor/pyodide/${name}`);
        const kept = async () => (await Promise.all(files.map((path) => caches.match(path)))).every(Boolean);
        for (let waited = 0; !(await kept()) && waited < 30000; waited += 100) {
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return kept();
    }""")


def wait_for_worker(page: Page) -> None:
    """The service worker installed (every asset kept) and active, and this page kept: the next navigation to it
    is the worker's, with or without a connection.

    Whether this very page is the worker's (``navigator.serviceWorker.controller``) is not waited for: a page
    whose load began while the worker was still installing may be missed by the worker's ``clients.claim()``
    (Chromium claims the pages ready when it runs), and stays its own until its next navigation, a reload
    included, which the active worker answers. The tests that reload check that it did (``from_service_worker``).
    """
    state = page.evaluate("""async () => {
        const registration = await navigator.serviceWorker.ready;
        const ready = async () => registration.active && registration.active.state === "activated"
            && await caches.match(location.pathname, { ignoreVary: true });
        const started = performance.now();
        while (!(await ready()) && performance.now() - started < 30000) {
            await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return {ready: Boolean(await ready()), waited: Math.round(performance.now() - started),
                active: registration.active && registration.active.state,
                installing: registration.installing && registration.installing.state,
                controlled: navigator.serviceWorker.controller !== null,
                kept: Boolean(await caches.match(location.pathname, { ignoreVary: true })),
                caches: await caches.keys()};
    }""")
    assert state["ready"], f"the service worker is not ready: {state}"


def screenshot(page: Page, name: str, *, full_page: bool = True) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
