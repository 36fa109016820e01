"""The replay's last step shows what each loser showed at settlement: the cards, or the count the table gave
("10 cards, 62 points, K♥ held"), in English and French, on a phone."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from nj_ledger import new_game

from .conftest import screenshot
from .server import LiveServer
from .viewports import PHONE, opened

# Deal 2 of the example game was scored from the table: Sylvie went out, the others showed their cards.
SHOWN = {3: ["A♣", "A♠", "2♣", "3♠", "5♣"], 0: ["A♥", "Q♥"], 1: ["A♦"]}
FIGURES = {"en": {}, "fr": {"J": "V", "Q": "D", "K": "R"}}  # a French deck prints valet, dame, roi
SAID = {
    "en": {"winner": "Sylvie goes out and wins deal 2.", "out": "out",
           "told": "10 cards, 62 points, K♥ held", "one": "1 card, 1 point",
           "reveal": "Jeanne tells what is left in hand: 10 cards, 62 points, K♥ held."},
    "fr": {"winner": "Sylvie n'a plus de cartes et gagne la donne 2.", "out": "plus de cartes",
           "told": "10 cartes, 62 points, R♥ en main", "one": "1 carte, 1 point",
           "reveal": "Jeanne annonce ce qui reste en main : 10 cartes, 62 points, R♥ en main."},
}


def last_step(page: Page, server: LiveServer, deal: int) -> None:
    page.goto(f"{server.url}/games/{server.example_game}/replay#deal={deal}")
    # the deal is loaded once the page names its step in the address: a change of the fragment alone does not
    # reload the page, and the step shown before it (its position holds a "1" too) stays until the deal comes
    expect(page).to_have_url(re.compile(rf"#deal={deal}&seq=\d+$"))
    page.locator("#last").click()
    expect(page.locator("#next")).to_be_disabled()


def shown_cards(page: Page, seat: int) -> list[str]:
    return page.locator(f'.seat[data-seat="{seat}"] .cards.shown .card').all_inner_texts()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_last_step_shows_the_cards_the_losers_showed(browser: Browser, live_server: LiveServer,
                                                         language: str) -> None:
    with opened(browser, live_server, language, PHONE) as page:
        last_step(page, live_server, 2)
        expect(page.locator("#step-text")).to_contain_text(SAID[language]["winner"])
        for seat, cards in SHOWN.items():
            assert shown_cards(page, seat) == [FIGURES[language].get(card[0], card[0]) + card[1:] for card in cards]
        expect(page.locator('.seat[data-seat="2"] .shown')).to_have_count(0)  # the winner has nothing left
        expect(page.locator('.seat[data-seat="2"] .mark.winner')).to_have_text(SAID[language]["out"])
        screenshot(page, f"replay-last-step-{language}")

        # before the first reveal nothing is shown; after Thomas's, his cards only
        page.goto(f"{live_server.url}/games/{live_server.example_game}/replay#deal=2&seq=128")
        expect(page.locator("#position")).to_have_attribute("data-seq", "128")
        expect(page.locator(".seat .shown")).to_have_count(0)
        page.keyboard.press("ArrowRight")
        expect(page.locator(".seat .shown")).to_have_count(1)
        assert shown_cards(page, 3) == SHOWN[3]

        # deal 1 was dealt face up: the hands left are the dealt hands, drawn once
        last_step(page, live_server, 1)
        expect(page.locator(".seat .shown")).to_have_count(0)
        expect(page.locator('.seat[data-seat="1"] .cards .card')).to_have_text(["2♠", "5♠", "7♦"])


def told_by_count(route: Route) -> None:
    """Deal 2 as if Jeanne's and Marcel's hands had been told by count (the reveal's count form)."""
    replay = route.fetch().json()
    for step in replay["steps"]:
        event = step["event"]
        if event and event["type"] == "reveal" and event["data"]["seat"] == 0:
            event["data"] = {"seat": 0, "count": 10, "points": 62, "honours": ["KH"]}
        if event and event["type"] == "reveal" and event["data"]["seat"] == 1:
            event["data"] = {"seat": 1, "count": 1, "points": 1, "honours": []}
    route.fulfill(status=200, content_type="application/json", body=json.dumps(replay))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_hand_told_by_count_reads_as_the_table_said_it(browser: Browser, live_server: LiveServer,
                                                         language: str) -> None:
    said = SAID[language]
    with opened(browser, live_server, language, PHONE) as page:
        page.route("**/deals/2/replay*", told_by_count)
        page.goto(f"{live_server.url}/games/{live_server.example_game}/replay#deal=2&seq=130")
        expect(page.locator("#step-text")).to_have_text(said["reveal"])
        expect(page.locator('.seat[data-seat="0"] .told')).to_have_text(said["told"])
        page.locator("#last").click()
        expect(page.locator('.seat[data-seat="0"] .told')).to_have_text(said["told"])
        expect(page.locator('.seat[data-seat="1"] .told')).to_have_text(said["one"])
        assert shown_cards(page, 3) == SHOWN[3]  # a hand shown card by card stays as it was
        screenshot(page, f"replay-told-by-count-{language}")


def test_a_sweep_undone_and_made_again_is_told_once(browser: Browser, live_server: LiveServer) -> None:
    """A Grand Opéra's settlement withdrawn by an undo and made again: the step tells the new sweep (45 chips),
    not the sum of both."""
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
    hands = [["5C", "6C", "7C", "8C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
    whole_hand = {"type": "play", "seat": 0, "cards": ["5C", "6C", "7C", "8C"], "announced": []}
    created = live_server.store.games.create_game(live_server.club, new_game(["Ana", "Ben", "Chloé"], rules, 100), [
        {"type": "deal", "dealer": 2, "hands": hands}, whole_hand, {"type": "undo"}, whole_hand])
    with opened(browser, live_server, "en", PHONE) as page:
        page.goto(f"{live_server.url}/games/{created.game.id}/replay#deal=1&seq=52")
        expect(page.locator("#position")).to_have_attribute("data-seq", "52")
        expect(page.locator("#step-text")).to_contain_text("sweeps the whole board, 45 chips")


@pytest.mark.parametrize(("language", "said"), [
    ("en", "Ben pays Ana 1 chip (1 point in 1 card)."),
    ("fr", "Ben paie 1 jeton à Ana (1 point en 1 carte)."),
])
def test_one_chip_one_point_one_card_are_said_in_the_singular(browser: Browser, live_server: LiveServer,
                                                              language: str, said: str) -> None:
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [3, 43]}}
    hands = [["2C", "3C", "6C"], ["4C", "5C", "AD"], ["8S", "9S", "10S"]]  # Ben is left with the A♦ alone
    created = live_server.store.games.create_game(live_server.club, new_game(["Ana", "Ben", "Chloé"], rules, 100), [
        {"type": "deal", "dealer": 2, "hands": hands},
        {"type": "play", "seat": 0, "cards": ["2C", "3C"], "announced": []},
        {"type": "play", "seat": 1, "cards": ["4C", "5C"], "announced": []},
        {"type": "play", "seat": 0, "cards": ["6C"], "announced": []},
    ])
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/games/{created.game.id}/replay#deal=1")
        expect(page.locator("#position")).to_contain_text("1")  # the deal is loaded
        page.locator("#last").click()
        expect(page.locator("#next")).to_be_disabled()
        expect(page.locator("#step-text")).to_contain_text(said)
