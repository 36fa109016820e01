"""The audit page: verdict, checks, findings, every transfer, and the chart of chips over the deals."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from nj_ledger import new_game

from .conftest import screenshot
from .server import LiveServer
from .viewports import PHONE, opened


def test_audit_shows_transfers_findings_and_the_chart(page: Page, live_server: LiveServer) -> None:
    game = live_server.example_game
    report = live_server.store.records(live_server.club, game)
    transfers = [r for r in report if r["type"] == "transfer"]
    page.goto(f"{live_server.url}/games/{game}/audit")

    expect(page.locator("#verdict")).to_contain_text(f"Every check passes over the {len(report)} events")
    expect(page.locator("#checks li")).to_have_count(5)
    expect(page.locator("#transfers tbody tr")).to_have_count(len(transfers))
    first = page.locator("#transfers tbody tr").first.locator("td")
    expect(first).to_have_text([str(transfers[0]["seq"]), "1", "Jeanne", "the 10♦ box", "1", "stake"])
    expect(page.locator("#findings")).to_contain_text("Honour not announced")
    expect(page.locator("#findings")).to_contain_text("Shortfall")

    # One line per player, one point per deal plus the start; the last points are the final chips.
    chart = page.locator("#chart svg.chips-chart")
    expect(chart.locator("polyline")).to_have_count(4)
    expect(chart.locator("g.series").first.locator("circle")).to_have_count(5)
    expect(page.locator("#chart .legend li")).to_have_text(
        ["Jeanne (160)", "Marcel (0)", "Sylvie (162)", "Thomas (154)"])
    expect(chart.locator('g.series[data-seat="1"] circle title').last).to_have_text("Marcel: 0 chips after deal 4")
    screenshot(page, "audit")


UNDONE = {
    "en": ("Ana's play 5♣ 6♣ withdrawn, with the settlement of deal 1", "Ben's pass withdrawn", "Result sheet",
           "2 chips from Ana to Ben"),
    "fr": ("Ana : coup 5♣ 6♣ retiré, avec le règlement de la donne 1", "Ben : passe retirée", "Feuille de résultats",
           "2 jetons d'Ana à Ben"),  # French elides "de" before a name that opens with a vowel
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_undo_says_what_it_withdrew_with_the_players_name(browser: Browser, live_server: LiveServer,
                                                                language: str) -> None:
    """The audit's list of undos names the action withdrawn and its player, and the settlement that went with it;
    an adjustment names its players, in French with "de" elided before a vowel."""
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}  # four cards each: a short deal
    hands = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
    going_out = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}
    created = live_server.store.create_game(live_server.club, new_game(["Ana", "Ben", "Chloé"], rules, 100), [
        {"type": "deal", "dealer": 2, "hands": hands},
        {"type": "play", "seat": 0, "cards": ["AC", "2C"], "announced": []},
        {"type": "pass", "seat": 1}, {"type": "undo"},
        {"type": "play", "seat": 1, "cards": ["3D"], "announced": []},
        {"type": "play", "seat": 2, "cards": ["4D"], "announced": []},
        going_out, {"type": "undo", "reason": "wrong seat"}, going_out,
        {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2, "reason": "a chip on the floor"},
    ])
    game = created.game.id
    settled, passed, sheet, adjusted = UNDONE[language]
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/games/{game}/audit")
        rows = page.locator("#corrections tbody tr")
        expect(rows).to_have_count(3)
        expect(rows.nth(0).locator("td").nth(2)).to_have_text(passed)
        expect(rows.nth(1).locator("td").nth(2)).to_have_text(settled)
        expect(rows.nth(1).locator("td").nth(3)).to_have_text("wrong seat")
        expect(rows.nth(2).locator("td").nth(2)).to_have_text(adjusted)
        expect(page.locator("#sheet-link")).to_have_text(sheet)
        expect(page.locator("#sheet-link")).to_have_attribute("href", f"/games/{game}/sheet")
        page.locator("#corrections").scroll_into_view_if_needed()
        screenshot(page, f"audit-undos-phone-{language}", full_page=False)
