"""The scorer on a 390x844 phone, in French and English: a header of one row, every card row of the grid
reachable and never under the bar fixed below it, the seat the cards go to always in view."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from nj_ledger import new_game

from .conftest import PageErrors, new_context, screenshot, settled, sign_in
from .server import LiveServer

COVERED = """() => {
  // For every key of the grid, scrolled into view as a browser does: is the key what a finger reaches?
  const hidden = [];
  for (const key of document.querySelectorAll("#controls .keypad .key")) {
    key.scrollIntoView({ block: "nearest" });
    const box = key.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    if (!hit || !key.contains(hit)) hidden.push(key.dataset.card);
  }
  return hidden;
}"""

ROW = """() => {
  // The header's visible parts share one row: each one's vertical middle lies inside every other's box.
  const parts = [...document.querySelector(".site-header").children]
    .filter((node) => node.getClientRects().length > 0 && getComputedStyle(node).display !== "none");
  const boxes = parts.map((node) => node.getBoundingClientRect());
  const middles = boxes.map((b) => b.top + b.height / 2);
  return {
    height: document.querySelector(".site-header").getBoundingClientRect().height,
    oneRow: boxes.every((b) => middles.every((m) => m >= b.top - 1 && m <= b.bottom + 1)),
    width: document.documentElement.scrollWidth,
  };
}"""


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_one_header_row_and_every_card_row_reachable(browser: Browser, live_server: LiveServer, locale: str) -> None:
    language = locale[:2]
    context = new_context(browser, locale=locale, phone=True)
    context.add_cookies([{"name": "lang", "value": language, "url": live_server.url}])
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    started = live_server.store.games.create_game(
        live_server.club, new_game(["Ana", "Ben", "Chloé"], "classic", 60), [{"type": "deal"}])
    page.goto(f"{live_server.url}/games/{started.game.id}/record")
    expect(page.locator("#status")).to_contain_text("Ana")
    settled(page)  # drawn as it stays: the rules' answer of what may be tapped has come
    expect(page.locator("html")).to_have_attribute("lang", language)

    header = page.evaluate(ROW)
    assert header["oneRow"], header
    assert header["height"] <= 56, header
    assert header["width"] <= 390, header  # nothing wider than the phone
    # every link shown is reachable (the API's is left to wide screens)
    for link in page.locator(".site-header nav a:visible").all():
        link.scroll_into_view_if_needed()
        assert link.is_visible()
    screenshot(page, f"scorer-header-phone-{language}", full_page=False)

    assert page.evaluate(COVERED) == []
    page.mouse.wheel(0, 5000)  # at the very bottom the King row sits above the bar
    kings = page.locator('#controls .key[data-card^="K"]')
    expect(kings).to_have_count(4)
    bar = page.locator("#record-bar").bounding_box()
    assert bar is not None
    for index in range(4):
        box = kings.nth(index).bounding_box()
        assert box is not None and box["y"] + box["height"] <= bar["y"], (box, bar)
    screenshot(page, f"scorer-kings-phone-{language}", full_page=False)

    # Ana lays the King of clubs: a tap on it, wherever the grid was scrolled to, then one on Play.
    page.mouse.wheel(0, -5000)
    page.locator('#controls .key[data-card="KC"]').tap()
    expect(page.locator("#record-bar .pending .card")).to_have_text(["R♣" if language == "fr" else "K♣"])  # roi
    assert page.locator("#record-bar .seat-strip").is_visible()
    context.close()
    assert errors.errors == []
