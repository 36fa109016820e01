"""On a phone (390x844), in French and in English: the home page lists a club's games newest first, a page at a
time, found by title, player, status and day; the new-game form shows the profile's options a table argues about,
prefilled with the profile's values, and starts the game with the table's own choices, a title and a day."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from nj_ledger import new_game
from nj_ledger.profiles import default_starting_chips

from .conftest import SESSION_KEY, PageErrors, screenshot
from .server import LiveServer

PHONE = {"width": 390, "height": 844}
LOCALES = {"en": "en-GB", "fr": "fr-FR"}
TEXT = {
    "en": {"heading": "All games, newest first", "more": "More games", "all_shown": "25 games shown: all of them.",
           "some_shown": "20 games shown.", "none": "No game matches these filters.", "finished": "finished",
           "day": "Day played", "agrees": "What the table agrees on", "hearts": "Hearts board"},
    "fr": {"heading": "Toutes les parties, les plus récentes d'abord", "more": "Plus de parties",
           "all_shown": "25 parties affichées : toutes.", "some_shown": "20 parties affichées.",
           "none": "Aucune partie ne répond à ces critères.", "finished": "terminée", "day": "Jour de la partie",
           "agrees": "Ce que la table décide", "hearts": "Tableau à la Dame de cœur"},
}


@pytest.fixture(scope="module")
def club(live_server: LiveServer) -> dict[str, Any]:
    """A club of its own with 25 games on 25 days: every fifth ended, every third titled "Soirée …"."""
    store = live_server.store
    info, token = store.clubs.create_club("Le Cercle des Listes")
    first_day = date(2026, 1, 1)
    games = []
    for n in range(25):
        players = ["Ana", "Ben", "Chloé"] if n % 2 else ["Denis", "Élise", "Ana"]
        title = f"Soirée n°{n}" if n % 3 == 0 else f"Partie {n}"
        actions = [{"type": "end"}] if n % 5 == 0 else []
        day = (first_day + timedelta(days=n)).isoformat()
        made = store.games.create_game(info.id, new_game(players, "classic", 200), actions, meta={"title": title,
                                                                                            "date": day})
        games.append({"id": made.game.id, "title": title, "date": day, "players": players,
                      "ended": n % 5 == 0})
    return {"id": info.id, "name": info.name, "token": token.secret, "games": games[::-1]}  # newest first


@pytest.fixture(params=["en", "fr"])
def phone(request: pytest.FixtureRequest, browser: Browser, live_server: LiveServer,
          club: dict[str, Any]) -> Iterator[tuple[Page, str]]:
    language = request.param
    context: BrowserContext = browser.new_context(locale=LOCALES[language], viewport=PHONE,  # type: ignore[arg-type]
                                                  has_touch=True, is_mobile=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors = PageErrors(page)
    page.goto(f"{live_server.url}/signin")
    page.evaluate("([key, value]) => localStorage.setItem(key, JSON.stringify(value))",
                  [SESSION_KEY, {"club": club["id"], "token": club["token"], "name": club["name"]}])
    yield page, language
    context.close()
    assert errors.errors == []


def _shown(page: Page) -> list[str]:
    return page.locator("#games li.game").evaluate_all("items => items.map(item => item.dataset.game)")


def _fits_the_phone(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a {PHONE['width']} px phone"


def test_the_home_list_pages_and_filters_on_a_phone(phone: tuple[Page, str], live_server: LiveServer,
                                                    club: dict[str, Any]) -> None:
    page, language = phone
    text, games = TEXT[language], club["games"]
    ids = [game["id"] for game in games]
    page.goto(f"{live_server.url}/")
    expect(page.locator("#all-games")).to_have_text(text["heading"])
    expect(page.locator("#shown")).to_have_text(text["some_shown"])
    assert _shown(page) == ids[:20]
    expect(page.locator("#games li.game").first).to_contain_text(games[0]["title"])
    expect(page.locator("#games li.game").first).to_contain_text(games[0]["date"])
    _fits_the_phone(page)
    screenshot(page, f"home-list-phone-{language}", full_page=False)

    page.locator("#more").click()  # the next page is added below
    expect(page.locator("#shown")).to_have_text(text["all_shown"])
    assert _shown(page) == ids
    expect(page.locator("#more")).to_be_hidden()

    # a part of the title, whatever its case: kept in the address
    page.fill("#f-title", "SOIRÉE" if language == "en" else "soirée")
    page.locator("#filters button[type=submit]").click()
    titled = [g["id"] for g in games if g["title"].startswith("Soirée")]
    expect(page.locator("#games li.game")).to_have_count(len(titled))
    assert _shown(page) == titled
    assert "title=" in page.url
    page.fill("#f-title", "soir")
    page.locator("#filters button[type=submit]").click()
    expect(page.locator("#games li.game")).to_have_count(len(titled))
    assert _shown(page) == titled

    # a status, with the title still chosen
    page.select_option("#f-status", "ended")
    ended_titled = [g["id"] for g in games if g["ended"] and g["title"].startswith("Soirée")]
    expect(page.locator("#games li.game")).to_have_count(len(ended_titled))
    assert _shown(page) == ended_titled
    expect(page.locator("#games li.game").first).to_contain_text(text["finished"])
    _fits_the_phone(page)
    screenshot(page, f"home-list-filtered-phone-{language}", full_page=False)

    # a reload shows the same list, from the address
    page.reload()
    expect(page.locator("#f-status")).to_have_value("ended")
    expect(page.locator("#f-title")).to_have_value("soir")
    expect(page.locator("#games li.game")).to_have_count(len(ended_titled))

    # cleared: everything again; then a player and a day
    page.locator("#f-clear").click()
    expect(page.locator("#shown")).to_have_text(text["some_shown"])
    page.fill("#f-player", "denis")
    page.locator("#filters button[type=submit]").click()
    with_denis = [g["id"] for g in games if "Denis" in g["players"]]
    expect(page.locator("#games li.game")).to_have_count(len(with_denis))
    assert _shown(page) == with_denis
    page.fill("#f-player", "")
    page.fill("#f-date", games[3]["date"])  # a change of the day searches at once
    expect(page.locator("#games li.game")).to_have_count(1)
    assert _shown(page) == [games[3]["id"]]
    page.fill("#f-date", "2001-01-01")
    expect(page.locator("#games .empty")).to_have_text(text["none"])


def test_the_new_game_form_on_a_phone(phone: tuple[Page, str], live_server: LiveServer,
                                      club: dict[str, Any]) -> None:
    page, language = phone
    text = TEXT[language]
    page.goto(f"{live_server.url}/games/new")
    expect(page.locator("#table-rules legend")).to_have_text(text["agrees"])
    expect(page.get_by_label(text["day"])).to_have_value(page.evaluate(
        "(() => { const d = new Date(); return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0')"
        " + '-' + String(d.getDate()).padStart(2, '0'); })()"))
    # the classic profile's values
    expect(page.locator("#chips")).to_have_value(str(default_starting_chips("classic")))
    expect(page.locator("#payment")).to_have_value("points")
    expect(page.locator("#bete")).to_have_value("double")
    expect(page.locator("#shortfall")).to_have_value("end")
    expect(page.locator("#may-stop")).to_be_checked()
    _fits_the_phone(page)
    screenshot(page, f"new-game-phone-{language}", full_page=True)

    # another profile refreshes them
    page.select_option("#profile", "hearts")
    expect(page.locator("#profile option:checked")).to_have_text(text["hearts"])
    expect(page.locator("#chips")).to_have_value(str(default_starting_chips("hearts")))
    expect(page.locator("#payment")).to_have_value("cards")
    expect(page.locator("#bete")).to_have_value("none")
    expect(page.locator("#may-stop")).not_to_be_checked()

    # the table's own choices, a title and a day
    title = f"Jeudi chez Ana ({language})"
    page.fill("#title", title)
    page.fill("#date", "2026-03-05")
    for seat, name in enumerate(["Ana", "Ben", "Chloé"]):
        page.locator("#players input").nth(seat).fill(name)
    page.select_option("#shortfall", "negative")
    page.fill("#chips", "150")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/games")) as sent:
        page.locator("#new-game button[type=submit]").click()
    body = sent.value.post_data_json
    assert body["rules"] == {"profile": "hearts", "shortfall": "negative"}  # only what differs from the profile
    assert (body["title"], body["date"], body["starting_chips"]) == (title, "2026-03-05", 150)
    page.wait_for_url("**/record")
    game = page.url.rsplit("/", 2)[-2]
    # the scorer, the replay and the audit name the game by its title: two games of the same players told apart
    scorer = {"en": "Scorer", "fr": "Marque"}[language]
    expect(page.locator("#title")).to_have_text(f"{scorer} — {title}")
    for view in ("replay", "audit"):
        page.goto(f"{live_server.url}/games/{game}/{view}")
        expect(page.locator("#title")).to_contain_text(f" — {title}")
    info, state = live_server.store.games.game_state(club["id"], game)
    assert (info.meta["title"], info.played_on.isoformat()) == (title, "2026-03-05")
    assert (state.rules.profile, state.rules.shortfall, state.rules.payment, state.starting_chips) == (
        "hearts", "negative", "cards", 150)
