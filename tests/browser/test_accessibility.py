"""Accessibility of every page, checked by axe-core on a phone, in English and French, signed in and out.

Every route of api/pages.py is opened once per language and sign-in state in one browser context, its content
loaded; axe-core (the axe-playwright-python package) runs on it, and any violation of impact "serious" or
"critical" fails the test, each one printed with the elements it was found on. A page that sends a signed-out
visitor to the sign-in page counts as the sign-in page, checked once.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page

from nj_ledger import new_game

from .conftest import PageErrors, sign_in
from .server import LiveServer
from .test_evenings import SIX, call, evening_path, open_evening, play
from .viewports import LOCALES, PHONE

# Only what makes a page unusable for someone fails the suite; "moderate" and "minor" findings are left to review.
FAILING = {"serious", "critical"}
# The content each page shows once its script has read the API: axe runs on the page as a visitor sees it.
LOADED = """() => !document.querySelector("main .empty")?.textContent.match(/…$/)
  && document.querySelector("html").lang !== ""
  && document.readyState === "complete\""""


# What axe-core does not check: the page never scrolls sideways on a phone (a wide table scrolls in its own box);
# the notices and banners take their own room (none is fixed or sticky over the content); no text field has the
# focus on opening (a phone's keyboard would cover the page), but the sign-in page's.
LAYOUT = """() => ({
  wider: document.documentElement.scrollWidth > innerWidth ? document.documentElement.scrollWidth : null,
  over: [...document.querySelectorAll(".notice, .insecure, #notice, #insecure")]
    .filter((node) => ["fixed", "sticky", "absolute"].includes(getComputedStyle(node).position)).map((node) => node.id
      || node.className),
  typing: document.activeElement
    && document.activeElement.matches("input:not([type=checkbox]):not([type=radio]), textarea")
    ? document.activeElement.id || document.activeElement.name : null,
})"""

# The page's content shown, or the sign-in page a signed-out visitor is sent to.
SHOWN = """(ready) => document.querySelector(ready)
  || (location.pathname === "/signin" && document.querySelector("main form"))"""


@dataclass(frozen=True)
class Visit:
    name: str
    path: str
    ready: str  # a selector present once the page's content is shown


@dataclass(frozen=True)
class Site:
    server: LiveServer
    visits: tuple[Visit, ...]
    shared: tuple[Visit, ...]  # opened signed out by a link that carries its own token


@pytest.fixture(scope="module")
def site(live_server: LiveServer) -> Site:
    """An evening of six players in its first round (one table's game played), its results shared, and the
    club's example game: every page has something to show."""
    club, game = live_server.club, live_server.example_game
    playing = live_server.store.games.create_game(  # the scorer at a deal's start: the card grid and its bar
        club, new_game(SIX[:4], "classic", 60), [{"type": "deal"}]).game.id
    made = open_evening(live_server, name="Soirée accessible", players=SIX, rounds=1, seating=[[SIX[:3], SIX[3:]]])
    evening, link = made["id"], made["links"][0]
    round_ = call(live_server, "POST", evening_path(live_server, evening, "rounds"), {}, status=201)
    play(live_server, round_["rounds"][0]["tables"][0]["game"], 3, seed=5)
    share = call(live_server, "POST", f"/clubs/{club}/shares", {"evening": evening, "label": "axe"}, status=201)
    table = urlsplit(link["url"])
    base = f"/clubs/{club}/evenings/{evening}"
    visits = (
        Visit("home", "/", "#live .games, #live p.empty"),
        Visit("signin", "/signin", "main form"),
        Visit("new game", "/games/new", "main form"),
        Visit("record", f"/games/{playing}/record", "#controls .keypad .key"),
        Visit("replay", f"/games/{game}/replay", "#step-text:not(:empty)"),
        Visit("sheet", f"/games/{game}/sheet", "#standings table"),
        Visit("audit", f"/games/{game}/audit", "#verdict:not(:empty)"),
        Visit("scoreboard", f"/clubs/{club}/scoreboard", "#scoreboard table"),
        Visit("evenings", f"/clubs/{club}/evenings", "#evening-list ul, #evening-list table, #evening-list li"),
        Visit("evening", base, "#grid table"),
        Visit("screen", f"{base}/screen", "#board > :not(.empty)"),
        Visit("results", f"{base}/results", "#results table"),
        Visit("tables", "/tables", "#code-form:not([hidden]), #table-view > *"),
        Visit("table", f"/tables/{link['code']}", "#table-view > *"),
    )
    shared = (
        Visit("results (shared)", f"{base}/results#{urlsplit(share['url']).fragment}", "#results table"),
        Visit("table (its link)", f"{table.path}#{table.fragment}", "#table-view > *"),
    )
    return Site(live_server, visits, shared)


