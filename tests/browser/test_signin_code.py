"""A phone opens the link of a sign-in QR code (``/signin#club=…&name=…&code=…``, api/lan.py) on a phone's screen,
in English and French: signed in with a token of its own, the code out of the address; a code used already is
said so; and a phone signed in to another club is asked before its session is replaced (the code stays unused
when its owner keeps the club it has)."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import SESSION_KEY, screenshot
from .server import LiveServer
from .viewports import PHONE, opened

SAID = {
    "en": {"switch": "This phone is signed in to “{current}”: sign in to “{next}” instead?",
           "yes": "Sign in to “{next}”", "no": "Stay with “{current}”", "used": "This sign-in code was already used"},
    "fr": {"switch": "Ce téléphone est connecté au club «\u00a0{current}\u00a0»\u00a0: le connecter plutôt au club "
                     "«\u00a0{next}\u00a0»\u00a0?",
           "yes": "Se connecter à «\u00a0{next}\u00a0»", "no": "Rester sur «\u00a0{current}\u00a0»",
           "used": "Ce code de connexion a déjà servi"},
}


def link(server: LiveServer, club: str, name: str, code: str) -> str:
    return f"{server.url}/signin#{urlencode({'club': club, 'name': name, 'code': code}, quote_via=quote)}"


def kept(page: Page) -> dict[str, str] | None:
    value = page.evaluate(f"localStorage.getItem({json.dumps(SESSION_KEY)})")
    return None if value is None else dict(json.loads(value))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_code_signs_a_new_phone_in_once(browser: Browser, live_server: LiveServer, language: str) -> None:
    code = live_server.store.phones.create_sign_in_code(live_server.club, "viewer", "phone (QR code)")
    opening = link(live_server, live_server.club, live_server.club_name, code.secret)
    with opened(browser, live_server, language, PHONE, signed_in=False) as page:
        page.goto(opening)
        expect(page).to_have_url(f"{live_server.url}/")
        session = kept(page)
        assert session is not None and session["club"] == live_server.club
        assert session["name"] == live_server.club_name and session["token"] != code.secret
        found = live_server.store.authenticate(session["token"])
        assert found is not None and found.role == "viewer"
        assert live_server.store.phones.sign_in_code(live_server.club, code.id).status() == "used"
        page.goto(f"{live_server.url}/api/v1/openapi.json")  # same origin, no script that could navigate away
        page.evaluate("localStorage.clear()")
        page.goto(opening)  # the same code again: a photograph of the screen signs nobody in
        expect(page.locator("#notice")).to_contain_text(SAID[language]["used"])
        assert "code=" not in page.url and kept(page) is None
        expect(page.locator("#signin")).to_be_visible()
        screenshot(page, f"signin-code-used-{language}", full_page=False)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_phone_of_another_club_is_asked_before_its_session_is_replaced(
        browser: Browser, live_server: LiveServer, language: str) -> None:
    other, _ = live_server.store.clubs.create_club("Cercle du Nain Jaune")
    code = live_server.store.phones.create_sign_in_code(other.id)
    opening = link(live_server, other.id, other.name, code.secret)
    said = {key: text.format(current=live_server.club_name, next=other.name) for key, text in SAID[language].items()}
    with opened(browser, live_server, language, PHONE) as page:  # signed in to the first club
        page.goto(opening)
        expect(page.locator("#switch-question")).to_have_text(said["switch"])
        expect(page.locator("#switch-yes")).to_have_text(said["yes"])
        expect(page.locator("#switch-no")).to_have_text(said["no"])
        expect(page.locator("#signin")).to_be_hidden()
        assert "code=" not in page.url
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        screenshot(page, f"signin-code-other-club-{language}", full_page=False)
        page.locator("#switch-no").tap()
        expect(page).to_have_url(f"{live_server.url}/")
        expect(page.locator("#club-title")).to_have_text(live_server.club_name)
        assert kept(page)["club"] == live_server.club  # type: ignore[index]
        assert live_server.store.phones.sign_in_code(other.id, code.id).status() == "waiting"  # the code unused

        page.goto(opening)
        page.locator("#switch-yes").tap()
        expect(page).to_have_url(f"{live_server.url}/")
        expect(page.locator("#club-title")).to_have_text(other.name)
        session = kept(page)
        assert session is not None and (session["club"], session["name"]) == (other.id, other.name)
        assert live_server.store.phones.sign_in_code(other.id, code.id).status() == "used"
