"""Pages that follow a game as it is played (Chromium at a 390x844 phone viewport).

Two phones score one game: what one records appears on the other within a second, with no reload, read from the
game's stream (`GET /api/v1/games/{game}/stream`, fetched with the page's credentials).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from nj_ledger import new_game

from .conftest import PageErrors, new_context, screenshot, sign_in
from .server import LiveServer, start_server

NAMES = ["Ana", "Ben", "Chloé"]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("following"))
    yield server
    server.stop()


def dealt_game(server: LiveServer) -> str:
    """A new classic game, its first deal dealt: Ana (0) deals, Ben (1) opens a run."""
    started = server.store.games.create_game(server.club, new_game(NAMES, "classic", 200, dealer=0), [{"type": "deal"}])
    return started.game.id


def phone(browser: Browser, server: LiveServer, game: str, locale: str) -> tuple[Page, PageErrors]:
    page = new_context(browser, locale=locale, phone=True).new_page()
    errors = PageErrors(page)
    sign_in(page, server)
    page.goto(f"{server.url}/games/{game}/record")
    expect(page.locator("#status")).to_contain_text("Ben")
    return page, errors


def tap_play(page: Page, cards: list[str]) -> None:
    for card in cards:
        page.locator(f'#controls .key[data-card="{card}"]').tap()
    page.locator("#play").tap()


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_a_second_phone_follows_within_a_second(browser: Browser, live_server: LiveServer, locale: str) -> None:
    game = dealt_game(live_server)
    first, errors_first = phone(browser, live_server, game, locale)
    second, errors_second = phone(browser, live_server, game, locale)
    navigations: list[str] = []
    second.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == second.main_frame else None)
    # the second phone's stream is open before the first phone records
    second.wait_for_timeout(300)
    for cards, next_to_act in ((["8D"], "Chloé"), (["9D"], "Ana")):
        with first.expect_response(lambda r: r.url.endswith("/actions")) as answer:
            tap_play(first, cards)
        assert answer.value.ok
        acknowledged = time.monotonic()
        expect(second.locator("#status")).to_contain_text(next_to_act, timeout=1000)
        assert time.monotonic() - acknowledged < 1.0
        expect(second.locator("p.last")).to_contain_text(cards[0][0])
    assert navigations == []  # no reload: the page followed by itself
    shot = screenshot(second, f"second-phone-following-{locale[:2]}")
    assert shot.stat().st_size > 0
    for page in (first, second):
        page.context.close()
    assert errors_first.errors == [] and errors_second.errors == []


@pytest.mark.parametrize(("locale", "live", "lays"), [("en-GB", "Live", "Ben"), ("fr-FR", "En direct", "Ben")])
def test_the_replay_follows_the_open_deal_live(browser: Browser, live_server: LiveServer, locale: str, live: str,
                                               lays: str) -> None:
    game = dealt_game(live_server)
    viewer = new_context(browser, locale=locale, phone=True).new_page()
    errors = PageErrors(viewer)
    sign_in(viewer, live_server)
    viewer.goto(f"{live_server.url}/games/{game}/replay")
    expect(viewer.locator("#position")).to_contain_text("1")
    viewer.get_by_label(live).check()
    viewer.wait_for_timeout(300)
    steps = viewer.locator("#slider")
    before = int(steps.get_attribute("max") or "0")
    live_server.store.games.append(live_server.club, game, [{"type": "play", "seat": 1, "cards": ["8D"]}])
    appended = time.monotonic()
    expect(steps).to_have_attribute("max", str(before + 1), timeout=1000)
    assert time.monotonic() - appended < 1.0
    expect(viewer.locator("#slider")).to_have_value(str(before + 1))
    expect(viewer.locator("#step-text")).to_contain_text(lays)
    expect(viewer.locator("#step-text")).to_contain_text("8♦")
    live_server.store.games.append(live_server.club, game, [{"type": "play", "seat": 2, "cards": ["9D"]}])
    expect(steps).to_have_value(str(before + 2), timeout=1000)
    expect(viewer.locator("#step-text")).to_contain_text("Chloé")
    screenshot(viewer, f"replay-live-{locale[:2]}")
    viewer.get_by_label(live).uncheck()
    live_server.store.games.append(live_server.club, game, [{"type": "pass", "seat": 0}])
    viewer.wait_for_timeout(800)
    expect(steps).to_have_value(str(before + 2))  # live off: the page stays where it is
    viewer.context.close()
    assert errors.errors == []


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_the_home_pages_live_games_update_by_themselves(browser: Browser, live_server: LiveServer, locale: str) -> None:
    screen = new_context(browser, locale=locale, phone=True).new_page()
    errors = PageErrors(screen)
    sign_in(screen, live_server)
    screen.goto(f"{live_server.url}/")
    expect(screen.locator("#live")).to_be_visible()
    screen.wait_for_timeout(600)  # the club's stream open, its past read
    navigations: list[str] = []
    screen.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == screen.main_frame else None)
    game = dealt_game(live_server)  # a game started elsewhere
    row = screen.locator(f'#live li[data-game="{game}"]')
    expect(row).to_be_visible(timeout=1500)
    screenshot(screen, f"home-live-{locale[:2]}")
    assert navigations == []
    screen.context.close()
    assert errors.errors == []


SMALL = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
HANDS = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
ABOUT_TO_END = [{"type": "deal", "hands": HANDS},
                {"type": "play", "seat": 0, "cards": ["AC", "2C"]}, {"type": "play", "seat": 1, "cards": ["3D"]},
                {"type": "play", "seat": 2, "cards": ["4D"]}]
WINNING_PLAY = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_a_game_an_undo_reopens_comes_back_among_the_live_games(browser: Browser, live_server: LiveServer,
                                                                 locale: str) -> None:
    store, club = live_server.store, live_server.club
    game = store.games.create_game(club, new_game(NAMES, SMALL, 20), ABOUT_TO_END).game.id
    store.games.append(club, game, [WINNING_PLAY])  # the deal ends, and the game by shortfall
    screen = new_context(browser, locale=locale, phone=True).new_page()
    errors = PageErrors(screen)
    sign_in(screen, live_server)
    screen.goto(f"{live_server.url}/")
    expect(screen.locator(f'#games li.game.ended[data-game="{game}"]')).to_be_visible()
    expect(screen.locator(f'#live li[data-game="{game}"]')).to_have_count(0)
    screen.wait_for_timeout(600)  # the club's stream open, its past read
    navigations: list[str] = []
    screen.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == screen.main_frame else None)
    store.games.append(club, game, [{"type": "undo", "reason": "seat 1 had not played"}])  # on another phone
    expect(screen.locator(f'#live li[data-game="{game}"]')).to_be_visible(timeout=1500)
    expect(screen.locator(f'#games li.game.playing[data-game="{game}"]')).to_be_visible(timeout=1500)
    screen.locator("#live").scroll_into_view_if_needed()
    screenshot(screen, f"home-reopened-{locale[:2]}")
    store.games.append(club, game, [WINNING_PLAY])  # ended again: it leaves the live games
    expect(screen.locator(f'#live li[data-game="{game}"]')).to_have_count(0, timeout=1500)
    expect(screen.locator(f'#games li.game.ended[data-game="{game}"]')).to_be_visible(timeout=1500)
    assert navigations == []
    screen.context.close()
    assert errors.errors == []


def test_the_scorer_follows_across_streams_that_end(browser: Browser, live_server: LiveServer) -> None:
    """A stream ends after its lifetime: the page opens it again after the last id it got, and misses nothing."""
    config = live_server.server.app.config
    saved = config["STREAM_LIFETIME"], config["STREAM_HEARTBEAT"]
    config["STREAM_LIFETIME"], config["STREAM_HEARTBEAT"] = 0.4, 0.2
    try:
        game = dealt_game(live_server)
        second, errors = phone(browser, live_server, game, "en-GB")
        streams: list[str] = []
        second.on("request",
                  lambda r: streams.append(r.headers.get("last-event-id", "")) if "/stream" in r.url else None)
        moves = [(1, ["8D"], "Ben plays 8♦"), (2, ["9D"], "Chloé plays 9♦"), (0, ["10D"], "Ana plays 10♦")]
        for seat, cards, told in moves:
            second.wait_for_timeout(700)  # the stream open then has ended at least once
            live_server.store.games.append(live_server.club, game, [{"type": "play", "seat": seat, "cards": cards}])
            expect(second.locator("p.last")).to_contain_text(told, timeout=1000)
        assert len(streams) >= 3  # opened again after each end, resuming after the last id seen
        version = len(live_server.store.games.records(live_server.club, game))
        assert str(version - 1) in streams
        second.context.close()
        assert errors.errors == []
    finally:
        config["STREAM_LIFETIME"], config["STREAM_HEARTBEAT"] = saved


def test_a_share_link_follows_the_replay_live_signed_out(browser: Browser, live_server: LiveServer) -> None:
    """Someone watching from another room with a share link (no club session): the stream takes the share."""
    game = dealt_game(live_server)
    made = live_server.store.shares.create_share(live_server.club, game_id=game)
    viewer = new_context(browser, locale="fr-FR", phone=True).new_page()
    errors = PageErrors(viewer)
    viewer.goto(f"{live_server.url}/games/{game}/replay#share={made.secret}")
    expect(viewer.locator("#position")).to_contain_text("Étape 1")
    viewer.get_by_label("En direct").check()
    viewer.wait_for_timeout(300)
    live_server.store.games.append(live_server.club, game, [{"type": "play", "seat": 1, "cards": ["8D"]}])
    expect(viewer.locator("#step-text")).to_contain_text("Ben joue 8♦", timeout=1000)
    viewer.context.close()
    assert errors.errors == []
