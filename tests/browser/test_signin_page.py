"""The sign-in page on a phone, in English and French: no "Sign out" (signing in replaces any session), and the
command that prints a club's token shown as code, not between backticks."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from .conftest import screenshot
from .server import LiveServer
from .viewports import PHONE, opened

SAID = {"en": ("Sign in with your club's token", "Sign out", "prints a club's id and token."),
        "fr": ("Connectez-vous avec le jeton de votre club", "Se déconnecter", "affiche l'identifiant et le jeton")}


@pytest.mark.parametrize("signed_in", [True, False], ids=["with-a-session", "without"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_signin_page_is_clean(browser: Browser, live_server: LiveServer, language: str, signed_in: bool) -> None:
    heading, sign_out, hint = SAID[language]
    with opened(browser, live_server, language, PHONE, signed_in=signed_in) as page:
        page.goto(f"{live_server.url}/signin")
        expect(page.locator("h1")).to_have_text(heading)
        expect(page.locator("#signout")).to_be_hidden()
        expect(page.get_by_text(sign_out)).to_be_hidden()
        text = page.locator("body").inner_text()
        assert "`" not in text and sign_out not in text
        expect(page.locator("form .hint code")).to_have_text("nj-ledger club create")
        expect(page.locator("form .hint")).to_contain_text(hint)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        if signed_in:
            screenshot(page, f"signin-{language}", full_page=False)
