"""The scoreboard page, against SPEC §5's contract (the endpoint is mocked by route interception)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page, Route, expect

from .conftest import screenshot
from .server import LiveServer

ROWS = [
    {"rank": 1, "name": "Sylvie", "games": 3, "wins": 2, "deals_played": 12, "deals_won": 5, "net": 84,
     "net_per_game": 28.0, "grand_operas": 1, "honours_taken": 9, "honour_chips": 120, "betes_paid": 1,
     "ruins": 0, "rating": 27.41},
    {"rank": 2, "name": "Jeanne", "games": 3, "wins": 0.5, "deals_played": 12, "deals_won": 4, "net": 40,
     "net_per_game": 13.33, "grand_operas": 0, "honours_taken": 11, "honour_chips": 150, "betes_paid": 0,
     "ruins": 0, "rating": 25.02},
    {"rank": 3, "name": "Marcel", "games": 2, "wins": 0, "deals_played": 8, "deals_won": 1, "net": -124,
     "net_per_game": -62.0, "grand_operas": 0, "honours_taken": 2, "honour_chips": 20, "betes_paid": 3,
     "ruins": 1, "rating": 19.87},
]
CSV = "rank,name,games\n1,Sylvie,3\n2,Jeanne,3\n3,Marcel,2\n"


def column(page: Page, name: str) -> list[str]:
    return page.locator(f'#scoreboard td[data-column="{name}"]').all_inner_texts()


def test_sortable_filtered_and_downloadable(page: Page, live_server: LiveServer) -> None:
    asked: list[dict[str, list[str]]] = []

    def scoreboard(route: Route) -> None:
        query = parse_qs(urlparse(route.request.url).query)
        asked.append(query)
        assert route.request.headers["authorization"] == f"Bearer {live_server.token}"
        if query.get("format") == ["csv"]:
            route.fulfill(status=200, content_type="text/csv", body=CSV)
            return
        body = {"club": live_server.club, "from": query.get("from", [None])[0], "to": query.get("to", [None])[0],
                "rows": ROWS}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/v1/clubs/*/scoreboard*", scoreboard)
    page.goto(f"{live_server.url}/clubs/{live_server.club}/scoreboard")
    expect(page.locator("#scoreboard tbody tr")).to_have_count(3)
    assert column(page, "name") == ["Sylvie", "Jeanne", "Marcel"]
    assert column(page, "rating") == ["27.4", "25.0", "19.9"]
    assert column(page, "net_per_game") == ["28.0", "13.3", "-62.0"]
    assert column(page, "wins") == ["2", "½", "0"]  # a win shared by two tied players

    page.locator('button.sort[data-sort="betes_paid"]').click()  # most first
    assert column(page, "name") == ["Marcel", "Sylvie", "Jeanne"]
    page.locator('button.sort[data-sort="name"]').click()  # A to Z
    assert column(page, "name") == ["Jeanne", "Marcel", "Sylvie"]
    page.locator('button.sort[data-sort="name"]').click()
    assert column(page, "name") == ["Sylvie", "Marcel", "Jeanne"]
    expect(page.locator('th[aria-sort="descending"]')).to_contain_text("Player")

    page.fill("#from", "2026-01-01")
    page.fill("#to", "2026-03-31")
    page.fill("#min-games", "2")
    page.locator("#period button[type=submit]").click()
    expect(page.locator("#title")).to_have_text("Scoreboard, 2026-01-01 – 2026-03-31")
    assert asked[-1] == {"from": ["2026-01-01"], "to": ["2026-03-31"], "min_games": ["2"]}
    screenshot(page, "scoreboard")

    with page.expect_download() as download:
        page.locator("#csv").click()
    assert asked[-1]["format"] == ["csv"] and asked[-1]["from"] == ["2026-01-01"]
    assert download.value.suggested_filename == f"scoreboard-{live_server.club}.csv"
    with open(download.value.path(), encoding="utf-8") as saved:
        assert saved.read() == CSV


def test_a_clear_message_while_the_endpoint_is_missing(page: Page, live_server: LiveServer) -> None:
    def missing(route: Route) -> None:
        route.fulfill(status=404, content_type="application/problem+json", body=json.dumps(
            {"type": "urn:nj-ledger:problem:not-found", "title": "Not found", "status": 404,
             "detail": "Nothing here: check the path.", "code": "not-found"}))

    page.route("**/api/v1/clubs/*/scoreboard*", missing)
    page.goto(f"{live_server.url}/clubs/{live_server.club}/scoreboard")
    expect(page.locator("#scoreboard .unavailable")).to_have_text(
        "The scoreboard is not available on this server yet.")


def test_the_real_scoreboard_of_the_club(page: Page, live_server: LiveServer) -> None:
    """The example game at Jeanne's (ended) counts: Sylvie first with 162 chips, 42 more than she started with."""
    page.goto(f"{live_server.url}/clubs/{live_server.club}/scoreboard")
    sylvie = page.locator('#scoreboard tr[data-name="Sylvie"]')
    expect(sylvie.locator('td[data-column="net"]')).to_have_text("42")
    expect(page.locator('#scoreboard tr[data-name="Marcel"] td[data-column="ruins"]')).to_have_text("1")
    page.fill("#to", "2025-12-31")  # before the game was played
    page.locator("#period button[type=submit]").click()
    expect(page.locator("#scoreboard .empty")).to_have_text("No game in this period.")
    page.fill("#season", "No such season")
    page.locator("#period button[type=submit]").click()
    expect(page.locator("#notice")).to_contain_text("No such season")
