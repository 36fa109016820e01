"""The new-game page asks about a name that looks like a member's before the game starts: the member, or
another player?"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from nj_ledger.store.errors import PlayerExists

from .conftest import PageErrors, new_context, screenshot, sign_in
from .server import LiveServer


def member(server: LiveServer, name: str) -> None:
    try:
        server.store.clubs.add_player(server.club, name)
    except PlayerExists:
        pass


def test_a_name_that_looks_like_a_members_is_asked_about(browser: Browser, live_server: LiveServer) -> None:
    member(live_server, "Oriane")
    member(live_server, "Paulette")
    context = new_context(browser, phone=True)  # as at the table
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    sent: list[list[str]] = []
    page.on("request", lambda r: sent.append(r.post_data_json["players"])
            if r.method == "POST" and r.url.endswith("/games") else None)

    # "Оriane" with a Cyrillic О: asked about, and kept as another player
    page.goto(f"{live_server.url}/games/new")
    for seat, name in enumerate(["\u041eriane", "Ben", "Chloé"]):
        page.locator("#players input").nth(seat).fill(name)
    page.locator("#new-game button[type=submit]").click()
    asked = page.locator("#look-alikes")
    expect(asked).to_be_visible()
    expect(asked.locator(".look-alike")).to_have_text(["\u041eriane looks like Oriane: the same person? "
                                                       "Yes: Oriane No, another player"])
    assert sent == []  # nothing started before the answer
    screenshot(page, "new-game-look-alike-phone")
    asked.get_by_role("button", name="No, another player").click()
    page.wait_for_url(re.compile(r"/games/[^/]+/record$"))
    assert sent == [["\u041eriane", "Ben", "Chloé"]]

    # "Раulette" with a Cyrillic Р and а: the member is seated instead
    page.goto(f"{live_server.url}/games/new")
    for seat, name in enumerate(["Ana", "\u0420\u0430ulette", "Ben"]):
        page.locator("#players input").nth(seat).fill(name)
    page.locator("#new-game button[type=submit]").click()
    page.locator("#look-alikes").get_by_role("button", name="Yes: Paulette").click()
    page.wait_for_url(re.compile(r"/games/[^/]+/record$"))
    assert sent[-1] == ["Ana", "Paulette", "Ben"]
    context.close()
    assert errors.errors == []


def test_the_question_in_french(browser: Browser, live_server: LiveServer) -> None:
    member(live_server, "Oriane")
    context = new_context(browser, locale="fr-FR")
    page = context.new_page()
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/games/new")
    for seat, name in enumerate(["\u041eriane", "Ben", "Chloé"]):
        page.locator("#players input").nth(seat).fill(name)
    page.locator("#new-game button[type=submit]").click()
    expect(page.locator("#look-alikes .look-alike")).to_have_text(["\u041eriane ressemble à Oriane : la même "
                                                                   "personne ? Oui : Oriane Non, un autre joueur"])
    context.close()
