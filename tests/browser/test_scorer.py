"""The table scorer on a phone: a new game, a whole deal recorded by taps (the losers' cards shown one by one),
then its replay; undo with a reason, and plays recorded for another seat."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, Route, expect

from nj_ledger import new_game

from .conftest import PageErrors, new_context, screenshot, settled, sign_in
from .server import LiveServer

# A deal of three players scored from the table (no hands dealt), classic rules, 200 chips each;
# Chloé deals, so Ana is first hand. Everyone stakes 15: the boxes hold 3, 6, 9, 12, 15.
ANA_OPENS = ["AC", "2C", "3C", "4C", "5H", "6C", "7D"]  # "Nain jaune qui prend !" (15), sans 8
BEN_CONTINUES = ["8S", "9S"]  # sans 10; Chloé passes
ANA_TAKES = ["10D", "JC"]  # 3 + 6, sans Dame; Ben passes
CHLOE_FORGETS = ["QH", "KH", "2D", "3D"]  # forgets to call the Roi: its 12 chips stay; sans 4
ANA_GOES_OUT = ["4D", "5D", "6D", "7S", "8D", "9D"]  # J'arrête
BEN_KEEPS = ["AH", "AS", "AD", "2H", "2S", "3H", "3S", "4H", "4S", "5C", "5S", "6H", "6S"]  # 43 points
CHLOE_KEEPS = ["QS", "7C", "7H", "8C", "8H", "9C", "9H", "10C", "10H", "JH", "JS"]  # 98 points, bête of the Dame


def tap(page: Page, cards: list[str]) -> None:
    for card in cards:
        page.locator(f'#controls .key[data-card="{card}"]').click()
    settled(page)


def record(page: Page, button: str) -> None:
    """Press a button that records an action and wait for the new state."""
    with page.expect_response(lambda r: r.url.endswith("/actions") and r.request.method == "POST") as answer:
        page.locator(button).click()
    assert answer.value.status == 201, answer.value.text()
    expect(page.locator("#notice")).to_be_hidden()


def undo(page: Page, reason: str = "", shot: str | None = None) -> None:
    """Undo: the page asks for a reason (optional), then the undo is confirmed. The confirming button has the focus,
    not the reason's field: no phone keyboard opens over the question."""
    page.locator("#undo").click()
    expect(page.locator("#undo-confirm")).to_be_focused()
    page.fill("#undo-reason", reason)
    if shot:
        screenshot(page, shot, full_page=False)
    record(page, "#undo-confirm")


def box(page: Page, card: str) -> str:
    return page.locator(f'[data-box="{card}"] .chips').inner_text()


def chips(page: Page, seat: int) -> str | None:
    return page.locator(f'.seat[data-seat="{seat}"] .balance').get_attribute("data-chips")


