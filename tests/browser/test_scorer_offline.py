"""The scorer with no connection, and two phones on one game (Chromium at a 390x844 phone viewport).

- The pages are an installable web app: a manifest with icons, a service worker that keeps every asset and
  the pages opened, so that the scorer reloads with no connection (its game from the copy the phone kept).
- Every tapped action goes to the outbox (IndexedDB) with its Idempotency-Key before any request; what could
  not be sent waits there, with a badge, through a reload and a browser restart, and is sent by itself when the
  connection returns or the page opens, in order, each action stored once.
- Two phones: a tap made on a state the other phone moved on is recognised as already recorded, recorded if it
  still fits, or shown as a conflict that names both actions (never a version number).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Request, expect

from nj_ledger import new_game

from .conftest import (
    CHROMIUM_ARGS,
    PageErrors,
    chromium_path,
    new_context,
    screenshot,
    settled,
    sign_in,
    wait_for_runtime,
    wait_for_worker,
)
from .server import LiveServer, start_server

NAMES = ["Ana", "Ben", "Chloé"]
OUTBOX_MODULE = "/static/pages/outbox.js"
CORE_LOADS = 60_000  # ms: with no connection, what may be tapped waits for the core to load in the page


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of this module's own: its many new games stay out of the lists the other tests read."""
    server = start_server(tmp_path_factory.mktemp("offline"))
    yield server
    server.stop()


def dealt_game(server: LiveServer) -> str:
    """A new classic game, its first deal dealt (hands not entered): Ana (0) deals, Ben (1) opens a run."""
    started = server.store.games.create_game(server.club, new_game(NAMES, "classic", 200, dealer=0), [{"type": "deal"}])
    return started.game.id


def plays(server: LiveServer, game: str) -> list[tuple[str, int, list[str]]]:
    return [(r["type"], r["data"]["seat"], r["data"].get("cards", []))
            for r in server.store.games.records(server.club, game) if r["type"] in ("play", "pass", "undo")]


def action_requests(page: Page) -> list[Request]:
    sent: list[Request] = []
    page.on("request", lambda r: sent.append(r) if r.url.endswith("/actions") and r.method == "POST" else None)
    return sent


def open_scorer(page: Page, server: LiveServer, game: str) -> None:
    page.goto(f"{server.url}/games/{game}/record")
    expect(page.locator("#status")).to_contain_text("Deal 1")


def tap_cards(page: Page, cards: list[str]) -> None:
    """Tap cards, the rules' answer of what may follow come for each (with no connection, once the core has
    loaded in the page: seconds)."""
    for card in cards:
        key = page.locator(f'#controls .key[data-card="{card}"]')
        expect(key).to_be_enabled(timeout=CORE_LOADS)
        key.tap()
    settled(page)


def tap_play(page: Page, cards: list[str], seat: int | None = None) -> None:
    tap_cards(page, cards)
    press_play(page, seat)


def press_play(page: Page, seat: int | None = None) -> None:
    page.locator("#play" if seat is None else f'#record-bar .pick[data-pick="{seat}"]').tap()


