"""The tap budget of the table scorer on a phone, proved by counting every tap of a scripted deal.

A 3-player deal of a new game (classic rules, hands not entered), as a table plays it: passes are
never tapped (a play from a later seat records the passes in between), honours laid are pre-ticked
as announced, and each loser's hand is told by count (points typed, honours held ticked). The deal
is the simulator's (seed 142, chatter 0), written out here so that it reads as a script.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from nj_ledger import new_game

from .conftest import PageErrors, new_context, screenshot, sign_in
from .scripted_deal import DEAL, LOSERS, NAMES, Taps
from .server import LiveServer


def in_view(page: Page, target: Locator) -> bool:
    box = target.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_a_scripted_deal_within_the_tap_budget(browser: Browser, live_server: LiveServer, locale: str) -> None:
    context = new_context(browser, locale=locale, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    language = locale[:2]
    page.context.add_cookies([{"name": "lang", "value": language, "url": live_server.url}])
    started = live_server.store.games.create_game(live_server.club, new_game(NAMES, "classic", 200))
    game = started.game.id
    page.goto(f"{live_server.url}/games/{game}/record")
    assert page.viewport_size == {"width": 390, "height": 844}
    taps = Taps(page)

    taps.record(page.locator("#deal"), "deal")
    by_seat = 0  # turns recorded by a tap on another seat than the one the cards were going to
    for index, (seat, cards, _passes) in enumerate(DEAL):
        if index == 8:  # before a new run by a later seat: its cards are drawn apart (dashed)
            expect(page.locator('#controls .key.restart[data-card="2D"]')).to_be_enabled()
            screenshot(page, f"scorer-before-new-run-phone-{language}", full_page=False)
        for card in cards:
            key = page.locator(f'#controls .key[data-card="{card}"]')
            taps.tap(key, "card")
            # The seat strip stays in view under the card grid, wherever the card tapped was.
            assert in_view(page, page.locator("#record-bar .seat-strip"))
        # Honours laid are pre-ticked as announced: nothing to tap.
        for box in page.locator("#record-bar input[data-announce]").all():
            expect(box).to_be_checked()
        if index == 8:  # only Ben, who laid the last card, may start a new run with them
            screenshot(page, f"scorer-new-run-tapped-phone-{language}", full_page=False)
            expect(page.locator('#record-bar .pick[data-pick="0"]')).to_be_disabled()
            expect(page.locator('#record-bar .pick[data-pick="1"]')).to_be_enabled()
        receiving = page.locator("#record-bar .pick.receiving").get_attribute("data-pick")
        if receiving == str(seat):
            taps.record(page.locator("#play"), "turn")
        else:  # another seat laid them: one tap on that seat records them, with the passes in between
            by_seat += 1
            taps.record(page.locator(f'#record-bar .pick[data-pick="{seat}"]'), "turn")

    status = page.locator("#status")
    expect(status).to_contain_text("Ben, Chloé")
    losers = 0
    for seat, told in LOSERS.items():
        losers += 1
        expect(page.locator("#count-who")).to_contain_text(NAMES[seat])
        expect(page.locator("#count-who")).to_contain_text(str(told["count"]))  # prefilled from hand_sizes
        taps.tap(page.locator("#points"), "settle")  # one tap on the field, then the digits typed
        page.keyboard.type(str(told["points"]))
        for card in told["honours"]:
            taps.tap(page.locator(f'#count-form [data-honour="{card}"]'), "settle")
        if seat == 2:
            screenshot(page, f"scorer-settlement-count-phone-{language}", full_page=False)
        taps.record(page.locator("#reveal-count"), "settle")

    settlement = page.locator("#settlement")
    if language == "en":
        expect(settlement).to_contain_text("Ana goes out and wins deal 1.")
        expect(settlement).to_contain_text("Ben pays Ana 35 chips (35 points in 6 cards).")
        expect(settlement).to_contain_text("Chloé pays Ana 21 chips (21 points in 5 cards).")
        expect(settlement).to_contain_text("Bête: Chloé still holds the 10♦")
        expect(status).to_contain_text("Deal 2: Ana deals.")
    else:
        expect(settlement).to_contain_text("Ana n'a plus de cartes et gagne la donne 1.")
        expect(settlement).to_contain_text("Ben paie 35 jetons à Ana (35 points en 6 cartes).")
        expect(settlement).to_contain_text("Chloé paie 21 jetons à Ana (21 points en 5 cartes).")
        expect(settlement).to_contain_text("Bête : Chloé a encore la carte 10♦")
        expect(status).to_contain_text("Donne 2")
    screenshot(page, f"scorer-after-settlement-phone-{language}")

    log = live_server.store.games.records(live_server.club, game)
    plays = [(r["data"]["seat"], r["data"]["cards"]) for r in log if r["type"] == "play"]
    assert plays == [(seat, cards) for seat, cards, _ in DEAL]
    passes = [r["data"] for r in log if r["type"] == "pass"]
    assert passes == [{"seat": s, "inferred": True} for _, _, between in DEAL for s in between]
    announced = [c for r in log if r["type"] == "play" for c in r["data"]["announced"]]
    assert announced == ["7D", "QS", "KH"]
    reveals = [r["data"] for r in log if r["type"] == "reveal"]
    assert reveals == [{"seat": seat, **told} for seat, told in LOSERS.items()]

    cards = sum(len(cards) for _, cards, _ in DEAL)
    budget = 1 + cards + len(DEAL) + 3 * losers  # the deal, a tap per card, one per turn, three per loser
    print(f"taps: {taps.count} of a budget of {budget} ({taps.kinds})")
    assert taps.kinds == {"deal": 1, "card": cards, "turn": len(DEAL), "settle": 5}
    assert taps.count <= budget
    # Chloé after Ben's pass and Ben after Ana's: one tap on the seat. Ben's Q K 8 went to him by itself (Ana
    # had two cards left), and so did each new run after a block (only its starter could lay it).
    assert by_seat == 2
    context.close()
    assert errors.errors == []
