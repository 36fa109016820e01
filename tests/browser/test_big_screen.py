"""The big screen of a club evening of 20 players at 5 tables, on a 1920×1080 television opened by the director's
read-only link (no token typed): the seating of round 1 — every table's number, players in seat order, code and
QR code — on one screen without scrolling, then, once games are under way, each table's progress beside the
leaderboard, players with no result yet unranked; in English and French; the director's link on a phone."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import PageErrors, new_context, screenshot, sign_in
from .server import LiveServer
from .test_evenings import call, evening_path, open_evening, play

TV = {"width": 1920, "height": 1080}
NAMES = ["Marie-Hélène Lefèvre", *(f"Joueuse {n:02d}" if n % 2 else f"Joueur {n:02d}" for n in range(2, 21))]


@pytest.fixture(scope="module")
def screen_club(live_server: LiveServer) -> LiveServer:
    """The live server seen by a club of its own."""
    club, token = live_server.store.clubs.create_club("Le Cercle du Grand Écran")
    return dataclasses.replace(live_server, club=club.id, club_name=club.name, token=token.secret)


def television(browser: Browser, locale: str = "en-GB") -> tuple[BrowserContext, Page, PageErrors]:
    """A television's browser: nothing signed in, nothing kept."""
    context = browser.new_context(viewport=TV, locale=locale, service_workers="block")  # type: ignore[arg-type]
    context.set_default_timeout(15_000)
    page = context.new_page()
    return context, page, PageErrors(page)


def inside_the_screen(page: Page, selector: str) -> None:
    """Every element of ``selector`` is wholly on the 1920×1080 screen, and the page does not scroll (measured at
    one moment: the screen redraws itself every few seconds)."""
    measured = page.evaluate("""(selector) => ({
        boxes: [...document.querySelectorAll(selector)].map((item) => item.getBoundingClientRect().toJSON()),
        scroll: [document.documentElement.scrollHeight, document.documentElement.scrollWidth]})""", selector)
    assert measured["boxes"], selector
    for box in measured["boxes"]:
        assert box["width"] > 0 and box["height"] > 0, box
        assert box["left"] >= 0 and box["top"] >= 0, box
        assert box["right"] <= TV["width"] and box["bottom"] <= TV["height"], box
    assert measured["scroll"][0] <= TV["height"] and measured["scroll"][1] <= TV["width"], measured["scroll"]


