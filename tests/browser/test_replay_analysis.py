"""The replay's analysis panel and graph on deal 1 of the Sunday example (Thomas's blunder), on a phone: the
decision at the step shown, how far the review reaches in a player's words, and the graph with its title, its
axes named and the step shown marked on it, the mark moving as the replay steps."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from .conftest import ARTIFACTS, screenshot
from .server import LiveServer
from .viewports import opened

SHOTS = Path("/work/shots-analysis-pages")
PANEL = {
    "en": {
        "decision": "Thomas played 7♣ 8♥; best: 7♣. Chips lost: 23", "mark": "blunder",
        "fair": "On what Sylvie could see, estimated from 8 possible hands of the others: best 9♣ 10♠; 0 chips lost "
                "(best).",
        "reach": "Reviewed exactly from the {nth} card played to the end of the deal; the plays before it had too many "
                 "possible continuations to review.",
        "title": "Each player's expected chips at the deal's end, after each step",
        "x": "Step of the deal", "y": "Expected chips", "marked": "The replay shows step {step}.",
        "position": r"^Step \d+ of \d+$",
    },
    "fr": {
        "decision": "Thomas a joué 7♣ 8♥\u00a0; le mieux\u00a0: 7♣. Jetons perdus\u00a0: 23", "mark": "gaffe",
        "fair": "Sur ce que Sylvie pouvait voir, estimé à partir de 8 mains possibles des autres\u00a0: le mieux "
                "9♣ 10♠\u00a0; 0 jetons perdus",
        "reach": "La donne est examinée exactement de la {nth} carte jouée jusqu'à sa fin\u00a0; les coups d'avant "
                 "avaient trop de suites possibles pour être examinés.",
        "title": "Les jetons attendus de chaque joueur en fin de donne, après chaque étape",
        "x": "Étape de la donne", "y": "Jetons attendus",
        "marked": "La page montre l'étape {step}.", "position": r"^Étape \d+ sur \d+$",
    },
}


def first_card_reviewed(page: Page, server: LiveServer, from_seq: int) -> int:
    """Which card of the deal (1st, 2nd…) the review starts from: one more than the cards laid before `from_seq`."""
    answer = page.request.get(f"{server.url}/api/v1/games/{server.example_game}/deals/1/replay",
                              headers={"Authorization": f"Bearer {server.token}"})
    steps = answer.json()["steps"]
    sizes = [sum(s["state"]["deal"]["hand_sizes"]) for s in steps if s["state"]["deal"]]
    before = [s for s in steps if s["seq"] < from_seq][-1]
    return sizes[0] - sum(before["state"]["deal"]["hand_sizes"]) + 1


def test_the_panel_shows_the_blunder_and_the_graph_in_english_and_french(browser: Browser,
                                                                         live_server: LiveServer) -> None:
    game = live_server.example_game
    for language, said in PANEL.items():
        with opened(browser, live_server, language) as page:
            page.goto(f"{live_server.url}/games/{game}/replay#deal=1&seq=61")
            position = page.locator("#position")
            expect(position).to_have_attribute("data-seq", "61")
            expect(position).to_have_text(re.compile(said["position"]))  # a member reads no event number
            panel = page.locator("#analysis")
            expect(panel.locator(".mark-blunder")).to_contain_text(said["decision"], timeout=30_000)
            expect(panel.locator(".mark-blunder")).to_contain_text(said["mark"])

            # how far the review reaches, in a player's words: from the first card of Thomas's play
            analysis = page.request.get(f"{live_server.url}/api/v1/games/{game}/deals/1/analysis",
                                        headers={"Authorization": f"Bearer {live_server.token}"}).json()
            assert analysis["status"] == "partial" and analysis["from_seq"] == 61
            nth = first_card_reviewed(page, live_server, 61)
            english = "th" if 11 <= nth % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(nth % 10, "th")
            ordinal = {"en": f"{nth}{english}", "fr": f"{nth}e"}[language]  # the 33rd card: Thomas's 7♣
            expect(panel.locator("#analysis-status")).to_have_text(said["reach"].format(nth=ordinal))
            for word in ("event", "budget", "drawn", "événement", "tirées"):
                assert word not in panel.inner_text(), word

            # the graph: its title, both axes named, one line a player, the step shown marked
            chart = panel.locator(".chips-chart")
            expect(panel.locator(".chart-title")).to_have_text(said["title"])
            expect(chart.locator(".x-axis")).to_have_text(said["x"])
            expect(chart.locator(".y-axis")).to_have_text(said["y"])
            expect(chart).to_have_attribute("role", "img")
            expect(chart.locator(".series")).to_have_count(4)
            expect(chart.locator(".series").first.locator("circle")).to_have_count(5)
            step = int(page.locator("#slider").input_value()) + 1
            marker = chart.locator(".marker")
            expect(marker).to_have_attribute("data-step", str(step))
            label = chart.get_attribute("aria-label") or ""
            assert label.startswith(said["title"]) and said["x"] in label and said["y"] in label, label
            assert said["marked"].format(step=step) in label, label
            before = float(marker.locator("line").get_attribute("x1") or "nan")
            panel.scroll_into_view_if_needed()
            path = screenshot(page, f"replay-analysis-{language}")
            SHOTS.mkdir(exist_ok=True)
            shutil.copy(path, SHOTS / f"replay-analysis-{language}.png")
            if language == "en":
                panel.screenshot(path=str(ARTIFACTS / "analysis-chart.png"))

            page.keyboard.press("ArrowRight")  # Jeanne's forced pass: the next point, the mark moves with the step
            expect(panel.locator(".mark-best")).to_be_visible()
            expect(chart.locator(".marker")).to_have_attribute("data-step", str(step + 1))
            assert float(chart.locator(".marker line").get_attribute("x1") or "nan") > before
            assert said["marked"].format(step=step + 1) in (chart.get_attribute("aria-label") or "")
            for _ in range(2):  # Marcel's pass, then Sylvie goes out: also valued on what she could see
                page.keyboard.press("ArrowRight")
            expect(panel.locator(".mark.fair")).to_contain_text(said["fair"])
            path = screenshot(page, f"replay-analysis-fair-{language}")
            shutil.copy(path, SHOTS / f"replay-analysis-fair-{language}.png")