def report(violations: list[dict[str, Any]]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"  [{violation['impact']}] {violation['id']}: {violation['help']} ({violation['helpUrl']})")
        for node in violation["nodes"][:6]:
            lines.append(f"      {' '.join(map(str, node['target']))}: {node['html'][:160]}")
            summary = node.get("failureSummary", "").replace("\n", " ")
            if summary:
                lines.append(f"        {summary[:300]}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def phone(browser: Browser) -> Iterator[Page]:
    """One phone-sized context for every visit (its language and session set before each round of visits)."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale=LOCALES["en"])
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def test_every_page_has_no_serious_or_critical_violation(phone: Page, site: Site) -> None:
    server, page = site.server, phone
    errors = PageErrors(page)
    axe = Axe()
    found: dict[str, str] = {}
    checked = 0
    started = time.monotonic()
    for language in ("en", "fr"):
        page.context.add_cookies([{"name": "lang", "value": language, "url": server.url}])
        for signed_in in (True, False):
            page.goto(f"{server.url}/signin")
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            if signed_in:
                sign_in(page, server)
            for visit in site.visits + (() if signed_in else site.shared):
                page.goto(f"{server.url}{visit.path}")
                page.wait_for_function(SHOWN, arg=visit.ready)
                if visit.name != "signin" and urlsplit(page.url).path == "/signin":
                    assert not signed_in, visit
                    continue  # counted as the sign-in page
                page.wait_for_function(LOADED)
                assert page.locator("html").get_attribute("lang") == language, visit
                layout = page.evaluate(LAYOUT)
                if visit.name == "signin":
                    layout["typing"] = None
                if any(layout.values()):
                    found[f"{visit.name} [{language}, layout]"] = f"  {layout}"
                results = axe.run(page)
                checked += 1
                failing = [v for v in results.response["violations"] if v["impact"] in FAILING]
                if failing:
                    found[f"{visit.name} [{language}, {'signed in' if signed_in else 'signed out'}]"] = report(failing)
    elapsed = time.monotonic() - started
    print(f"axe-core ran on {checked} pages in {elapsed:.1f} s")
    assert not found, "serious or critical accessibility violations:\n" + "\n".join(
        f"{where}\n{text}" for where, text in found.items())
    assert errors.errors == []


def test_the_scorers_question_has_no_serious_or_critical_violation(phone: Page, site: Site) -> None:
    """What the first look at a page does not show: the scorer with cards tapped, and Undo's question."""
    server, page = site.server, phone
    errors = PageErrors(page)
    page.context.add_cookies([{"name": "lang", "value": "fr", "url": server.url}])
    sign_in(page, server)
    game = server.store.games.create_game(server.club, new_game(SIX[:3], "classic", 60), [{"type": "deal"}]).game.id
    page.goto(f"{server.url}/games/{game}/record")
    for card in ("AC", "2C", "3C"):
        page.locator(f'#controls .key[data-card="{card}"]').tap()
    axe = Axe()
    found = {"cards tapped": [v for v in axe.run(page).response["violations"] if v["impact"] in FAILING]}
    with page.expect_response(lambda r: r.url.endswith("/actions") and r.request.method == "POST"):
        page.locator("#play").tap()
    page.locator("#undo").tap()
    page.locator("#undo-confirm").wait_for()
    found["undo's question"] = [v for v in axe.run(page).response["violations"] if v["impact"] in FAILING]
    assert not any(found.values()), "\n".join(f"{where}\n{report(v)}" for where, v in found.items() if v)
    assert errors.errors == []
