"""The replay viewer on a recorded example game: stepping with keys, buttons and the slider; permalinks."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import screenshot
from .server import LiveServer


def box(page: Page, card: str) -> str:
    return page.locator(f'[data-box="{card}"] .chips').inner_text()


def seat_chips(page: Page, seat: int) -> str | None:
    return page.locator(f'#balances tr[data-seat="{seat}"] td[data-chips]').get_attribute("data-chips")


def test_permalink_opens_the_step_and_the_keys_step_through(page: Page, live_server: LiveServer) -> None:
    game = live_server.example_game
    # Deal 1, event 23: Jeanne lays J♣ Q♥ K♠ 5♦ 6♥ 7♥ and calls the Valet.
    page.goto(f"{live_server.url}/games/{game}/replay#deal=1&seq=23")
    expect(page.locator("#position")).to_have_attribute("data-seq", "23")
    expect(page.locator("#step-text")).to_contain_text("Jeanne plays J♣ Q♥ K♠ 5♦ 6♥ 7♥.")
    calls = page.locator("#calls .call")
    expect(calls).to_have_text(["Valet qui prend !", "Roi et je recommence", "sans 8"])
    assert [box(page, c) for c in ("10D", "JC", "QS", "KH", "7D")] == ["4", "8", "12", "16", "20"]
    expect(page.locator('.seat[data-seat="0"] .hand-size')).to_have_text("6 in hand")
    expect(page.locator('.seat[data-seat="0"] .card')).to_have_count(6)  # hands were dealt: cards shown
    expect(page.locator(".run .card")).to_have_text(["5♦", "6♥", "7♥"])
    screenshot(page, "replay-deal-1-event-23")

    page.keyboard.press("ArrowRight")  # the Valet's box goes to Jeanne
    expect(page.locator("#position")).to_have_attribute("data-seq", "24")
    expect(page.locator("#step-text")).to_contain_text("Jeanne takes 8 from the J♣ box.")
    assert box(page, "JC") == "0" and seat_chips(page, 0) == "113"
    assert page.url.endswith("#deal=1&seq=24")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#position")).to_have_attribute("data-seq", "22")
    assert box(page, "JC") == "8" and seat_chips(page, 0) == "105"

    # The slider: its first position is the state before the deal.
    slider = page.locator("#slider")
    slider.fill("0")
    expect(page.locator("#position")).to_contain_text("Step 1 of")
    expect(page.locator("#step-text")).to_contain_text("The deal is about to start.")
    assert [box(page, c) for c in ("10D", "JC", "QS", "KH", "7D")] == ["0", "0", "0", "0", "0"]
    last = int(slider.get_attribute("max") or 0)
    slider.fill(str(last))
    expect(page.locator("#step-text")).to_contain_text("Sylvie goes out and wins deal 1.")
    assert page.locator("#next").is_disabled()

    # Another deal from the picker, and a permalink written as a query.
    page.select_option("#deal-select", "2")
    expect(page.locator("#position")).to_contain_text("Step 1 of")
    assert "#deal=2&seq=" in page.url
    permalink = page.locator("#permalink").get_attribute("href")
    assert permalink is not None and permalink.endswith(page.url.split("/replay", 1)[1])
    page.goto(f"{live_server.url}/games/{game}/replay?deal=1&at=24")
    expect(page.locator("#position")).to_have_attribute("data-seq", "24")
    assert page.locator("#deal-select").input_value() == "1"
    page.locator("#next").click()
    expect(page.locator("#position")).to_have_attribute("data-seq", "25")
