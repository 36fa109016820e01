"""A whole deal recorded with no connection (Chromium at a 390x844 phone viewport).

The scorer page runs the core's own rules under Pyodide (``api/static/pages/core.js``, ``nj_ledger.scorer``):
with actions waiting in its outbox it shows the state they give — whose turn it is, the cards that may be
tapped, the boxes, the chips — and that must be what the server computes when the outbox is sent. The deal is
a simulated one (``nj_ledger.simulator``, hands not entered, the losers' hands told by count): the deal, its
plays and passes, a reload with no connection in the middle, the reveals and the settlement, all tapped offline;
then the connection returns and the outbox drains.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from nj_ledger import LedgerError, execute, replay
from nj_ledger.cards import DECK
from nj_ledger.events import Event, event_from_dict
from nj_ledger.simulator import simulate
from nj_ledger.state import GameState
from nj_ledger.view import state_view

from .conftest import PageErrors, new_context, screenshot, settled, sign_in, wait_for_runtime, wait_for_worker
from .server import LiveServer, start_server

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "scripts" / "vendor_pyodide.py"
RELOAD_AFTER = 12  # the page is reloaded, still offline, after this many actions of the deal
CORE_READY = "body[data-core]"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    if subprocess.run([sys.executable, str(VENDOR), "--check"], check=False).returncode:
        pytest.fail("The Pyodide runtime is missing from api/static/vendor/pyodide/: `make install` fetches it "
                    "(python scripts/vendor_pyodide.py)")
    server = start_server(tmp_path_factory.mktemp("offline-deal"))
    yield server
    server.stop()


def may_lay(state: GameState) -> set[str]:
    """The cards some seat may lay now (or start a play with), by the core run directly."""
    assert state.deal is not None
    cards = set()
    for card in DECK:
        for seat in range(len(state.players)):
            try:
                execute(state, [{"type": "play", "seat": seat, "cards": [card], "announced": []}])
            except LedgerError as refused:
                if refused.code != "must-continue":
                    continue
            cards.add(card)
            break
    return cards


def enabled_cards(page: Page) -> set[str]:
    keys = "#controls .keypad .key:not([disabled])"
    return set(page.eval_on_selector_all(keys, "keys => keys.map(k => k.dataset.card)"))


def shown(page: Page) -> dict[str, str]:
    """What the page shows of the game: the status, the table (seats, chips, boxes, the run), the settlement."""
    return {part: page.locator(f"#{part}").inner_text() for part in ("status", "table", "settlement")}


def tap(page: Page, action: dict[str, Any], state: GameState) -> None:
    """Tap one action as a scorer does (each card must be tappable), on the state the page shows."""
    kind = action["type"]
    if kind == "deal":
        page.locator("#deal").tap()
    elif kind == "play":
        for card in action["cards"]:
            key = page.locator(f'#controls .key[data-card="{card}"]')
            expect(key).to_be_enabled()
            key.tap()
        settled(page)
        boxes = page.eval_on_selector_all("#record-bar [data-announce]", "boxes => boxes.map(b => b.dataset.announce)")
        for card in boxes:
            if card not in action["announced"]:
                page.locator(f'#record-bar [data-announce="{card}"]').uncheck()
        page.locator(f'#record-bar .pick[data-pick="{action["seat"]}"]').tap()
    elif kind == "pass":
        assert state.deal is not None and state.deal.turn == action["seat"]
        page.locator("#pass").tap()
    elif kind == "reveal":
        assert state.deal is not None
        if len(state.deal.awaiting) > 1:
            page.locator(f'[data-reveal-seat="{action["seat"]}"]').tap()
        page.locator("#points").fill(str(action["points"]))
        for card in action["honours"]:
            page.locator(f'[data-honour="{card}"]').tap()
        page.locator("#reveal-count").tap()
    else:
        raise AssertionError(f"not a deal's action: {kind}")


def test_a_whole_deal_recorded_offline_is_what_the_server_records(browser: Browser, live_server: LiveServer) -> None:
    simulated = simulate(1, "classic", players=3, info="partial", deals=1, chatter=0, by_count=1.0, starting_chips=200)
    started = simulated.events[0]
    # the actions as the scorer taps them: the first deal names its dealer (the page's choice, Chloé by default)
    batches = [[{**action, "dealer": started.data["dealer"]} if action["type"] == "deal" else action]
               for (action, *more) in simulated.batches if action["type"] != "end" and not more]
    assert len(batches) == len(simulated.batches) - 1
    game = live_server.store.games.create_game(live_server.club, started).game.id
    names = started.data["players"]

    context = new_context(browser, phone=True, service_workers="allow")
    page = context.new_page()
    errors = PageErrors(page)
    sent: list[Request] = []
    page.on("request", lambda r: sent.append(r) if r.url.endswith("/actions") and r.method == "POST" else None)
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/games/{game}/record")
    expect(page.locator("#deal")).to_be_visible()
    wait_for_worker(page)
    wait_for_runtime(page)  # kept by the worker while the page is open with a connection
    expect(page.locator(CORE_READY)).to_have_count(0)  # and not loaded in the page: nothing needs it yet

    # The connection drops: the page loads the core's rules (from the worker's cache, seconds), and goes on with them.
    context.set_offline(True)
    log: list[Event] = [started]
    state = replay(log)
    for number, (action,) in enumerate(batches, 1):
        tap(page, action, state)
        state, made = execute(state, [action])
        log += made
        if number == 1:  # tapped before the core has loaded: as without it, the taps are held after one action
            expect(page.locator("#deal")).to_be_disabled()
            expect(page.locator(CORE_READY)).to_have_count(1, timeout=60_000)
        # the page goes on at once: the next turn, the cards that may be laid, as the core run here says
        expect(page.locator("#outbox-badge")).to_have_attribute("data-count", str(number))
        view = state_view(state)
        if state.status == "playing":
            assert view["deal"]["turn"] is not None
            expect(page.locator("#status")).to_contain_text(names[view["deal"]["turn"]])
            expect(page.locator("#controls .keypad .key").first).to_be_visible()
            deadline = time.monotonic() + 10
            while enabled_cards(page) != may_lay(state) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert enabled_cards(page) == may_lay(state), number
        elif state.status == "revealing":
            expect(page.locator("#count-form")).to_contain_text(names[state.deal.awaiting[0]])  # type: ignore[union-attr]
        if number == RELOAD_AFTER:
            page.evaluate("window.scrollTo(0, 0)")
            screenshot(page, "scorer-offline-deal-phone", full_page=False)
            page.locator("#outbox").scroll_into_view_if_needed()  # what waits, and the cards that may be laid
            screenshot(page, "scorer-offline-deal-waiting-phone", full_page=False)
            page.reload()  # still offline: the page from the worker, the game from the copy kept, then the core
            expect(page.locator(CORE_READY)).to_have_count(1, timeout=60_000)
            expect(page.locator("#local-state")).to_be_visible()  # shown as the server will record it
            expect(page.locator("#kept-copy")).to_have_count(0)
            expect(page.locator("#status")).to_contain_text(names[state.deal.turn])  # type: ignore[index, union-attr]
    assert state.status == "ready" and state.deals_played == 1
    expect(page.locator("#settlement")).not_to_be_empty()
    expect(page.locator("#deal")).to_be_enabled()  # the next deal may be tapped too
    offline = shown(page)
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "scorer-offline-deal-settled-phone", full_page=False)
    assert sent == []

    # The connection returns: the outbox drains, in order, each action once; the server's answers replace the state.
    context.set_offline(False)
    expect(page.locator("#outbox")).to_have_count(0, timeout=60_000)
    assert [request.post_data_json["actions"] for request in sent] == batches
    records = live_server.store.games.records(live_server.club, game)
    assert [(r["type"], r["data"]) for r in records] == [(e.type, e.data) for e in log]  # a direct replay's events
    server_state = replay(event_from_dict(record) for record in records)
    assert state_view(server_state) == state_view(state)
    assert shown(page) == offline
    page.reload()
    expect(page.locator("#status")).to_have_text(offline["status"])
    expect(page.locator("#settlement")).not_to_be_empty()
    expect(page.locator("#kept-copy")).to_have_count(0)
    assert shown(page) == offline  # drawn from the server's own state and log
    context.close()
    assert errors.errors == []
