"""The pages on a phone (390x844 and 360x740): the scorer's 52 cards on the first screen at a deal's start for 3 to
8 players, the replay's step controls in reach wherever the page is scrolled, a wide table scrolled inside its own
box (a named region the keyboard scrolls) and never the page, every button and link of the scorer and the table
pages at least 44 px wide and high."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from nj_ledger import new_game

from .conftest import screenshot, settled
from .server import LiveServer
from .test_evenings import SIX, call, evening_path, open_evening
from .viewports import PHONE, opened

SMALL_PHONE: ViewportSize = {"width": 360, "height": 740}
NAMES = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hélène"]

# Each key of the grid, as the page first shows it: inside the screen, and what a finger at its middle reaches
# (the bar fixed under the grid covers none of it).
FIRST_SCREEN = """() => {
  const out = [];
  for (const key of document.querySelectorAll("#controls .keypad .key")) {
    const box = key.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    if (box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth || !hit
        || !key.contains(hit)) out.push(key.dataset.card);
  }
  return {covered: out, keys: document.querySelectorAll("#controls .keypad .key").length, scrolled: scrollY,
          width: document.documentElement.scrollWidth};
}"""

# Every button and link shown, with its box when either side is under 44 CSS px.
SMALL_TARGETS = """() => [...document.querySelectorAll("button, a[href]")]
  .filter((node) => node.getClientRects().length > 0 && getComputedStyle(node).visibility !== "hidden")
  .map((node) => {
    const box = node.getBoundingClientRect();
    const name = `${node.id ? "#" + node.id : node.className || node.tagName} ${node.textContent.trim().slice(0, 30)}`;
    return {what: name, width: Math.round(box.width * 10) / 10, height: Math.round(box.height * 10) / 10};
  })
  .filter((box) => box.width < 44 || box.height < 44)"""


@pytest.fixture
def phone(browser: Browser, live_server: LiveServer) -> Iterator[Page]:
    with opened(browser, live_server, "fr") as page:
        yield page


def deal_started(server: LiveServer, players: int) -> str:
    started = server.store.games.create_game(server.club, new_game(NAMES[:players], "classic", 60), [{"type": "deal"}])
    return started.game.id


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE], ids=["390x844", "360x740"])
@pytest.mark.parametrize("players", [3, 5, 8])
def test_the_card_grid_is_on_the_first_screen_at_a_deals_start(
        browser: Browser, live_server: LiveServer, viewport: ViewportSize, players: int) -> None:
    with opened(browser, live_server, "fr" if players != 5 else "en", viewport) as page:
        page.goto(f"{live_server.url}/games/{deal_started(live_server, players)}/record")
        expect(page.locator("#controls .keypad .key")).to_have_count(52)
        expect(page.locator("#record-bar .seat-strip .pick")).to_have_count(players)
        settled(page)  # the rules' answer of what may be tapped has come: the page is drawn as it stays
        shown = page.evaluate(FIRST_SCREEN)
        assert shown == {"covered": [], "keys": 52, "scrolled": 0, "width": viewport["width"]}, shown
        # the seat the cards go to and the button that records them are on that first screen too
        for part in ("#record-bar .pick.receiving", "#play"):
            box = page.locator(part).bounding_box()
            assert box is not None and box["y"] + box["height"] <= viewport["height"], (part, box)
        if viewport == PHONE and players in (3, 8):
            name = "scorer-deal-start-phone" if players == 3 else "scorer-deal-start-phone-8"
            screenshot(page, name, full_page=False)


def test_the_replays_controls_stay_in_reach_while_scrolling(phone: Page, live_server: LiveServer) -> None:
    page = phone
    page.goto(f"{live_server.url}/games/{live_server.example_game}/replay")
    expect(page.locator("#step-text")).not_to_be_empty()
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height > PHONE["height"] * 1.3, height  # a page longer than the screen
    for scrolled in (0, height // 3, height):
        page.evaluate(f"window.scrollTo(0, {scrolled})")
        for control in ("#prev", "#next", "#slider", "#deal-select"):
            reached = page.evaluate("""(selector) => {
              const node = document.querySelector(selector), box = node.getBoundingClientRect();
              const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
              return box.top >= 0 && box.bottom <= innerHeight && hit !== null && node.contains(hit);
            }""", control)
            assert reached, (control, scrolled)
        if scrolled == height // 3:
            screenshot(page, "replay-controls-phone", full_page=False)
    before = page.locator("#position").text_content()
    page.locator("#next").tap()
    expect(page.locator("#position")).not_to_have_text(before or "")
    for button in ("#first", "#prev", "#next", "#last"):
        box = page.locator(button).bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44, (button, box)


@pytest.fixture(scope="module")
def evening(live_server: LiveServer) -> dict[str, Any]:
    """An evening of six players at two tables, three rounds started: a grid wider than a phone."""
    made = open_evening(live_server, name="Soirée au téléphone", players=SIX, rounds=3,
                        seating=[[SIX[:3], SIX[3:]]] * 3)
    for _ in range(3):
        call(live_server, "POST", evening_path(live_server, made["id"], "rounds"), {"force": True}, status=201)
    return made


def test_wide_tables_scroll_inside_their_own_box(phone: Page, live_server: LiveServer,
                                                 evening: dict[str, Any]) -> None:
    page = phone
    base = f"{live_server.url}/clubs/{live_server.club}"
    pages = {
        "director's grid": (f"{base}/evenings/{evening['id']}", "#grid"),
        "results": (f"{base}/evenings/{evening['id']}/results", "#results"),
        "scoreboard": (f"{base}/scoreboard", "#scoreboard .scroll"),
        "sheet": (f"{live_server.url}/games/{live_server.example_game}/sheet", "#deals .scroll"),
        "audit": (f"{live_server.url}/games/{live_server.example_game}/audit", "#transfers .scroll"),
    }
    for name, (url, box) in pages.items():
        page.goto(url)
        region = page.locator(box).first
        expect(region.locator("table")).to_be_visible()
        expect(region).to_have_attribute("role", "region")
        expect(region).to_have_attribute("tabindex", "0")
        assert page.evaluate("(node) => node.getAttribute('aria-label') || "
                             "document.getElementById(node.getAttribute('aria-labelledby'))?.textContent",
                             region.element_handle()), name
        widths = page.evaluate("(node) => ({page: document.documentElement.scrollWidth, box: node.clientWidth, "
                               "table: node.scrollWidth})", region.element_handle())
        assert widths["page"] <= PHONE["width"], (name, widths)  # the page itself never scrolls sideways
        if name == "director's grid":
            assert widths["table"] > widths["box"], widths  # wider than the phone: it scrolls in its box
            region.focus()
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowRight")
            expect(region).to_be_focused()
            page.wait_for_function("(node) => node.scrollLeft > 0", arg=region.element_handle())
            page.wait_for_timeout(400)  # the keys' smooth scroll ends
            page.evaluate("(node) => node.scrollTo({left: 0, behavior: 'instant'})", region.element_handle())
            page.wait_for_function("(node) => node.scrollLeft === 0", arg=region.element_handle())
            region.scroll_into_view_if_needed()
            screenshot(page, "director-grid-phone", full_page=False)


def test_every_button_and_link_of_the_scorer_and_the_table_pages_is_a_finger_wide(
        phone: Page, live_server: LiveServer, evening: dict[str, Any]) -> None:
    page = phone
    page.goto(f"{live_server.url}/games/{deal_started(live_server, 3)}/record")
    for card in ("AC", "2C"):
        page.locator(f'#controls .key[data-card="{card}"]').tap()
    expect(page.locator("#backspace")).to_be_visible()
    page.locator("#backspace").tap()
    page.locator("#play").tap()  # Ana's ace: the undo and the links below the controls are shown too
    expect(page.locator("#undo")).to_be_visible()
    assert page.evaluate(SMALL_TARGETS) == [], "the scorer"
    page.mouse.wheel(0, 3000)
    assert page.evaluate(SMALL_TARGETS) == [], "the scorer, scrolled to its end"

    page.goto(f"{live_server.url}/tables")
    expect(page.locator("#code-form")).to_be_visible()
    assert page.evaluate(SMALL_TARGETS) == [], "the table's code"
    link = evening["links"][0]
    page.goto(link["url"])
    expect(page.locator("#score")).to_be_visible()
    assert page.evaluate(SMALL_TARGETS) == [], "a table's page"
