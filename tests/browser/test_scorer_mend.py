"""Mending on the scorer's phone page: undo reaches back past a settlement (also when it ended the game),
asks for a reason kept in the log and a confirmation before a settlement is withdrawn; redo sends back
what was just withdrawn."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from nj_ledger import new_game

from .conftest import PageErrors, new_context, screenshot, sign_in
from .server import LiveServer
from .test_scorer_taps import DEAL, LOSERS, NAMES
from .viewports import PHONE, opened

TEXT = {
    "en": {"warning": "withdraws the settlement of deal 1", "what": "Undo the hand shown for Chloé?",
           "confirm": "Withdraw the settlement", "redo": "Redo: Chloé's hand", "waiting": "Chloé",
           "ready": "Deal 2: Ana deals.", "ended": "The game is over", "end": "and the end of the game",
           "undone": "Last recorded: Chloé's hand is withdrawn."},
    "fr": {"warning": "retire aussi le règlement de la donne 1", "what": "Retirer la main montrée pour Chloé ?",
           "confirm": "Retirer le règlement", "redo": "Rétablir : la main de Chloé", "waiting": "Chloé",
           "ready": "Donne 2 : Ana distribue.", "ended": "La partie est finie", "end": "et la fin de la partie",
           "undone": "Dernière action notée : la main de Chloé est retirée."},
}


def settled_game(live_server: LiveServer, chips: int) -> str:
    """The scripted deal, recorded to its settlement by count."""
    started = live_server.store.games.create_game(live_server.club, new_game(NAMES, "classic", chips),
                                                  [{"type": "deal"}])
    game = started.game.id
    actions: list[dict[str, Any]] = [{"type": "play", "seat": seat, "cards": cards,
                                      "announced": [c for c in cards if c in ("7D", "QS", "KH", "10D", "JC")]}
                                     for seat, cards, _ in DEAL]
    actions += [{"type": "reveal", "seat": seat, **told} for seat, told in LOSERS.items()]
    live_server.store.games.append(live_server.club, game, actions)
    return game


def record(page: Page, selector: str) -> None:
    with page.expect_response(lambda r: r.url.endswith("/actions") and r.request.method == "POST") as answer:
        page.locator(selector).tap()
    assert answer.value.status == 201, answer.value.text()
    expect(page.locator("#notice")).to_be_hidden()


def open_phone(browser: Browser, live_server: LiveServer, language: str) -> tuple[Page, PageErrors]:
    context = new_context(browser, locale="fr-FR" if language == "fr" else "en-GB", phone=True)
    context.add_cookies([{"name": "lang", "value": language, "url": live_server.url}])
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    return page, errors


@pytest.mark.parametrize("language", ["en", "fr"])
def test_undo_past_a_settlement_with_a_reason_then_redo(browser: Browser, live_server: LiveServer,
                                                        language: str) -> None:
    text = TEXT[language]
    game = settled_game(live_server, 200)
    page, errors = open_phone(browser, live_server, language)
    page.goto(f"{live_server.url}/games/{game}/record")
    expect(page.locator("#status")).to_have_text(text["ready"])
    # Between deals the table asks for the results: the result sheet is one tap away.
    expect(page.locator("#sheet-link")).to_have_attribute("href", f"/games/{game}/sheet")
    chips_before = [page.locator(f'.seat[data-seat="{s}"] .balance').get_attribute("data-chips") for s in range(3)]

    # Between deals the settled deal can still be mended: Undo, a reason, a confirmation.
    page.locator("#undo").tap()
    expect(page.locator("#undo-panel")).to_contain_text(text["what"])
    expect(page.locator("#undo-warning")).to_contain_text(text["warning"])
    expect(page.locator("#undo-confirm")).to_have_text(text["confirm"])
    page.locator("#undo-reason").fill("Chloé recounted: 22 points")
    screenshot(page, f"scorer-undo-settlement-phone-{language}", full_page=False)
    page.locator("#undo-cancel").tap()  # kept: nothing is sent
    expect(page.locator("#undo-panel")).to_have_count(0)
    page.locator("#undo").tap()
    page.locator("#undo-reason").fill("Chloé recounted")
    record(page, "#undo-confirm")
    expect(page.locator("#status")).to_contain_text(text["waiting"])
    expect(page.locator("#settlement")).to_be_hidden()
    expect(page.locator("#count-who")).to_contain_text("Chloé")
    expect(page.locator("p.last")).to_have_text(text["undone"])  # what the undo withdrew, by name
    log = live_server.store.games.records(live_server.club, game)
    assert [r["data"]["reason"] for r in log if r["type"] == "undo"] == ["Chloé recounted"]

    # Redo sends back the hand just withdrawn, as it was: the same settlement again.
    expect(page.locator("#redo")).to_have_text(text["redo"])
    screenshot(page, f"scorer-redo-phone-{language}", full_page=False)
    record(page, "#redo")
    expect(page.locator("#status")).to_have_text(text["ready"])
    assert [page.locator(f'.seat[data-seat="{s}"] .balance').get_attribute("data-chips")
            for s in range(3)] == chips_before
    reveals = [r["data"] for r in live_server.store.games.records(live_server.club, game) if r["type"] == "reveal"]
    assert reveals[-1] == {"seat": 2, **LOSERS[2]}
    page.context.close()
    assert errors.errors == []


@pytest.mark.parametrize("language", ["en", "fr"])
def test_undo_after_a_settlement_that_ended_the_game(browser: Browser, live_server: LiveServer,
                                                     language: str) -> None:
    text = TEXT[language]
    game = settled_game(live_server, 40)  # Ben owes 35 with 25 left: the shortfall ends the game
    page, errors = open_phone(browser, live_server, language)
    page.goto(f"{live_server.url}/games/{game}/record")
    expect(page.locator("#status")).to_contain_text(text["ended"])
    page.locator("#undo").tap()
    expect(page.locator("#undo-warning")).to_contain_text(text["warning"])
    expect(page.locator("#undo-warning")).to_contain_text(text["end"])
    expect(page.locator("#undo")).to_have_count(0)  # the panel stands for it while open
    screenshot(page, f"scorer-undo-ended-phone-{language}", full_page=False)
    record(page, "#undo-confirm")  # no reason given: none is required
    expect(page.locator("#count-who")).to_contain_text("Chloé")
    log = live_server.store.games.records(live_server.club, game)
    assert [r["data"]["reason"] for r in log if r["type"] == "undo"] == [""]
    page.context.close()
    assert errors.errors == []


def test_a_count_no_hand_could_make_is_refused_and_stays_to_correct(browser: Browser,
                                                                    live_server: LiveServer) -> None:
    started = live_server.store.games.create_game(live_server.club, new_game(NAMES, "classic", 200), [{"type": "deal"}])
    game = started.game.id
    live_server.store.games.append(live_server.club, game, [
        {"type": "play", "seat": seat, "cards": cards, "announced": [c for c in cards if c in ("7D", "QS", "KH")]}
        for seat, cards, _ in DEAL])
    page, errors = open_phone(browser, live_server, "en")
    page.goto(f"{live_server.url}/games/{game}/record")
    expect(page.locator("#count-who")).to_have_text("Ben: 6 cards left in hand.")
    page.locator("#points").tap()
    page.keyboard.type("99")
    expect(page.locator("#reveal-count")).to_have_text("Record Ben: 99 points in 6 cards")
    with page.expect_response(lambda r: r.url.endswith("/actions")) as refused:
        page.locator("#reveal-count").tap()
    assert refused.value.status == 422
    expect(page.locator("#notice")).to_contain_text("cannot make 99 points")
    expect(page.locator("#points")).to_have_value("99")  # kept, to be corrected
    page.locator("#points").fill("35")
    record(page, "#reveal-count")
    expect(page.locator("#count-who")).to_have_text("Chloé: 5 cards left in hand.")
    page.context.close()
    assert errors.errors == []


def test_between_deals_the_dealer_badge_is_on_who_deals_next(browser: Browser, live_server: LiveServer) -> None:
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [3, 43]}}
    hands = [["2C", "3C", "6C"], ["4C", "5C", "AD"], ["8S", "9S", "10S"]]
    created = live_server.store.games.create_game(live_server.club, new_game(["Ana", "Ben", "Chloé"], rules, 100), [
        {"type": "deal", "dealer": 2, "hands": hands},
        {"type": "play", "seat": 0, "cards": ["2C", "3C"], "announced": []},
        {"type": "play", "seat": 1, "cards": ["4C", "5C"], "announced": []},
        {"type": "play", "seat": 0, "cards": ["6C"], "announced": []},
    ])
    with opened(browser, live_server, "en", PHONE) as page:
        page.goto(f"{live_server.url}/games/{created.game.id}/record")
        expect(page.locator("#status")).to_contain_text("Deal 2: Ana deals.")
        expect(page.locator(".mark.dealer")).to_have_count(1)
        expect(page.locator('.seat[data-seat="0"] .mark.dealer')).to_be_visible()
