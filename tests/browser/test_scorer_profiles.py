"""Simulated deals of other rule profiles recorded on the phone scorer, cards then who laid them: every play
the simulator made is recorded without a pass tapped (runs by suit, hocs, the chief hoc laid out of sequence,
skipped ranks, four players), each within the tap budget."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from nj_ledger.cards import card_points, parse_card
from nj_ledger.decide import new_game
from nj_ledger.simulator import simulate

from .conftest import PageErrors, new_context, settled, sign_in
from .server import LiveServer


def recorded(page: Page, selector: str) -> None:
    with page.expect_response(lambda r: r.url.endswith("/actions") and r.request.method == "POST") as answer:
        page.locator(selector).tap()
    assert answer.value.status == 201, answer.value.text()
    expect(page.locator("#notice")).to_be_hidden()


def play(page: Page, action: dict[str, Any]) -> tuple[int, int]:
    """Tap a play's cards, then the seat that laid them; an explicit pass first when the page cannot infer it.
    Answers (taps, passes tapped)."""
    taps = passes = 0
    seat = action["seat"]
    pick = page.locator(f'#record-bar .pick[data-pick="{seat}"]')
    while True:
        for card in action["cards"]:
            page.locator(f'#controls .key[data-card="{card}"]').tap()
            taps += 1
        settled(page)
        if pick.is_enabled():
            break
        for _ in action["cards"]:  # this seat cannot lay them yet: take them back, record a pass
            page.locator("#backspace").tap()
            taps += 1
        recorded(page, "#pass")
        taps += 1
        passes += 1
    receiving = page.locator("#record-bar .pick.receiving").get_attribute("data-pick")
    recorded(page, "#play" if receiving == str(seat) else f'#record-bar .pick[data-pick="{seat}"]')
    return taps + 1, passes


def reveal(page: Page, action: dict[str, Any], board: set[str]) -> int:
    cards = [parse_card(c) for c in action["cards"]]
    page.locator("#points").tap()
    page.keyboard.type(str(sum(card_points(c) for c in cards)))
    taps = 1
    for card in (str(c) for c in cards if str(c) in board):
        page.locator(f'#count-form [data-honour="{card}"]').tap()
        taps += 1
    recorded(page, "#reveal-count")
    return taps + 1


@pytest.mark.parametrize(("profile", "players", "seed"), [
    ("skip", 3, 8), ("avantcoureur-1760", 3, 16), ("hearts", 4, 32), ("cards", 3, 6),
])
def test_a_simulated_deal_recorded_by_taps(browser: Browser, live_server: LiveServer, profile: str, players: int,
                                           seed: int) -> None:
    game = simulate(seed=seed, profile=profile, players=players, info="partial", deals=1, chatter=0)
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    started = live_server.store.games.create_game(live_server.club, new_game(game.players, game.rules.view(),
                                                                       game.starting_chips))
    page.goto(f"{live_server.url}/games/{started.game.id}/record")
    board = set(game.rules.view()["board"])
    taps = passes = cards = turns = losers = 0
    for action in game.actions:
        if action["type"] == "deal":
            recorded(page, "#deal")
            taps += 1
        elif action["type"] == "play":
            used, passed = play(page, action)
            taps, passes, cards, turns = taps + used, passes + passed, cards + len(action["cards"]), turns + 1
        elif action["type"] == "reveal":
            taps += reveal(page, action, board)
            losers += 1
    log = live_server.store.games.records(live_server.club, started.game.id)
    assert [(r["data"]["seat"], r["data"]["cards"]) for r in log if r["type"] == "play"] == [
        (a["seat"], a["cards"]) for a in game.actions if a["type"] == "play"]
    assert [r for r in log if r["type"] == "deal_ended"]  # settled
    # No pass tapped; a tap per card, one per turn; per loser one on the points, one per honour held, one to record.
    held = sum(1 for a in game.actions if a["type"] == "reveal" for c in a["cards"] if c in board)
    print(f"{profile}: {taps} taps for {cards} cards, {turns} turns, {losers} losers holding {held} honours")
    assert passes == 0
    assert taps == 1 + cards + turns + 2 * losers + held
    context.close()
    assert errors.errors == []
