"""Share links: a scorer makes one on the replay page; opened signed out on a phone it shows the replay and the
audit read only, in French and in English; its secret stays in the fragment (no request, Referer or access log
line holds it); revoked, it opens nothing."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Request, expect

from .conftest import SESSION_KEY, PageErrors, new_context, screenshot, sign_in
from .server import LiveServer

PHONE = {"width": 390, "height": 844}
SHARED_NOTE = {"en": "A game shared with you: read only.", "fr": "Une partie partagée avec vous, en lecture seule."}
AUDIT_HEADING = {"en": "Chips over the deals", "fr": "Les jetons au fil des donnes"}
VERDICT = {"en": "Every check passes", "fr": "Tous les contrôles passent"}


def phone(browser: Browser, locale: str) -> BrowserContext:
    context = browser.new_context(locale=locale, viewport=PHONE, has_touch=True, is_mobile=True)  # type: ignore[arg-type]
    context.set_default_timeout(10_000)
    return context


@dataclass
class Requests:
    """Every request a page sent: its URL and its Referer."""

    seen: list[tuple[str, str]] = field(default_factory=list)

    def watch(self, page: Page) -> None:
        page.on("request", lambda request: self.seen.append(self.of(request)))

    @staticmethod
    def of(request: Request) -> tuple[str, str]:
        return request.url, request.headers.get("referer", "")

    def holding(self, secret: str) -> list[tuple[str, str]]:
        return [seen for seen in self.seen if secret in seen[0] or secret in seen[1]]


def make_link(browser: Browser, server: LiveServer) -> str:
    """A scorer's share link of the example game, made with the replay page's Share button on a phone."""
    context = phone(browser, "en-GB")
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, server)
    page.goto(f"{server.url}/games/{server.example_game}/replay")
    expect(page.locator("#share-button")).to_have_text("Share")
    page.locator("#share-label").fill("Famille Martin")
    page.locator("#share-button").click()
    expect(page.locator("#share-url")).to_have_value(
        re.compile("^" + re.escape(f"{server.url}/games/{server.example_game}/replay#share=") + r"[\w-]{40,}$"))
    link = page.locator("#share-url").input_value()
    in_use = server.store.shares.shares(server.club, game_id=server.example_game, in_use=True)
    expect(page.locator("#share-links summary")).to_have_text(f"Shared links in use: {len(in_use)}")
    expect(page.locator("#share-list li", has_text="Famille Martin")).not_to_have_count(0)
    page.locator("#share-links summary").click()
    page.locator("#share-panel").scroll_into_view_if_needed()
    screenshot(page, "share-made-phone-en", full_page=False)
    context.close()
    assert errors.errors == []
    return link


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_share_link_opens_the_replay_and_the_audit_signed_out_on_a_phone(
        browser: Browser, live_server: LiveServer, language: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="werkzeug")
    link = make_link(browser, live_server)
    secret = link.partition("#share=")[2]
    game = live_server.example_game
    context = phone(browser, "fr-FR" if language == "fr" else "en-GB")
    page = context.new_page()
    errors = PageErrors(page)
    requests = Requests()
    requests.watch(page)

    page.goto(f"{link}&deal=1&seq=23")  # "link to this step" of a share
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("#shared-note")).to_have_text(SHARED_NOTE[language])
    expect(page.locator("#position")).to_have_attribute("data-seq", "23")
    expect(page.locator("#step-text")).to_contain_text({"en": "J♣ Q♥ K♠", "fr": "V♣ D♥ R♠"}[language] + " 5♦ 6♥ 7♥")
    expect(page.locator("#record-link")).to_have_count(0)  # read only: nothing to record with
    expect(page.locator("#share-panel")).to_have_count(0)
    expect(page.locator(".site-header .links")).to_be_hidden()
    expect(page.locator("#signout")).to_be_hidden()
    screenshot(page, f"share-replay-phone-{language}", full_page=False)

    page.locator("#next").click()  # the address and the step's link keep the share
    expect(page.locator("#position")).to_have_attribute("data-seq", "24")
    assert page.url.endswith(f"#share={secret}&deal=1&seq=24")
    assert page.locator("#permalink").get_attribute("href") == f"/games/{game}/replay#share={secret}&deal=1&seq=24"
    page.reload()
    expect(page.locator("#position")).to_have_attribute("data-seq", "24")

    page.locator("#audit-link").click()
    expect(page.locator("main h2").first).to_have_text(AUDIT_HEADING[language])
    expect(page.locator("#verdict")).to_contain_text(VERDICT[language])
    expect(page.locator("#shared-note")).to_have_text(SHARED_NOTE[language])
    expect(page.locator("#record-link")).to_have_count(0)
    assert page.locator("#replay-link").get_attribute("href") == f"/games/{game}/replay#share={secret}"
    expect(page.locator("#transfers tbody tr").first).to_be_visible()
    screenshot(page, f"share-audit-phone-{language}", full_page=False)

    assert page.evaluate("key => localStorage.getItem(key) || sessionStorage.getItem(key)", SESSION_KEY) is None
    assert len(requests.seen) > 5 and requests.holding(secret) == []  # no URL, no Referer
    access = [record.getMessage() for record in caplog.records if record.name == "werkzeug"]
    assert any(f"/games/{game}/audit" in line for line in access), access  # the server did log the requests
    assert all(secret not in line for line in access)
    context.close()
    assert errors.errors == []


def test_a_revoked_link_opens_nothing_and_a_members_session_stays(browser: Browser, live_server: LiveServer) -> None:
    link = make_link(browser, live_server)
    context = new_context(browser)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)  # a member who also opens a share link
    page.goto(link)
    expect(page.locator("#shared-note")).to_be_visible()
    expect(page.locator("#step-text")).not_to_be_empty()

    page.goto(f"{live_server.url}/games/{live_server.example_game}/audit")
    panel = page.locator("#share-panel")
    panel.locator("summary").click()
    rows = panel.locator("#share-list li", has_text="Famille Martin")
    expect(rows.first).to_be_visible()
    count = rows.count()
    page.on("dialog", lambda dialog: pytest.fail(f"a browser pop-up: {dialog.message}"))  # asked in the page
    rows.first.locator("button.revoke").click()
    asked = page.locator("#revoke-dialog")
    expect(asked).to_be_visible()
    expect(asked.locator(".ask-title")).to_have_text("Revoke the link “Famille Martin”?")
    expect(asked.locator("button.ask-no")).to_be_focused()
    asked.locator("button.ask-yes").click()
    expect(page.locator("#notice")).to_have_text("The link is revoked: it opens nothing any more.")
    expect(rows).to_have_count(count - 1)

    revoked = [share for share in live_server.store.shares.shares(live_server.club, game_id=live_server.example_game)
               if share.revoked_at is not None]
    assert revoked and revoked[-1].label == "Famille Martin"
    still = [s for s in live_server.store.shares.shares(live_server.club, game_id=live_server.example_game, in_use=True)
             if s.label == "Famille Martin"]
    for share in still:  # the link made above is one of these, or the one just revoked
        live_server.store.shares.revoke_share(live_server.club, share.id)
    page.goto("about:blank")
    page.goto(link)
    expect(page.locator("#notice")).to_contain_text("This share link opens nothing")
    assert page.evaluate("key => localStorage.getItem(key)", SESSION_KEY) is not None  # the member stays in
    context.close()
    assert errors.errors == []


def test_a_scoreboard_share_opens_the_scoreboard_signed_out(browser: Browser, live_server: LiveServer) -> None:
    made = live_server.store.shares.create_share(live_server.club)
    context = phone(browser, "fr-FR")
    page = context.new_page()
    errors = PageErrors(page)
    page.goto(f"{live_server.url}/clubs/{live_server.club}/scoreboard#share={made.secret}")
    expect(page.locator("#shared-note")).to_have_text("Un classement partagé avec vous, en lecture seule.")
    expect(page.locator("table.scoreboard tbody tr").first).to_be_visible()
    expect(page.locator("#share-panel")).to_have_count(0)
    screenshot(page, "share-scoreboard-phone-fr", full_page=False)
    context.close()
    assert errors.errors == []
