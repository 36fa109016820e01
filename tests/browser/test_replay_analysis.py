"""The replay's analysis panel and graph on deal 1 of the Sunday example (Thomas's blunder), on a phone."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Browser, expect

from .conftest import screenshot
from .server import LiveServer
from .viewports import opened

SHOTS = Path("/work/shots-analysis-pages")


def test_the_panel_shows_the_blunder_and_the_graph_in_english_and_french(browser: Browser,
                                                                         live_server: LiveServer) -> None:
    game = live_server.example_game
    for language, said, mark in (("en", "Thomas played 7♣ 8♥; best: 7♣. Chips lost: 23", "blunder"),
                                 ("fr", "Thomas a joué 7♣ 8♥ ; le mieux : 7♣. Jetons perdus : 23", "gaffe")):
        with opened(browser, live_server, language) as page:
            page.goto(f"{live_server.url}/games/{game}/replay#deal=1&seq=61")
            expect(page.locator("#position")).to_contain_text("61")
            panel = page.locator("#analysis")
            expect(panel.locator(".mark-blunder")).to_contain_text(said, timeout=30_000)
            expect(panel.locator(".mark-blunder")).to_contain_text(mark)
            expect(panel.locator(".chips-chart .series")).to_have_count(4)
            expect(panel.locator(".chips-chart .series").first.locator("circle")).to_have_count(5)
            panel.scroll_into_view_if_needed()
            path = screenshot(page, f"replay-analysis-{language}")
            SHOTS.mkdir(exist_ok=True)
            shutil.copy(path, SHOTS / f"replay-analysis-{language}.png")
            page.keyboard.press("ArrowRight")  # Jeanne's forced pass
            expect(panel.locator(".mark-best")).to_be_visible()
            for _ in range(2):  # Marcel's pass, then Sylvie goes out: also valued on what she could see
                page.keyboard.press("ArrowRight")
            fair = {"en": "On what Sylvie could see (8 deals drawn): best 9♣ 10♠; 0 chips lost (best).",
                    "fr": "Sur ce que Sylvie pouvait voir (8 donnes tirées) : le mieux 9♣ 10♠ ; 0 jetons perdus"}
            expect(panel.locator(".mark.fair")).to_contain_text(fair[language])
            path = screenshot(page, f"replay-analysis-fair-{language}")
            shutil.copy(path, SHOTS / f"replay-analysis-fair-{language}.png")
