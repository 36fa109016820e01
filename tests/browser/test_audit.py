"""The audit page: verdict, checks, findings, every transfer, and the chart of chips over the deals."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import screenshot
from .server import LiveServer


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
