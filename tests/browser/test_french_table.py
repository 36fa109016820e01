"""The scorer's phone as a French table reads it: cards printed V, D, R (valet, dame, roi), and an undo whose
confirming button says what it does (« Retirer le coup », beside « Garder »), with no keyboard opening over it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from .conftest import screenshot
from .server import LiveServer
from .test_scorer_mend import NAMES, open_phone, record
from .test_scorer_taps import DEAL

TEXT = {
    "en": {"king": "K♥", "queen": "Q♦", "what": "Undo Chloé's play?", "confirm": "Take back the action",
           "keep": "Keep it", "undone": "Chloé's play 10♥ J♠ Q♠ is withdrawn.", "redo": "Redo: Chloé plays 10♥ J♠ Q♠"},
    "fr": {"king": "R♥", "queen": "D♦", "what": "Retirer le coup de Chloé\u00a0?", "confirm": "Retirer le coup",
           "keep": "Garder", "undone": "le coup de Chloé (10♥ V♠ D♠) est retiré.",
           "redo": "Rétablir\u00a0: Chloé joue 10♥ V♠ D♠"},
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_cards_and_the_undo_in_the_tables_language(browser: Browser, live_server: LiveServer, language: str) -> None:
    from nj_ledger import new_game

    text = TEXT[language]
    started = live_server.store.games.create_game(live_server.club, new_game(NAMES, "classic", 200), [{"type": "deal"}])
    game = started.game.id
    live_server.store.games.append(live_server.club, game, [
        {"type": "play", "seat": seat, "cards": cards, "announced": [c for c in cards if c in ("7D", "QS", "10D")]}
        for seat, cards, _ in DEAL[:2]])
    page, errors = open_phone(browser, live_server, language)
    page.goto(f"{live_server.url}/games/{game}/record")
    # the keypad prints the figures as the table's deck does; the API's codes stay as they are
    expect(page.locator('#controls .key[data-card="KH"]')).to_have_text(text["king"])
    expect(page.locator('#controls .key[data-card="QD"]')).to_have_text(text["queen"])

    page.locator("#undo").tap()
    expect(page.locator("#undo-panel")).to_contain_text(text["what"])
    expect(page.locator("#undo-confirm")).to_have_text(text["confirm"])
    expect(page.locator("#undo-cancel")).to_have_text(text["keep"])
    expect(page.locator("#undo-confirm")).to_be_focused()  # a button: no phone keyboard opens over the question
    assert page.evaluate("document.activeElement.tagName") == "BUTTON"
    screenshot(page, f"scorer-undo-play-phone-{language}", full_page=False)
    record(page, "#undo-confirm")
    expect(page.locator("p.last")).to_contain_text(text["undone"])
    expect(page.locator("#redo")).to_have_text(text["redo"])
    assert "undo" in [r["type"] for r in live_server.store.games.records(live_server.club, game)]
    page.context.close()
    assert errors.errors == []


def test_the_scoreboard_sorts_names_as_the_language_does(browser: Browser, live_server: LiveServer) -> None:
    """Sorted by name, "Élise" comes before "Marcel" (not after "Zoé", as code points would put it), and players
    tied on a column are listed by name in the same order."""
    import json

    from .test_scoreboard import ROWS
    from .viewports import PHONE, opened

    rows = [{**row, "name": name, "rank": 1, "net": 0} for row, name in zip(ROWS * 2, NAMES_TO_SORT, strict=True)]

    with opened(browser, live_server, "fr", PHONE) as page:
        page.route("**/api/v1/clubs/*/scoreboard*", lambda route: route.fulfill(
            status=200, content_type="application/json",
            body=json.dumps({"club": live_server.club, "from": None, "to": None, "rows": rows})))
        page.goto(f"{live_server.url}/clubs/{live_server.club}/scoreboard")
        expect(page.locator("#scoreboard tbody tr")).to_have_count(len(rows))
        names = page.locator('#scoreboard td[data-column="name"]')
        expect(names).to_have_text(SORTED)  # all tied on rank: by name
        page.locator('button.sort[data-sort="name"]').click()
        expect(names).to_have_text(SORTED)
        screenshot(page, "scoreboard-names-phone-fr", full_page=False)
        page.locator('button.sort[data-sort="name"]').click()
        expect(names).to_have_text(SORTED[::-1])


NAMES_TO_SORT = ["Zoé", "Marcel", "Élise", "émile", "Table 10", "Table 2"]
SORTED = ["Élise", "émile", "Marcel", "Table 2", "Table 10", "Zoé"]
