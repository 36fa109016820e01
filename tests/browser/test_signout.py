"""A shared tablet (Chromium at a 390x844 phone viewport, its service worker on): after one club signs out, or
another club signs in, nothing of the first club stays in the browser, and no page shows it, online or offline.

What a club leaves in a browser: its session, the receipts of its games, its tables' tokens and an evening's table
links (localStorage, sessionStorage), the outbox and the copies of its games (IndexedDB), the pages the service
worker kept under their addresses (Cache Storage). Sign-out forgets all of it (``api/static/pages/forget.js``);
the assets and the shell's two pages stay, so the app still opens with no connection. Actions tapped and not yet
sent are never forgotten unasked: sign-out (or a sign-in to another club) says how many and asks.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from nj_ledger import new_game

from .conftest import PageErrors, new_context, screenshot, wait_for_worker
from .server import LiveServer

PLAYERS = ["Zénobie", "Barnabé", "Octavie"]
TITLE = "Revanche chez Zénobie"
EVENING = "Soirée des Zéphyrs"
SHELL = {"/", "/signin"}  # the pages that hold nothing of a club, kept for opening with no connection
ASSET = re.compile(r"^/(static/|core/|manifest\.webmanifest$)")

# Everything the browser holds, as the page can see it: its storage, its IndexedDB databases with every record,
# and Cache Storage with each entry's address (and the text of the pages kept).
HOLDINGS = """async () => {
    const entries = (storage) => Object.fromEntries(Object.keys(storage).map((key) => [key, storage.getItem(key)]));
    const databases = {};
    for (const info of await indexedDB.databases()) {
        const db = await new Promise((resolve, reject) => {
            const request = indexedDB.open(info.name);
            request.onsuccess = () => resolve(request.result);
            request.onerror = () => reject(request.error);
        });
        const stores = {};
        for (const name of db.objectStoreNames) {
            stores[name] = await new Promise((resolve, reject) => {
                const request = db.transaction(name).objectStore(name).getAll();
                request.onsuccess = () => resolve(request.result);
                request.onerror = () => reject(request.error);
            });
        }
        db.close();
        databases[info.name] = stores;
    }
    const cached = {};
    for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        cached[name] = [];
        for (const request of await cache.keys()) {
            const answer = await cache.match(request);
            const page = (answer.headers.get("content-type") || "").startsWith("text/html");
            cached[name].push({ url: request.url, text: page ? await answer.text() : "" });
        }
    }
    return { local: entries(localStorage), session: entries(sessionStorage), databases, cached };
}"""


def holdings(page: Page) -> dict[str, Any]:
    held: dict[str, Any] = page.evaluate(HOLDINGS)
    return held


def traces(held: dict[str, Any], secrets: list[str]) -> list[str]:
    """The secrets (and names, ids) of a club found anywhere in what the browser holds."""
    text = json.dumps(held, ensure_ascii=False)
    return [secret for secret in secrets if secret in text]


def cached_pages(held: dict[str, Any]) -> list[str]:
    """The addresses of the pages (not the assets) kept in Cache Storage."""
    paths = []
    for entries in held["cached"].values():
        for entry in entries:
            address = re.sub(r"^https?://[^/]+", "", entry["url"])
            if not ASSET.match(address):
                paths.append(address)
    return sorted(paths)


class ClubA:
    """The first club: its scorer token, a dealt game with a title, an evening whose table link the tablet opened."""

    def __init__(self, server: LiveServer, name: str) -> None:
        club, token = server.store.clubs.create_club(name)
        self.id, self.name, self.token = club.id, club.name, token.secret
        self.token_id = token.id
        started = server.store.games.create_game(club.id, new_game(PLAYERS, "classic", 200, dealer=0),
                                                 [{"type": "deal"}], meta={"title": TITLE})
        self.game = started.game.id
        evening = server.calls().read("POST", f"/api/v1/clubs/{club.id}/evenings", {
            "name": EVENING, "date": "2026-11-26", "players": PLAYERS, "rounds": 1, "starting_chips": 60,
            "seating": [[PLAYERS]]}, token=self.token, headers={"Accept": "application/json"})
        self.evening, link = evening["id"], evening["links"][0]
        self.table_url, self.table_code = link["url"], link["code"]
        self.table_token = link["url"].split("#token=")[1]

    def secrets(self) -> list[str]:
        return [self.id, self.name, self.token, self.game, TITLE, *PLAYERS, self.evening, EVENING, self.table_token]

    def pages(self) -> list[str]:
        """The addresses of the club's pages a visitor may open (typed, from the history, from a bookmark)."""
        game = f"/games/{self.game}"
        return [f"{game}/record", f"{game}/replay", f"{game}/audit", f"{game}/sheet", f"/clubs/{self.id}/scoreboard",
                f"/clubs/{self.id}/evenings/{self.evening}", f"/tables/{self.table_code}"]


