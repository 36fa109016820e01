"""The scorer and the replay with a keyboard alone: Tab (and Shift+Tab) to a control, Enter or Space to press it,
the arrow keys to step the replay. No mouse, no tap, no click from the test."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from nj_ledger import new_game

from .conftest import PageErrors, new_context, sign_in
from .server import LiveServer

# Where `selector` lies from the focused element: 1 after it (Tab), -1 before it (Shift+Tab), 0 it is focused.
WHERE = """(selector) => {
  const target = document.querySelector(selector), active = document.activeElement;
  if (!target) return null;
  if (target === active) return 0;
  if (!active || active === document.body) return 1;
  return active.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING ? 1 : -1;
}"""


def tab_to(page: Page, selector: str, most: int = 120) -> int:
    """Move the focus to `selector` with Tab or Shift+Tab only; answers how many key presses it took."""
    for presses in range(most):
        where = page.evaluate(WHERE, selector)
        assert where is not None, f"{selector} is not on the page"
        if where == 0:
            return presses
        page.keyboard.press("Tab" if where > 0 else "Shift+Tab")
    raise AssertionError(f"{selector} not reached in {most} presses of Tab")


def press_to_record(page: Page, key: str) -> None:
    """Press the focused button that records an action, and wait for the server's answer."""
    with page.expect_response(lambda r: r.url.endswith("/actions") and r.request.method == "POST") as answer:
        page.keyboard.press(key)
    assert answer.value.status == 201, answer.value.text()


def events(server: LiveServer, game: str) -> list[dict[str, object]]:
    body = server.calls().read("GET", f"/api/v1/games/{game}/events", token=server.token)
    return list(body["events"] if isinstance(body, dict) else body)


def test_the_scorer_and_the_replay_with_the_keyboard_alone(browser: Browser, live_server: LiveServer) -> None:
    context = new_context(browser)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    game = live_server.store.games.create_game(
        live_server.club, new_game(["Ana", "Ben", "Chloé"], "classic", 60), [{"type": "deal"}]).game.id
    page.goto(f"{live_server.url}/games/{game}/record")
    expect(page.locator("#status")).to_contain_text("Ana")

    # Ana opens a run with A♣ 2♣ 3♣: Enter on one key, Space on the next; the focus stays in the grid.
    tab_to(page, '#controls .key[data-card="AC"]')
    page.keyboard.press("Enter")
    expect(page.locator("#record-bar .pending .card")).to_have_text(["A♣"])
    assert page.evaluate("document.activeElement.closest('#controls') !== null")
    for card in ("2C", "3C"):
        tab_to(page, f'#controls .key[data-card="{card}"]')
        page.keyboard.press("Space")
    expect(page.locator("#record-bar .pending .card")).to_have_text(["A♣", "2♣", "3♣"])
    tab_to(page, "#play")
    press_to_record(page, "Enter")
    expect(page.locator("#status")).to_contain_text("Ben")

    # Ben follows with 4♣, recorded with Space.
    tab_to(page, '#controls .key[data-card="4C"]')
    page.keyboard.press("Enter")
    tab_to(page, "#play")
    press_to_record(page, "Space")
    expect(page.locator("#status")).to_contain_text("Chloé")

    # Undo: the question takes the focus on its button (no text field focused), Enter confirms.
    tab_to(page, "#undo")
    page.keyboard.press("Enter")
    expect(page.locator("#undo-confirm")).to_be_focused()
    assert page.evaluate("document.activeElement.tagName") == "BUTTON"
    press_to_record(page, "Enter")
    expect(page.locator("#status")).to_contain_text("Ben")
    types = [e["type"] for e in events(live_server, game)]
    plays = [e for e in events(live_server, game) if e["type"] == "play"]
    assert len(plays) == 2 and "undo" in types, types

    # The replay: Tab to "next step", Enter; then the arrow keys step forward and back.
    page.goto(f"{live_server.url}/games/{game}/replay")
    expect(page.locator("#step-text")).not_to_be_empty()
    start = page.locator("#slider").input_value()
    tab_to(page, "#next")
    page.keyboard.press("Enter")
    expect(page.locator("#slider")).not_to_have_value(start)
    after_enter = int(page.locator("#slider").input_value())
    page.keyboard.press("ArrowRight")
    expect(page.locator("#slider")).to_have_value(str(after_enter + 1))
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#slider")).to_have_value(str(after_enter - 1))
    tab_to(page, "#last")
    page.keyboard.press("Space")
    expect(page.locator("#next")).to_be_disabled()
    assert errors.errors == []
    context.close()