def test_the_app_is_installable(page: Page, live_server: LiveServer) -> None:
    page.goto(f"{live_server.url}/")
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href == "/manifest.webmanifest"
    manifest = page.request.get(f"{live_server.url}{href}")
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    document = manifest.json()
    assert document["start_url"] == "/" and document["display"] == "standalone"
    sizes = {icon["sizes"] for icon in document["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in document["icons"]:
        answer = page.request.get(f"{live_server.url}{icon['src']}")
        assert answer.ok and answer.headers["content-type"].split(";")[0] == icon["type"]
    worker = page.request.get(f"{live_server.url}/sw.js")
    assert worker.headers["content-type"].startswith("text/javascript")
    assets = json.loads(re.search(r"const ASSETS = (\[.*\]);", worker.text()).group(1))  # type: ignore[union-attr]
    folder = Path(__file__).resolve().parents[2] / "api" / "static" / "pages"
    kept = {path.name for path in folder.iterdir() if path.suffix in (".js", ".css")}
    assert {f"/static/pages/{name}" for name in kept} <= set(assets)  # every asset of every page
    assert "/static/icons/icon-192.png" in assets


def test_offline_reload_and_an_outbox_sent_on_reconnect(browser: Browser, live_server: LiveServer) -> None:
    game = dealt_game(live_server)
    context = new_context(browser, phone=True, service_workers="allow")
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    open_scorer(page, live_server, game)
    wait_for_worker(page)
    wait_for_runtime(page)  # the core's rules, which answer what may be tapped with no connection
    sent = action_requests(page)

    # No connection: the page reloads from the service worker, the game from the copy the phone kept.
    context.set_offline(True)
    reloaded = page.reload()
    assert reloaded is not None and reloaded.from_service_worker
    expect(page.locator("#kept-copy")).to_contain_text("as this phone last saw it")
    expect(page.locator("#status")).to_contain_text("Ben")

    # A play tapped offline waits in the outbox, with a badge (what the page shows after it, the core's rules
    # run in the page, is test_scorer_offline_deal.py's).
    tap_play(page, ["5H", "6H"])
    badge = page.locator("#outbox-badge")
    expect(badge).to_have_text("1 waiting to be sent")
    expect(page.locator("#outbox .outbox-entry")).to_contain_text("Ben lays 5♥ 6♥")
    expect(page.locator("#notice")).to_contain_text("sent by itself as soon as the connection returns")
    key = page.locator("#outbox .outbox-entry").get_attribute("data-key")
    screenshot(page, "scorer-offline-pending-phone", full_page=False)
    assert sent == [] and plays(live_server, game) == []

    # It survives a reload (still offline).
    page.reload()
    expect(badge).to_have_text("1 waiting to be sent")

    # The connection returns: sent by itself, with its key, and recorded once.
    with page.expect_response(lambda r: r.url.endswith("/actions")) as answer:
        context.set_offline(False)
    assert answer.value.status == 201
    expect(page.locator("#outbox")).to_have_count(0)
    expect(page.locator("#status")).to_contain_text("Chloé")
    assert {r.headers["idempotency-key"] for r in sent} == {key}
    assert plays(live_server, game) == [("play", 1, ["5H", "6H"])]

    # The French page tells the same (opened in French with a connection: the copy kept is the French one).
    context.add_cookies([{"name": "lang", "value": "fr", "url": live_server.url}])
    page.reload()
    expect(page.locator("#status")).to_contain_text("Chloé")
    context.set_offline(True)
    page.reload()
    expect(page.locator("#kept-copy")).to_contain_text("telle que ce téléphone l'a vue")
    tap_play(page, ["7H"])
    expect(badge).to_have_text("1 en attente d'envoi")
    expect(page.locator("#outbox .outbox-entry")).to_contain_text("Chloé pose 7♥")
    screenshot(page, "scorer-offline-pending-phone-fr", full_page=False)
    with page.expect_response(lambda r: r.url.endswith("/actions")):
        context.set_offline(False)
    expect(page.locator("#outbox")).to_have_count(0)
    assert plays(live_server, game)[-1] == ("play", 2, ["7H"])
    context.close()
    assert errors.errors == []


def test_the_outbox_is_sent_in_order_when_the_page_opens(browser: Browser, live_server: LiveServer) -> None:
    """Three actions waiting (kept by the outbox module itself): sent oldest first, each with its key, each once."""
    game = dealt_game(live_server)
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    open_scorer(page, live_server, game)
    version = live_server.store.games.game(live_server.club, game).version
    entries = [
        {"game": game, "actions": [{"type": "play", "seat": 1, "cards": ["9C"]}], "key": "order-1", "base": version},
        {"game": game, "actions": [{"type": "pass", "seat": 2}], "key": "order-2", "base": None},
        {"game": game, "actions": [{"type": "play", "seat": 0, "cards": ["10C"]}], "key": "order-3", "base": None},
    ]
    page.evaluate("""async ([module, entries]) => {
        const outbox = await import(module);
        for (const entry of entries) await outbox.enqueue(entry);
    }""", [OUTBOX_MODULE, entries])
    sent = action_requests(page)
    page.reload()
    expect(page.locator("#status")).to_contain_text("Ben")
    expect(page.locator("#outbox")).to_have_count(0)
    assert [r.headers["idempotency-key"] for r in sent] == ["order-1", "order-2", "order-3"]
    assert plays(live_server, game) == [("play", 1, ["9C"]), ("pass", 2, []), ("play", 0, ["10C"])]
    context.close()
    assert errors.errors == []


def test_the_outbox_survives_a_browser_restart(playwright: Playwright, live_server: LiveServer, tmp_path: Path) -> None:
    game = dealt_game(live_server)
    profile = tmp_path / "profile"

    def launch() -> BrowserContext:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, service_workers="block")
        context.set_default_timeout(10_000)
        return context

    context = launch()
    page = context.pages[0] if context.pages else context.new_page()
    sign_in(page, live_server)
    open_scorer(page, live_server, game)
    # The server out of reach (the offline switch of the browser would be lifted while it closes, and the play
    # sent then): every action's request fails as with no connection.
    page.route("**/api/v1/games/*/actions", lambda route: route.abort("internetdisconnected"))
    tap_play(page, ["QS"])
    expect(page.locator("#outbox-badge")).to_have_text("1 waiting to be sent")
    expect(page.locator("#notice")).to_contain_text("sent by itself", timeout=15_000)  # the retries given up
    context.close()  # the browser closes with the play still waiting
    assert plays(live_server, game) == []

    context = launch()
    page = context.pages[0] if context.pages else context.new_page()
    errors = PageErrors(page)
    sent = action_requests(page)
    page.goto(f"{live_server.url}/games/{game}/record")
    expect(page.locator("#status")).to_contain_text("Chloé")  # the play was sent when the page opened
    expect(page.locator("#outbox")).to_have_count(0)
    assert len({r.headers["idempotency-key"] for r in sent}) == 1
    assert plays(live_server, game) == [("play", 1, ["QS"])]
    context.close()
    assert errors.errors == []


def two_phones(browser: Browser, live_server: LiveServer, game: str) -> tuple[Page, Page, PageErrors, PageErrors]:
    first = new_context(browser, phone=True).new_page()
    second = new_context(browser, phone=True).new_page()
    errors = (PageErrors(first), PageErrors(second))
    # The first phone's stream is cut, so that it stays behind what the second records (as a phone whose
    # stream has not yet brought the other's tap): its taps are made on a stale state.
    first.route("**/api/v1/games/*/stream*", lambda route: route.abort())
    for page in (first, second):
        sign_in(page, live_server)
        open_scorer(page, live_server, game)
    return first, second, *errors


def test_a_stale_tap_already_recorded_by_the_other_phone(browser: Browser, live_server: LiveServer) -> None:
    game = dealt_game(live_server)
    first, second, errors_first, errors_second = two_phones(browser, live_server, game)
    tap_cards(first, ["8D"])  # tapped on the first phone, then recorded first by the second
    with second.expect_response(lambda r: r.url.endswith("/actions")):
        tap_play(second, ["8D"])
    # The first phone, behind, records the same play by the same seat: not recorded twice, and said so.
    with first.expect_response(lambda r: r.url.endswith("/actions")) as refused:
        press_play(first)
    assert refused.value.status == 409
    notice = first.locator("#notice")
    expect(notice).to_contain_text("Ben lays 8♦: already recorded by another phone, so not recorded twice.")
    expect(first.locator("#outbox")).to_have_count(0)
    expect(first.locator("#status")).to_contain_text("Chloé")
    assert plays(live_server, game) == [("play", 1, ["8D"])]
    assert not re.search(r"version", notice.inner_text(), re.I)
    for page in (first, second):
        page.context.close()
    assert errors_first.errors == [] and errors_second.errors == []


def test_a_stale_tap_that_still_fits_is_recorded(browser: Browser, live_server: LiveServer) -> None:
    game = dealt_game(live_server)
    live_server.store.games.append(live_server.club, game, [{"type": "play", "seat": 1, "cards": ["5S"]}])
    first, second, errors_first, errors_second = two_phones(browser, live_server, game)  # both: Chloé, sans 6
    tap_cards(first, ["6S"])
    with second.expect_response(lambda r: r.url.endswith("/actions")):
        second.locator("#pass").tap()  # Chloé passes
    # The first phone still shows Chloé to act; Ana's 6♠, tapped for Ana, still fits after Chloé's pass.
    press_play(first, seat=0)
    expect(first.locator("#notice")).to_contain_text("Ana lays 6♠: recorded after Chloé passes, recorded meanwhile "
                                                     "by another phone.")
    expect(first.locator("#outbox")).to_have_count(0)
    assert plays(live_server, game) == [("play", 1, ["5S"]), ("pass", 2, []), ("play", 0, ["6S"])]
    for page in (first, second):
        page.context.close()
    assert errors_first.errors == [] and errors_second.errors == []


def test_a_stale_tap_in_conflict_names_both_actions(browser: Browser, live_server: LiveServer) -> None:
    game = dealt_game(live_server)
    first, second, errors_first, errors_second = two_phones(browser, live_server, game)
    tap_cards(first, ["3C"])
    with second.expect_response(lambda r: r.url.endswith("/actions")):
        tap_play(second, ["3C", "4C"])  # Ben lays 3♣ 4♣
    # The first phone, behind, records only the 3♣ for Ben: it no longer fits (the 3♣ is laid); both are named.
    press_play(first)
    entry = first.locator("#outbox .outbox-entry.conflict")
    expect(entry).to_contain_text("Another phone recorded Ben lays 3♣ 4♣ meanwhile, and this phone's tap (Ben lays "
                                  "3♣) no longer fits")
    expect(entry).to_contain_text("Remove it from the waiting list")
    assert not re.search(r"version", entry.inner_text(), re.I)
    expect(first.locator("#outbox-badge")).to_have_text("1 waiting to be sent")
    screenshot(first, "scorer-two-phones-conflict-phone", full_page=False)
    assert plays(live_server, game) == [("play", 1, ["3C", "4C"])]

    # An undo tapped on the stale state is never sent on the new one: it would withdraw something else.
    first.locator("#outbox .take-out").tap()
    expect(first.locator("#outbox")).to_have_count(0)
    expect(first.locator("#status")).to_contain_text("Chloé")
    with second.expect_response(lambda r: r.url.endswith("/actions")):
        second.locator("#pass").tap()  # Chloé passes
    first.locator("#undo").tap()
    first.locator("#undo-confirm").tap()
    entry = first.locator("#outbox .outbox-entry.conflict")
    expect(entry).to_contain_text("Another phone recorded Chloé passes meanwhile, after this phone's tap (an undo)")
    assert plays(live_server, game) == [("play", 1, ["3C", "4C"]), ("pass", 2, [])]
    first.locator("#outbox .take-out").tap()
    expect(first.locator("#outbox")).to_have_count(0)
    for page in (first, second):
        page.context.close()
    assert errors_first.errors == [] and errors_second.errors == []


def test_what_waits_is_sent_again_on_a_timer(browser: Browser, live_server: LiveServer) -> None:
    """The server out of reach while the browser believes it is online (no `online` event will come): the play
    waits, then goes by itself with the next resend (every 15 seconds), with its key, once."""
    game = dealt_game(live_server)
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, live_server)
    open_scorer(page, live_server, game)
    sent = action_requests(page)
    page.route("**/api/v1/games/*/actions", lambda route: route.abort("internetdisconnected"))
    tap_play(page, ["JD"])
    expect(page.locator("#outbox-badge")).to_have_text("1 waiting to be sent")
    expect(page.locator("#notice")).to_contain_text("sent by itself", timeout=15_000)  # the retries given up
    page.unroute("**/api/v1/games/*/actions")
    expect(page.locator("#outbox")).to_have_count(0, timeout=20_000)
    expect(page.locator("#status")).to_contain_text("Chloé")
    assert len({r.headers["idempotency-key"] for r in sent}) == 1
    assert plays(live_server, game) == [("play", 1, ["JD"])]
    context.close()
    assert errors.errors == []