def sign_in_with_the_form(page: Page, server: LiveServer, club: str, token: str) -> None:
    page.goto(f"{server.url}/signin")
    page.fill("#club", club)
    page.fill("#token", token)
    page.locator("#signin button[type=submit]").tap()


def settled(page: Page) -> str:
    """The page's text once its scripts are done with it (the same for half a second, at most 8 seconds)."""
    page.wait_for_load_state("load")
    text, since, started = page.inner_text("body"), time.monotonic(), time.monotonic()
    while time.monotonic() - since < 0.5 and time.monotonic() - started < 8:
        time.sleep(0.1)
        now = page.inner_text("body")
        if now != text:
            text, since = now, time.monotonic()
    return text


def shown_of(page: Page, server: LiveServer, paths: list[str], names: list[str]) -> dict[str, list[str]]:
    """Each page of `paths` opened: the names of `names` it shows, if any."""
    found = {}
    for path in paths:
        page.goto(f"{server.url}{path}")
        text = settled(page)
        if seen := [name for name in names if name in text]:
            found[path] = seen
    return found


def tap_play(page: Page, cards: list[str]) -> None:
    for card in cards:
        page.locator(f'#controls .key[data-card="{card}"]').tap()
    page.locator("#play").tap()


def record_online(page: Page, cards: list[str]) -> None:
    with page.expect_response(lambda r: r.url.endswith("/actions") and r.request.method == "POST") as answer:
        tap_play(page, cards)
    assert answer.value.status == 201, answer.value.text()


def a_club_at_the_table(browser: Browser, server: LiveServer, club: ClubA,
                        everywhere: bool = True) -> tuple[BrowserContext, Page, PageErrors]:
    """The tablet: club A signs in and scores its game (one turn recorded); `everywhere`, it also opens one of its
    evening's tables (the tablet is that table's phone too), the game's replay and the club's scoreboard. The
    service worker keeps each page; the scorer is left open."""
    context = new_context(browser, phone=True, service_workers="allow")
    page = context.new_page()
    errors = PageErrors(page)
    sign_in_with_the_form(page, server, club.id, club.token)
    expect(page.locator("#club-title")).to_have_text(club.name)
    wait_for_worker(page)
    if everywhere:
        page.goto(club.table_url)
        expect(page.locator("#title")).to_contain_text(EVENING)
    page.goto(f"{server.url}/games/{club.game}/record")
    expect(page.locator("#title")).to_contain_text(TITLE)
    wait_for_worker(page)
    record_online(page, ["5H", "6H"])
    if everywhere:
        for path in (f"/games/{club.game}/replay", f"/clubs/{club.id}/scoreboard"):
            page.goto(f"{server.url}{path}")
            expect(page.locator("#club-name")).to_have_text(club.name)
        page.goto(f"{server.url}/games/{club.game}/record")
        wait_for_worker(page)
    expect(page.locator("#status")).to_contain_text(PLAYERS[2])  # Octavie's turn: the turn recorded is shown
    return context, page, errors