def shown_cards(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("""() => [...document.querySelectorAll('#seating .seat-card')].map((card) => ({
        table: Number(card.dataset.table), code: card.querySelector('.seat-card-code')?.textContent,
        players: [...card.querySelectorAll('.seat-card-players li')].map((li) => li.textContent),
        whole: [...card.querySelectorAll('.seat-card-players li, .seat-card-head span')].every((item) => {
            const box = item.getBoundingClientRect(), around = card.getBoundingClientRect();
            return item.scrollWidth <= item.clientWidth + 1 && box.left >= around.left && box.right <= around.right
                && box.top >= around.top && box.bottom <= around.bottom;
        }) && [...card.querySelectorAll('.seat-card-players')].every((list) =>
            list.scrollWidth <= list.clientWidth + 1 && list.scrollHeight <= list.clientHeight + 1),
        lines: [...card.querySelectorAll('.seat-card-players li')].every((li) =>
            li.getBoundingClientRect().height < 1.5 * parseFloat(getComputedStyle(li).lineHeight)),
        qr: card.querySelector('img.seat-card-qr')?.naturalWidth ?? 0,
        qrSize: card.querySelector('img.seat-card-qr')?.getBoundingClientRect().width ?? 0,
        nameSize: parseFloat(getComputedStyle(card.querySelector('.seat-card-players')).fontSize),
        codeSize: parseFloat(getComputedStyle(card.querySelector('.seat-card-code')).fontSize)}))""")


def test_the_big_screen_opened_by_its_link_seats_everyone_then_follows_the_round(
        browser: Browser, screen_club: LiveServer) -> None:
    made = open_evening(screen_club, name="Vingt au grand écran", players=NAMES, rounds=3, confirmation=True,
                        tables={"smallest": 3, "preferred": 4, "largest": 8})
    evening = made["id"]
    codes = {table["table"]: table["code"] for table in made["tables"]}
    assert len(codes) == 5

    # The director's page, on a phone: one tap makes the big screen's link, shown as a QR code and an address.
    director = new_context(browser, phone=True)
    desk = director.new_page()
    desk_errors = PageErrors(desk)
    sign_in(desk, screen_club)
    desk.goto(f"{screen_club.url}/clubs/{screen_club.club}/evenings/{evening}")
    expect(desk.locator("#screen-make")).to_have_text("Open the big screen")
    with desk.expect_response(lambda r: r.url.endswith("/screen/links")) as answer:
        desk.locator("#screen-make").click()
    assert answer.value.status == 201
    expect(desk.locator("#screen-qr")).to_be_visible()
    assert desk.locator("#screen-qr").evaluate("(img) => img.naturalWidth") > 100
    link = desk.locator("#screen-address").input_value()
    assert re.fullmatch(rf"http://127\.0\.0\.1:\d+/clubs/{screen_club.club}/evenings/{evening}/screen#share=[\w-]{{40,}}",
                        link), link
    expect(desk.locator("#screen-make")).to_have_count(0)  # made once: the link stays on the page
    desk.locator("#screen-section").scroll_into_view_if_needed()
    screenshot(desk, "big-screen-link-phone", full_page=False)
    desk.reload()
    expect(desk.locator("#screen-address")).to_have_value(link)  # this tab keeps it: no second link made
    shares = call(screen_club, "GET", f"/clubs/{screen_club.club}/shares?evening={evening}")["shares"]
    assert [(s["resource"], s["label"]) for s in shares] == [("evening", "big screen")]

    # The television opens the link, signed in to nothing: round 1's planned seating, before anything starts.
    tv_context, tv, tv_errors = television(browser)
    tv.goto(link)
    expect(tv.locator("#seating h2")).to_have_text("Round 1, as planned: find your table")
    expect(tv.locator("#screen-state")).to_have_text("The first round has not started yet")
    expect(tv.locator("#leaderboard")).to_have_count(0)  # no "1st with 0": the seating instead
    expect(tv.locator(".site-header .links")).to_be_hidden()

    # Round 1 starts: the screen follows the evening's stream to the round drawn, its games not begun.
    rounds = call(screen_club, "POST", evening_path(screen_club, evening, "rounds"), {}, status=201)
    tables = rounds["rounds"][0]["tables"]
    expect(tv.locator("#seating h2")).to_have_text("Round 1: find your table")
    expect(tv.locator("#seating .seat-card")).to_have_count(5)
    expect(tv.locator("#screen-state")).to_contain_text("Round 1 · match points")
    tv.wait_for_function("[...document.querySelectorAll('img.seat-card-qr')].every((img) => img.complete)")
    cards = shown_cards(tv)
    assert [(c["table"], c["code"], c["players"]) for c in cards] == [
        (t["table"], codes[t["table"]], t["players"]) for t in tables]
    assert all(c["qr"] > 0 for c in cards)  # each QR code drawn
    # No name cut; a name on one line, but for a long one, which may go on two (between its words).
    long = next(c for c in cards if NAMES[0] in c["players"])
    assert all(c["whole"] for c in cards) and all(c["lines"] for c in cards if c is not long), cards
    # Read across a room: names at least 30 px high (28 at the table of a long name), codes at least 40 px, QR
    # codes at least 200 px wide.
    assert min(c["nameSize"] for c in cards if c is not long) >= 30 and long["nameSize"] >= 28, cards
    assert min(c["codeSize"] for c in cards) >= 40, cards
    assert min(c["qrSize"] for c in cards) >= 200, cards
    inside_the_screen(tv, "#seating .seat-card, #seating .seat-card-players li, #seating .seat-card-qr, h1")
    screenshot(tv, "big-screen-between-rounds", full_page=False)
    table_pages = call(screen_club, "GET", evening_path(screen_club, evening, "screen"))["tables"]
    assert [page["page"] for page in table_pages] == [f"{screen_club.url}/tables/{codes[n]}" for n in range(1, 6)]

    # The same link on a French television: the seating in French.
    fr_context, fr, fr_errors = television(browser, locale="fr-FR")
    fr.goto(link)
    expect(fr.locator("#seating h2")).to_have_text("Manche 1\u00a0: trouvez votre table")
    expect(fr.locator("#seating .seating-hint")).to_contain_text("Lisez le QR code de votre table")
    expect(fr.locator("#seating .seat-card").first).to_contain_text("Table 1")
    inside_the_screen(fr, "#seating .seat-card")
    screenshot(fr, "big-screen-between-rounds-fr", full_page=False)

    # Games under way: table 1 has dealt, table 2 played to its end and confirmed; the screen (reading every
    # few seconds, and at once on the confirmation, a decision) shows each table's progress beside the leaderboard.
    games = [t["game"] for t in tables]
    call(screen_club, "POST", f"/games/{games[0]}/actions", {"actions": [{"type": "deal"}]}, status=201)
    play(screen_club, games[1], 4, seed=41)
    call(screen_club, "POST", evening_path(screen_club, evening, "confirmations"),
         {"game": games[1], "player": tables[1]["players"][0]}, status=201)
    expect(tv.locator("#progress")).to_be_visible()
    progress = tv.locator("#progress .progress-row")
    expect(progress).to_have_count(5)
    expect(progress.nth(0)).to_have_attribute("data-progress", "live")
    expect(progress.nth(0).locator(".progress-state")).to_have_text("● playing")
    expect(progress.nth(1)).to_have_attribute("data-progress", "confirmed")
    expect(progress.nth(1).locator(".progress-state")).to_have_text("✓ confirmed")
    grid = call(screen_club, "GET", evening_path(screen_club, evening, "grid"))
    deals = grid["tables"][1]["cells"][0]["deals_played"]
    expect(progress.nth(1).locator(".progress-deals")).to_have_text(f"deals: {deals}")
    for n in (2, 3, 4):
        expect(progress.nth(n).locator(".progress-state")).to_have_text("… not started")
    expect(tv.locator("#screen-state")).to_contain_text("results in from 1 of 5 tables")

    # The leaderboard: table 2's four players ranked, the sixteen others with no result yet, "–", after them.
    rows = tv.locator("#leaderboard .leaderboard tbody tr")
    expect(rows).to_have_count(20)
    ranked = call(screen_club, "GET", evening_path(screen_club, evening, "leaderboard"))["rows"]
    played = set(tables[1]["players"])
    shown = tv.evaluate("""() => [...document.querySelectorAll('#leaderboard tbody tr')].map((tr) => [
        tr.dataset.name, tr.querySelector('.rank').textContent, tr.className])""")
    assert {name for name, _, _ in shown[:4]} == played
    assert [rank for _, rank, _ in shown[:4]] == [str(r["rank"]) for r in ranked if r["name"] in played]
    assert all(rank == "–" and kind == "unranked" for _, rank, kind in shown[4:]), shown
    inside_the_screen(tv, "#leaderboard tr, #progress .progress-row, h1")
    screenshot(tv, "big-screen-during-round", full_page=False)

    # In French, by the page's switch: the progress and the state line.
    tv.locator('.lang-switch button[data-lang="fr"]').click()
    expect(tv.locator("html")).to_have_attribute("lang", "fr")
    expect(tv.locator("#progress h2")).to_have_text("Tables · manche 1")
    expect(tv.locator("#progress .progress-row").nth(1).locator(".progress-state")).to_have_text("✓ confirmée")
    expect(tv.locator("#screen-state")).to_contain_text("Manche 1 · points de match")
    inside_the_screen(tv, "#leaderboard tr, #progress .progress-row")
    screenshot(tv, "big-screen-during-round-fr", full_page=False)

    # Closed: the final leaderboard alone, every player on the screen.
    call(screen_club, "POST", evening_path(screen_club, evening, "close"), {"reason": "fin de soirée"}, status=201)
    expect(tv.locator("#screen")).to_have_attribute("data-phase", "closed")
    expect(tv.locator("#progress")).to_have_count(0)
    expect(tv.locator("#leaderboard .leaderboard tbody tr")).to_have_count(20)
    inside_the_screen(tv, "#leaderboard tr")

    assert tv_errors.errors == [] and fr_errors.errors == [] and desk_errors.errors == []
    for context in (tv_context, fr_context, director):
        context.close()


def test_the_big_screen_on_a_phone_lists_the_tables_one_under_another(browser: Browser,
                                                                      screen_club: LiveServer) -> None:
    made = open_evening(screen_club, name="Petit écran", players=NAMES[:12], rounds=2)
    link = call(screen_club, "POST", evening_path(screen_club, made["id"], "screen", "links"), {}, status=201)
    phone = new_context(browser, phone=True)
    page = phone.new_page()
    errors = PageErrors(page)
    page.goto(f"{screen_club.url}{link['url']}")
    expect(page.locator("#seating .seat-card")).to_have_count(3)
    widths = [box["width"] for box in (card.bounding_box() for card in page.locator("#seating .seat-card").all())
              if box is not None]
    assert len(widths) == 3 and all(width <= 390 for width in widths)
    screenshot(page, "big-screen-phone")
    assert errors.errors == []
    phone.close()
