"""The site header on a phone: one row, and every link a signed-in member goes to shown whole (not cut, not
scrolled out of sight), in French and English; on a wide screen the games' and the API's links and the words
"Sign out" too."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, expect

from .conftest import screenshot
from .server import LiveServer
from .viewports import LAPTOP, PHONE, opened

# On a phone the games' list is the brand's badge (the same page), which leaves room for the evenings.
LINKS = {"en": ["New game", "Scoreboard", "Evenings"], "fr": ["Nouvelle partie", "Classement", "Soirées"]}


def inside(locator: Locator, width: int) -> bool:
    box = locator.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_phone_header_is_one_row_with_every_link_whole(browser: Browser, live_server: LiveServer,
                                                           language: str) -> None:
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/")
        header = page.locator(".site-header")
        expect(page.locator("#signout")).to_be_visible()
        box = header.bounding_box()
        assert box is not None and box["height"] <= 56  # one row
        links = page.locator(".site-header .links a:visible")
        expect(links).to_have_text(LINKS[language])
        expect(page.locator(".site-header .brand")).to_have_attribute("href", "/")  # the games' list
        for link in links.all():
            assert inside(link, PHONE["width"]), link.inner_text()
            # shown whole: the link's own box is not clipped by the scrolling strip it sits in
            assert link.evaluate("(a) => { const s = a.parentElement.getBoundingClientRect(), r = "
                                 "a.getBoundingClientRect(); return r.right <= s.right && r.left >= s.left; }")
        expect(page.locator("#signout")).to_have_accessible_name("Sign out" if language == "en" else "Se déconnecter")
        other = "FR" if language == "en" else "EN"
        expect(page.locator(".lang-switch button:visible")).to_have_text([other])  # one tap to the other language
        screenshot(page, f"header-phone-{language}", full_page=False)


def test_the_wide_header_says_sign_out_and_links_to_the_api(browser: Browser, live_server: LiveServer) -> None:
    with opened(browser, live_server, "en", LAPTOP) as page:
        page.goto(f"{live_server.url}/")
        expect(page.locator("#signout")).to_contain_text("Sign out")
        expect(page.locator(".site-header .links a:visible")).to_have_text(
            ["Games", "New game", "Scoreboard", "Evenings", "API"])
        expect(page.locator(".lang-switch button:visible")).to_have_count(2)


def test_the_header_goes_to_the_club_evenings(browser: Browser, live_server: LiveServer) -> None:
    with opened(browser, live_server, "en", PHONE) as page:
        page.goto(f"{live_server.url}/games/new")
        page.locator("#nav-evenings").click()
        expect(page).to_have_url(f"{live_server.url}/clubs/{live_server.club}/evenings")
        expect(page.locator("h1")).to_contain_text("Club evenings")