def tap_offline(page: Page, context: BrowserContext, cards: list[str], waiting: str) -> None:
    """No connection: the scorer reloads from the service worker, a play tapped waits in the outbox."""
    context.set_offline(True)
    reloaded = page.reload()
    assert reloaded is not None and reloaded.from_service_worker
    expect(page.locator("#kept-copy")).to_be_visible()
    tap_play(page, cards)
    expect(page.locator("#outbox-badge")).to_have_text(waiting)


def nothing_of(held: dict[str, Any], club: ClubA) -> None:
    """The browser holds nothing of `club`: no storage key, no database, no page kept but the shell's (the assets
    stay: the app opens with no connection)."""
    assert held["local"] == {} and held["session"] == {}
    assert held["databases"] == {}
    assert cached_pages(held) == sorted(SHELL)
    assert traces(held, club.secrets()) == []
    assert any(ASSET.match(re.sub(r"^https?://[^/]+", "", entry["url"]))
               for entries in held["cached"].values() for entry in entries)


def test_sign_out_forgets_everything_the_club_left(browser: Browser, live_server: LiveServer) -> None:
    first = ClubA(live_server, "Les Atouts de Zénobie")
    other, other_token = live_server.store.clubs.create_club("Le Cercle du Jeudi")
    context, page, errors = a_club_at_the_table(browser, live_server, first)

    # What the tablet holds of the club: receipts, the table's token, the game kept, its pages.
    held = holdings(page)
    assert {first.id, first.token, first.game, TITLE, first.table_token} <= set(traces(held, first.secrets()))
    assert f"/games/{first.game}/record" in cached_pages(held)
    # A page is kept under its address without the fragment: the table's link carried its token there.
    assert [kept for kept in cached_pages(held) if "#" in kept] == []
    # A play tapped with no connection, sent when it returns: nothing waits, and signing out asks nothing.
    tap_offline(page, context, ["7H"], "1 waiting to be sent")
    with page.expect_response(lambda r: r.url.endswith("/actions")) as answer:
        context.set_offline(False)
    assert answer.value.status == 201
    expect(page.locator("#outbox")).to_have_count(0)
    # A second tab on the scorer (its connection to the database open) is told, and leaves the club's page too.
    second = context.new_page()
    second_errors = PageErrors(second)
    second.goto(f"{live_server.url}/games/{first.game}/record")
    expect(second.locator("#title")).to_contain_text(TITLE)
    page.bring_to_front()
    page.locator("#signout").tap()
    page.wait_for_url("**/signin")
    second.wait_for_url("**/signin")
    nothing_of(holdings(page), first)
    assert [cookie["name"] for cookie in context.cookies()] == []
    second.close()
    assert second_errors.errors == []

    # Another club signs in: none of the first club's pages shows its game, players, evening or name, offline or not.
    sign_in_with_the_form(page, live_server, other.id, other_token.secret)
    expect(page.locator("#club-title")).to_have_text(other.name)
    names = [first.name, TITLE, *PLAYERS, EVENING]
    pages = ["/", f"/clubs/{other.id}/scoreboard", *first.pages()]
    assert shown_of(page, live_server, pages, names) == {}
    context.set_offline(True)
    assert shown_of(page, live_server, pages, names) == {}
    page.goto(f"{live_server.url}/games/{first.game}/record")
    expect(page.locator("#notice")).to_contain_text("no copy of this game yet")
    screenshot(page, "signout-other-club-offline-phone", full_page=False)
    context.close()
    assert errors.errors == []