def test_a_whole_deal_recorded_by_taps_then_replayed(browser: Browser, live_server: LiveServer) -> None:
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)

    # A new game from the pages.
    page.goto(f"{live_server.url}/games/new")
    players = page.locator("#players input")
    for index, name in enumerate(["Ana", "Ben", "Chloé"]):
        players.nth(index).fill(name)
    page.select_option("#profile", "classic")
    page.fill("#chips", "200")
    expect(page.locator("#dealer")).to_have_value("2")
    page.locator("#new-game button[type=submit]").click()
    page.wait_for_url(re.compile(r"/games/[^/]+/record$"))
    game = page.url.split("/")[-2]

    record(page, "#deal")
    expect(page.locator("#status")).to_contain_text("Ana starts a new run")
    assert [box(page, c) for c in ("10D", "JC", "QS", "KH", "7D")] == ["3", "6", "9", "12", "15"]

    # Only cards that can be played are enabled: after 4♣ only the fives.
    tap(page, ANA_OPENS[:4])
    settled(page)
    assert page.locator('.key[data-card="6C"]').is_disabled()
    assert page.locator('.key[data-card="5H"]').is_enabled()
    tap(page, ANA_OPENS[4:])
    expect(page.locator('input[data-announce="7D"]')).to_be_checked()  # announced unless unticked
    expect(page.locator("#play")).to_contain_text("sans 8")
    record(page, "#play")
    assert box(page, "7D") == "0" and chips(page, 0) == "200"
    expect(page.locator("#status")).to_contain_text("Ben to play")
    settled(page)
    assert page.locator('.key[data-card="AC"]').is_disabled()  # played already
    # The run wants an 8; a 9 could only start a new run by Ana (Ben and Chloé passing): drawn apart.
    expect(page.locator('.key[data-card="9S"]')).to_have_class(re.compile(r"\brestart\b"))
    expect(page.locator('.key[data-card="8S"]')).not_to_have_class(re.compile(r"\brestart\b"))
    page.locator('#record-bar .pick[data-pick="1"]').click()  # choosing Ben: only his cards
    settled(page)
    assert page.locator('.key[data-card="9S"]').is_disabled()

    # A flaky connection: the first answer is lost after the server recorded the play; the page
    # retries with the same Idempotency-Key and the play is recorded once.
    keys: list[str | None] = []

    def lose_first_answer(route: Route) -> None:
        keys.append(route.request.headers.get("idempotency-key"))
        if len(keys) == 1:
            route.fetch()
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/api/v1/games/*/actions", lose_first_answer)
    tap(page, BEN_CONTINUES)
    with page.expect_response(lambda r: r.url.endswith("/actions")) as retried:
        page.locator("#play").click()
    assert retried.value.status == 201 and retried.value.headers.get("idempotent-replayed") == "true"
    page.unroute("**/api/v1/games/*/actions")
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0]
    expect(page.locator("#status")).to_contain_text("Chloé to play")

    record(page, "#pass")  # Chloé
    tap(page, ANA_TAKES)
    record(page, "#play")
    assert (box(page, "10D"), box(page, "JC"), chips(page, 0)) == ("0", "0", "209")
    record(page, "#pass")  # Ben
    tap(page, CHLOE_FORGETS)
    page.locator('input[data-announce="KH"]').uncheck()  # Chloé forgot to call it
    expect(page.locator("#play")).to_contain_text("sans 4")
    record(page, "#play")
    assert box(page, "KH") == "12"
    tap(page, ANA_GOES_OUT)
    expect(page.locator("#play")).to_contain_text("J'arrête")
    record(page, "#play")

    # Settlement needs the cards left in hand (points, and the bête): this table shows them.
    expect(page.locator("#status")).to_contain_text("Cards left in hand to show: Ben, Chloé")
    page.locator("#by-cards").click()
    tap(page, BEN_KEEPS)
    record(page, "#reveal")
    tap(page, CHLOE_KEEPS)
    screenshot(page, "scorer-reveal-phone")
    record(page, "#reveal")

    settlement = page.locator("#settlement")
    expect(settlement).to_contain_text("Ana goes out and wins deal 1.")
    expect(settlement).to_contain_text("Ben pays Ana 43 chips (43 points in 13 cards).")
    expect(settlement).to_contain_text("Chloé pays Ana 98 chips (98 points in 11 cards).")
    expect(settlement).to_contain_text("Bête: Chloé still holds the Q♠ and pays 9 chips into its box.")
    expect(page.locator("#status")).to_contain_text("Deal 2: Ana deals.")
    assert [chips(page, seat) for seat in range(3)] == ["350", "142", "78"]
    screenshot(page, "scorer-settlement-phone")

    log = live_server.store.games.records(live_server.club, game)
    plays = [r["data"]["cards"] for r in log if r["type"] == "play"]
    assert plays == [ANA_OPENS, BEN_CONTINUES, ANA_TAKES, CHLOE_FORGETS, ANA_GOES_OUT]

    # The replay of the deal shows the same numbers at its last step.
    page.goto(f"{live_server.url}/games/{game}/replay#deal=1")
    expect(page.locator("#position")).to_contain_text("Step 1 of")
    page.keyboard.press("End")
    expect(page.locator("#step-text")).to_contain_text("Ana goes out and wins deal 1.")
    assert [box(page, c) for c in ("10D", "JC", "QS", "KH", "7D")] == ["0", "0", "18", "12", "0"]
    balances = page.locator("#balances tbody td[data-chips]")
    assert [balances.nth(seat).get_attribute("data-chips") for seat in range(3)] == ["350", "142", "78"]
    seq = int(page.url.rsplit("seq=", 1)[1])
    assert seq == max(r["seq"] for r in log if r["deal"] == 1)
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#step-text")).to_contain_text("Bête: Chloé pays 9 into the Q♠ box.")
    context.close()
    assert errors.errors == []


def test_undo_and_a_play_out_of_turn(browser: Browser, live_server: LiveServer) -> None:
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    started = live_server.store.games.create_game(
        live_server.club, new_game(["Zoé", "Yann", "Xavier"], "classic", 60), [{"type": "deal"}])
    game = started.game.id
    page.goto(f"{live_server.url}/games/{game}/record")
    expect(page.locator("#status")).to_contain_text("Zoé starts a new run")

    tap(page, ["5H", "6C", "7D"])
    record(page, "#play")  # "Nain jaune qui prend !"
    assert box(page, "7D") == "0" and chips(page, 0) == "60"
    undo(page, "wrong cards tapped", shot="scorer-undo-play-phone")  # a mis-tap: the play and its chips are withdrawn
    assert box(page, "7D") == "15" and chips(page, 0) == "45"
    expect(page.locator("#redo")).to_have_text("Redo: Zoé plays 5♥ 6♣ 7♦")  # offered, not needed here
    expect(page.locator("#status")).to_contain_text("Zoé starts a new run")
    settled(page)
    assert page.locator('.key[data-card="7D"]').is_enabled()

    tap(page, ["5H"])
    record(page, "#play")  # sans 6, Yann to play
    page.locator('.seat[data-seat="2"]').click()  # Xavier lays the 6: Yann's pass is recorded with it
    expect(page.locator("#controls .who")).to_contain_text("Xavier plays; the passes from Yann on")
    tap(page, ["6S"])
    record(page, "#play")
    expect(page.locator("#status")).to_contain_text("Zoé to play")
    passes = [r["data"] for r in live_server.store.games.records(live_server.club, game) if r["type"] == "pass"]
    assert passes == [{"seat": 1, "inferred": True}]
    # Sans 7, Zoé to play. Yann may only continue with a 7; Xavier, who stopped, completes the
    # round if he plays now (everybody else passes), so he may start a new run with any card.
    page.locator('.seat[data-seat="1"]').click()
    settled(page)
    assert page.locator('.key[data-card="7H"]').is_enabled() and page.locator('.key[data-card="2C"]').is_disabled()
    page.locator('.seat[data-seat="2"]').click()
    settled(page)
    assert page.locator('.key[data-card="2C"]').is_enabled()
    page.locator('.seat[data-seat="2"]').click()  # chosen again: back to any seat's cards, new runs apart
    expect(page.locator('.key[data-card="2C"]')).to_have_class(re.compile(r"\brestart\b"))

    # Undo again and again goes back play by play (a reason is optional); with nothing left to
    # undo in the deal, the page offers no Undo.
    undo(page)
    expect(page.locator("#status")).to_contain_text("Yann to play")
    undo(page)
    expect(page.locator("#status")).to_contain_text("Zoé starts a new run")
    expect(page.locator("#undo")).to_have_count(0)
    log = live_server.store.games.records(live_server.club, game)
    assert [r["data"]["reason"] for r in log if r["type"] == "undo"] == ["wrong cards tapped", "", ""]
    tap(page, ["KS"])
    expect(page.locator("#controls .pending .card")).to_have_text(["K♠"])
    expect(page.locator("#play")).to_contain_text("Roi et je recommence")
    context.close()
    assert errors.errors == []
