"""After signing in, ``next`` leads to a page of this site only, however the address is dressed up.

Each ``next`` below is written as it would appear in a link, after ``/signin?next=`` (percent-encoded where a
browser would otherwise drop the character). Requests to any other host are answered by the test itself, so a
page that left the site is seen, not lost to a failed DNS lookup.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Dialog, Page, Route, ViewportSize

from .conftest import PageErrors, screenshot
from .server import LiveServer

PHONE: ViewportSize = {"width": 390, "height": 844}
HOSTILE = [
    "/%5Cevil.example/x",  # the browser reads /\ as //
    "/%5C%5Cevil.example",
    "%5C%5Cevil.example",
    "/%5C/evil.example",
    "//evil.example",
    "%2F%2Fevil.example",
    "/%2F%2Fevil.example",  # decoded: ///evil.example
    "///evil.example",
    "https://evil.example/",
    "HTTPS://EVIL.EXAMPLE/",
    "http:evil.example",  # same scheme, no slashes: a path of this site
    "https:evil.example",
    "http:%2F%2Fevil.example",
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "java%09script:alert(1)",
    "java%0Ascript:alert(1)",
    "java%0Dscript:alert(1)",
    "%20javascript:alert(1)",
    "data:text/html,evil",
    "%09/evil.example",
    "%09//evil.example",
    "/%09/evil.example",
    "%0A//evil.example",
    "/%0D%0A/evil.example",
    "/%20/evil.example",
    "/ /evil.example",
    "/.//evil.example",  # the path normalises to //evil.example
    "/%252e//evil.example",  # %2e is a dot segment too
    "/..//evil.example",
    "/x/..//evil.example",
    "%2F%5Cevil.example",
    "http://127.0.0.1@evil.example/",
    "//127.0.0.1%40evil.example/",
]


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(locale="en-GB", viewport=PHONE, has_touch=True, is_mobile=True)
    context.set_default_timeout(10_000)
    yield context
    context.close()


class OffSite:
    """Every request to another origin (answered with a page of its own) and every dialog a script opened."""

    def __init__(self, context: BrowserContext, server: LiveServer) -> None:
        self.origin = server.url
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        context.route("**/*", self.answer)

    def answer(self, route: Route) -> None:
        url = route.request.url
        if url == self.origin or url.startswith(self.origin + "/"):
            route.continue_()
        else:
            self.requests.append(url)
            route.fulfill(status=200, content_type="text/html", body="<h1>Somewhere else</h1>")

    def watch(self, page: Page) -> None:
        def dismiss(dialog: Dialog) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", dismiss)


def sign_in_with_next(page: Page, server: LiveServer, raw_next: str) -> str:
    """Sign in from ``/signin?next=<raw_next>``; the address the page lands on."""
    page.goto(f"{server.url}/signin?next={raw_next}")
    page.fill("#club", server.club)
    page.fill("#token", server.token)
    page.locator("#signin button[type=submit]").click()
    page.wait_for_url(lambda url: urlsplit(url).path != "/signin")
    return page.url


def test_hostile_next_stays_on_this_site(phone: BrowserContext, live_server: LiveServer) -> None:
    off_site = OffSite(phone, live_server)
    page = phone.new_page()
    errors = PageErrors(page)
    off_site.watch(page)
    here = urlsplit(live_server.url)
    landed: dict[str, str] = {}
    for raw_next in HOSTILE:
        landed[raw_next] = sign_in_with_next(page, live_server, raw_next)
    away = {raw: url for raw, url in landed.items()
            if (urlsplit(url).scheme, urlsplit(url).netloc) != (here.scheme, here.netloc)}
    assert away == {}
    assert off_site.requests == [] and off_site.dialogs == []
    # Whatever is not plainly a path of this site goes to the home page.
    assert landed["/%5Cevil.example/x"] == f"{live_server.url}/"
    assert landed["javascript:alert(1)"] == f"{live_server.url}/"
    assert landed["http:evil.example"] == f"{live_server.url}/evil.example"
    assert errors.errors == []


def test_a_path_of_this_site_is_kept_whole(phone: BrowserContext, live_server: LiveServer) -> None:
    off_site = OffSite(phone, live_server)
    page = phone.new_page()
    errors = PageErrors(page)
    page.goto(f"{live_server.url}/signin")
    screenshot(page, "signin-phone")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling

    assert sign_in_with_next(page, live_server, "%2Fgames%2Fnew%3Fx%3D1%23y") == f"{live_server.url}/games/new?x=1#y"
    assert sign_in_with_next(page, live_server, "/games/new") == f"{live_server.url}/games/new"
    assert sign_in_with_next(page, live_server, "") == f"{live_server.url}/"
    assert off_site.requests == []
    assert errors.errors == []