def test_sign_out_asks_before_forgetting_actions_not_sent(browser: Browser, live_server: LiveServer) -> None:
    first = ClubA(live_server, "Le Nain d'Octavie")
    context, page, errors = a_club_at_the_table(browser, live_server, first, everywhere=False)

    # An action tapped with no connection: signing out says how many wait; staying keeps it, and it is sent.
    tap_offline(page, context, ["7H"], "1 waiting to be sent")
    page.locator("#signout").tap()
    ask = page.locator("#signout-confirm")
    expect(ask).to_be_visible()
    expect(page.locator("#signout-question")).to_contain_text(
        "1 action tapped on this device has not reached the server yet: signing out forgets it.")
    screenshot(page, "signout-unsent-phone", full_page=False)
    page.locator("#signout-stay").tap()
    expect(ask).to_be_hidden()
    expect(page.locator("#outbox-badge")).to_have_text("1 waiting to be sent")
    with page.expect_response(lambda r: r.url.endswith("/actions")) as answer:
        context.set_offline(False)
    assert answer.value.status == 201
    expect(page.locator("#outbox")).to_have_count(0)

    # In French, offline again, one more waiting: asked in French, and the scorer signs out anyway.
    context.add_cookies([{"name": "lang", "value": "fr", "url": live_server.url}])
    page.reload()
    expect(page.locator("#status")).to_contain_text(PLAYERS[0])  # after 7♥ by Octavie: Zénobie
    tap_offline(page, context, ["8H"], "1 en attente d'envoi")
    page.locator("#signout").tap()
    expect(page.locator("#signout-question")).to_contain_text(
        "1 action saisie sur cet appareil n'est pas encore parvenue au serveur\u00a0: la déconnexion l'effacera.")
    expect(page.locator("#signout-stay")).to_have_text("Ne pas se déconnecter")
    expect(page.locator("#signout-anyway")).to_have_text("Se déconnecter quand même")
    screenshot(page, "signout-unsent-phone-fr", full_page=False)
    page.locator("#signout-anyway").tap()
    page.wait_for_url("**/signin")
    nothing_of(holdings(page), first)
    assert [play[2] for play in plays(live_server, first)] == [["5H", "6H"], ["7H"]]  # 8♥ forgotten, as asked
    context.close()
    assert errors.errors == []


def plays(server: LiveServer, club: ClubA) -> list[tuple[str, int, list[str]]]:
    return [(r["type"], r["data"]["seat"], r["data"].get("cards", []))
            for r in server.store.games.records(club.id, club.game) if r["type"] == "play"]


def test_another_clubs_sign_in_forgets_what_the_first_left(browser: Browser, live_server: LiveServer) -> None:
    """The first club never signed out: its token was revoked (its session goes at the next request). The next
    club's sign-in forgets what it left, asking first about the action still waiting."""
    first = ClubA(live_server, "La Table de Barnabé")
    scorer = live_server.store.tokens.create_token(first.id, "scorer", "tablet")
    first.token, first.token_id = scorer.secret, scorer.id
    other, other_token = live_server.store.clubs.create_club("Les Honneurs de Lucie")
    context, page, errors = a_club_at_the_table(browser, live_server, first)
    tap_offline(page, context, ["7H"], "1 waiting to be sent")

    live_server.store.tokens.revoke_token(first.id, first.token_id)
    context.set_offline(False)
    page.wait_for_url("**/signin?next=*")  # the action's request is refused: the session is gone
    page.fill("#club", other.id)
    page.fill("#token", other_token.secret)
    page.locator("#signin button[type=submit]").tap()
    expect(page.locator("#switch-question")).to_contain_text(
        f"1 action tapped on this device has not reached the server yet: signing in to “{other.name}” forgets it")
    screenshot(page, "signin-other-club-unsent-phone", full_page=False)
    page.locator("#switch-yes").tap()
    expect(page.locator("#club-title")).to_have_text(other.name)  # home, not the first club's page it came from

    nothing_of_but_home = holdings(page)
    assert traces(nothing_of_but_home, first.secrets()) == []
    assert nothing_of_but_home["databases"] == {} and cached_pages(nothing_of_but_home) == sorted(SHELL)
    context.set_offline(True)
    assert shown_of(page, live_server, first.pages(), [first.name, TITLE, *PLAYERS, EVENING]) == {}
    context.close()
    assert errors.errors == []
