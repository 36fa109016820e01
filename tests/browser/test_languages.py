"""Every page in French and in English: the browser's language chooses, the switch on the page overrides it.
The refusals of the API come in the page's language; the game's calls stay French."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from nj_ledger import new_game

from .conftest import PageErrors, new_context, screenshot, settled, sign_in
from .server import LiveServer


def test_french_pages_and_a_french_refusal(browser: Browser, live_server: LiveServer) -> None:
    context = new_context(browser, locale="fr-FR")
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("main h2").first).to_have_text("Parties en cours")
    expect(page.locator(".site-header")).to_contain_text("Nouvelle partie")
    expect(page.locator(f'li.game[data-game="{live_server.example_game}"]')).to_contain_text("terminée")

    page.goto(f"{live_server.url}/games/{live_server.example_game}/replay#deal=1&seq=23")
    expect(page.locator("#step-text")).to_contain_text("Jeanne joue V♣ D♥ R♠ 5♦ 6♥ 7♥.")  # a French deck's V, D, R
    expect(page.locator("#calls .call")).to_have_text(["Valet qui prend !", "Roi et je recommence", "sans 8"])
    expect(page.locator("#position")).to_contain_text("Étape 23 sur")

    # The scorer shows the API's refusal, in French: another scorer recorded a play meanwhile.
    started = live_server.store.games.create_game(
        live_server.club, new_game(["Léa", "Hugo", "Inès"], "classic", 60), [{"type": "deal"}])
    page.route("**/api/v1/games/*/stream*", lambda route: route.abort())  # its stream cut: this page stays behind
    page.goto(f"{live_server.url}/games/{started.game.id}/record")
    expect(page.locator("#status")).to_contain_text("Donne 1 : Léa commence une nouvelle suite")
    page.locator('#controls .key[data-card="5H"]').click()
    page.locator('#controls .key[data-card="6H"]').click()
    settled(page)  # then another phone records Léa's 5♥ first
    live_server.store.games.append(live_server.club, started.game.id, [{"type": "play", "seat": 0, "cards": ["5H"]}])
    with page.expect_response(lambda r: r.url.endswith("/actions")) as refused:
        page.locator("#play").click()
    assert refused.value.status == 409
    assert refused.value.headers["content-language"] == "fr"
    # The tap, made on a state the other scorer moved on, no longer fits: both plays are named, in French, with
    # the API's refusal on the fresh state, and the tap waits in the outbox until it is removed.
    conflict = page.locator("#outbox .outbox-entry.conflict")
    expect(conflict).to_contain_text("Un autre téléphone a enregistré entre-temps Léa pose 5♥, et ce qui a été "
                                     "touché sur ce téléphone-ci (Léa pose 5♥ 6♥) ne convient plus")
    assert "version" not in conflict.inner_text()
    expect(page.locator("#status")).to_contain_text("Hugo")  # the page shows the game as it now stands
    screenshot(page, "scorer-refusal-fr")
    context.close()
    assert errors.errors == []


def test_english_pages_and_the_language_switch(browser: Browser, live_server: LiveServer) -> None:
    context = new_context(browser, locale="en-US")
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/games/{live_server.example_game}/audit")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("main h2").first).to_have_text("Chips over the deals")
    expect(page.locator("#verdict")).to_contain_text("Every check passes")

    page.locator('.lang-switch button[data-lang="fr"]').click()  # sets the lang cookie and reloads
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("main h2").first).to_have_text("Les jetons au fil des donnes")
    expect(page.locator("#verdict")).to_contain_text("Tous les contrôles passent")
    assert {c["name"]: c["value"] for c in context.cookies()}.get("lang") == "fr"
    screenshot(page, "audit-fr")
    page.locator('.lang-switch button[data-lang="en"]').click()
    expect(page.locator("main h2").first).to_have_text("Chips over the deals")
    context.close()
    assert errors.errors == []
