"""The scoreboard on a 1366 × 768 screen: every column header whole (no "Honou…"), no sideways scrolling, and
shared wins written as people write them ("301½", not "301.50"), in English and French."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Route, expect

from .conftest import screenshot
from .server import LiveServer
from .viewports import LAPTOP, opened


def row(rank: int, name: str, wins: float) -> dict[str, object]:
    return {"rank": rank, "name": name, "games": 412, "wins": wins, "deals_played": 3120, "deals_won": 1204,
            "net": 18440 - 4000 * rank, "net_per_game": 44.76, "grand_operas": 12, "honours_taken": 2210,
            "honour_chips": 33120, "betes_paid": 141, "ruins": 3, "rating": 27.41}


# What the API gives (wins summed, a win shared by n tied players counting 1/n, rounded to 3 decimals) and how
# the page writes it.
WINS = [(301.5, "301½", "301½"), (88.333, "88⅓", "88⅓"), (1.417, "1 5/12", "1 5/12"), (0.25, "¼", "¼"),
        (2, "2", "2"), (0, "0", "0"), (1234.75, "1,234¾", "1\u202f234¾"), (12.123, "12.12", "12,12")]
HEADERS = {
    "en": ["Rank", "Player", "Games", "Wins", "Deals", "Deals won", "Net chips", "Net per game", "Grand Opéras",
           "Honours taken", "Honour chips", "Bêtes paid", "Ruins", "Rating"],
    "fr": ["Rang", "Joueur", "Parties", "Victoires", "Donnes", "Donnes gagnées", "Jetons nets", "Net par partie",
           "Grands Opéras", "Honneurs pris", "Jetons d'honneurs", "Bêtes payées", "Ruines", "Cote"],
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_scoreboard_fits_a_laptop_screen(browser: Browser, live_server: LiveServer, language: str) -> None:
    rows = [row(rank, name, wins) for rank, (name, (wins, _, _)) in enumerate(
        zip(["Sylvie", "Jeanne", "Marcel", "Thomas", "Léa", "Hugo", "Manon", "René"], WINS, strict=True), start=1)]

    def scoreboard(route: Route) -> None:
        body = {"club": live_server.club, "from": None, "to": None, "rows": rows}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    with opened(browser, live_server, language, LAPTOP) as page:
        page.route("**/api/v1/clubs/*/scoreboard*", scoreboard)
        page.goto(f"{live_server.url}/clubs/{live_server.club}/scoreboard")
        expect(page.locator("#scoreboard tbody tr")).to_have_count(len(WINS))
        wanted = [en if language == "en" else fr for _, en, fr in WINS]
        assert page.locator('#scoreboard td[data-column="wins"]').all_inner_texts() == wanted
        # every header whole and on the screen, the table without a scroll bar
        headers = page.locator("#scoreboard th button.sort")
        assert [" ".join(text.replace("▲", "").split()) for text in headers.all_inner_texts()] == HEADERS[language]
        cut = page.evaluate("""() => [...document.querySelectorAll('#scoreboard th')].filter((th) => {
            const box = th.getBoundingClientRect();
            const button = th.querySelector('button');
            return box.right > window.innerWidth || button.scrollWidth > button.clientWidth + 1
              || th.scrollWidth > th.clientWidth + 1;
        }).map((th) => th.innerText)""")
        assert cut == []
        assert page.evaluate("(() => { const s = document.querySelector('#scoreboard .scroll');"
                             " return s.scrollWidth <= s.clientWidth; })()")
        assert page.evaluate("document.documentElement.scrollWidth") <= LAPTOP["width"]
        screenshot(page, f"scoreboard-1366-{language}", full_page=False)
