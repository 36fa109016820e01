"""The printed result sheet and scoreboard: Chromium renders them as PDF pages, whose text holds the game's title,
its players and rules, each deal with its winner and payments, and the standings."""

from __future__ import annotations

import io
import json

import pytest
from playwright.sync_api import Browser, Page, Route, expect
from pypdf import PdfReader

from nj_ledger import new_game

from .conftest import ARTIFACTS, screenshot
from .server import LiveServer
from .viewports import LAPTOP, PHONE, opened

# The example game (dimanche-chez-jeanne): four deals, ended by Marcel's shortfall.
STANDINGS = [("1", "Sylvie", "162", "+42"), ("2", "Jeanne", "160", "+40"), ("3", "Thomas", "154", "+34"),
             ("4", "Marcel", "0", "−120")]
TEXT = {
    "en": {
        "title": "Result sheet — Le Nain Jaune du dimanche chez Jeanne",
        "deals": ["Deal 1: Thomas deals, Sylvie wins.", "Deal 2: Jeanne deals, Sylvie wins.",
                  "Deal 3: Marcel deals, Jeanne wins.", "Deal 4: Sylvie deals, Thomas wins."],
        "over": "The game is over: a player could not pay in full.",
        "short": "−17 (54 owed)", "bete": "bête 7♦ −20", "rules": "classic · 120 chips a seat to start",
    },
    "fr": {
        "title": "Feuille de résultats — Le Nain Jaune du dimanche chez Jeanne",
        "deals": ["Donne 1 : Thomas distribue, Sylvie gagne.", "Donne 2 : Jeanne distribue, Sylvie gagne.",
                  "Donne 3 : Marcel distribue, Jeanne gagne.", "Donne 4 : Sylvie distribue, Thomas gagne."],
        "over": "La partie est finie : un paiement n'a pas pu être fait en entier.",
        "short": "−17 (54 dus)", "bete": "bête 7♦ −20", "rules": "classique · 120 jetons par place au départ",
    },
}


def pdf_text(pdf: bytes) -> tuple[int, str]:
    reader = PdfReader(io.BytesIO(pdf))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return len(reader.pages), " ".join(text.split())  # the layout's line breaks do not matter


def open_sheet(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/games/{server.example_game}/sheet")
    expect(page.locator(".sheet-deal")).to_have_count(4)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_result_sheet_prints_its_deals_and_standings(browser: Browser, live_server: LiveServer,
                                                         language: str) -> None:
    said = TEXT[language]
    with opened(browser, live_server, language, PHONE) as page:
        open_sheet(page, live_server)
        expect(page.locator("#title")).to_have_text(said["title"])
        rows = page.locator("#standings tbody tr")
        expect(rows).to_have_count(4)
        assert [tuple(row.locator("td, th").all_inner_texts()) for row in rows.all()] == STANDINGS
        # the deal that ended the game: Marcel owed 54 and could pay 17; Thomas's chips after it
        deal4 = page.locator('.sheet-deal[data-deal="4"]')
        expect(deal4.locator('tr[data-seat="1"]')).to_contain_text(said["short"])
        expect(deal4.locator('tr[data-seat="3"] td[data-chips]')).to_have_text("154 (+115)")
        expect(page.locator('.sheet-deal[data-deal="1"] tr[data-seat="1"]')).to_contain_text(said["bete"])
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling
        screenshot(page, f"sheet-phone-{language}")

        pdf = page.pdf(format="A4", print_background=True)
    pages, text = pdf_text(pdf)
    assert 1 <= pages <= 3, pages
    for wanted in [said["title"], "Jeanne, Marcel, Sylvie, Thomas", "2026-01-18", said["rules"], said["over"],
                   *said["deals"], said["short"], said["bete"]]:
        assert wanted in text, wanted
    # the standings, in order, each with its chips
    places = [text.index(f"{rank} {name} {chips}") for rank, name, chips, _ in STANDINGS]
    assert places == sorted(places)
    # the buttons and the site's header stay on the screen
    assert "Download NJN" not in text and "Télécharger" not in text and "Nain Jaune 7♦" not in text
    if language == "en":
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "result-sheet.pdf").write_bytes(pdf)


def test_the_printed_sheet_looks_like_a_sheet(browser: Browser, live_server: LiveServer) -> None:
    """The print layout on the screen (print media), for a person to look at: no header, no buttons."""
    with opened(browser, live_server, "en", {"width": 794, "height": 1123}) as page:
        open_sheet(page, live_server)
        page.emulate_media(media="print")
        expect(page.locator(".site-header")).to_be_hidden()
        expect(page.locator("#print")).to_be_hidden()
        expect(page.locator(".sheet-deal").first).to_be_visible()
        screenshot(page, "sheet-print-en")


ROWS = [
    {"rank": 1, "name": "Sylvie", "games": 412, "wins": 301.5, "deals_played": 3120, "deals_won": 1204,
     "net": 18440, "net_per_game": 44.76, "grand_operas": 12, "honours_taken": 2210, "honour_chips": 33120,
     "betes_paid": 141, "ruins": 3, "rating": 27.41},
    {"rank": 2, "name": "Jeanne", "games": 398, "wins": 88.333, "deals_played": 2990, "deals_won": 980,
     "net": 2040, "net_per_game": 5.13, "grand_operas": 4, "honours_taken": 1980, "honour_chips": 29001,
     "betes_paid": 160, "ruins": 9, "rating": 25.02},
    {"rank": 3, "name": "Marcel", "games": 230, "wins": 0, "deals_played": 1702, "deals_won": 301,
     "net": -12400, "net_per_game": -53.91, "grand_operas": 0, "honours_taken": 640, "honour_chips": 7002,
     "betes_paid": 203, "ruins": 31, "rating": 19.87},
]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_scoreboard_prints_on_one_page(browser: Browser, live_server: LiveServer, language: str) -> None:
    def scoreboard(route: Route) -> None:
        body = {"club": live_server.club, "from": "2026-01-01", "to": "2026-12-31", "rows": ROWS}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    with opened(browser, live_server, language, LAPTOP) as page:
        page.route("**/api/v1/clubs/*/scoreboard*", scoreboard)
        page.goto(f"{live_server.url}/clubs/{live_server.club}/scoreboard")
        expect(page.locator("#scoreboard tbody tr")).to_have_count(3)
        pdf = page.pdf(format="A4", print_background=True)
    pages, text = pdf_text(pdf)
    assert pages == 1
    heading = {"en": "Scoreboard, 2026-01-01 – 2026-12-31", "fr": "Classement, 2026-01-01 – 2026-12-31"}[language]
    assert heading in text
    for name in ("Sylvie", "Jeanne", "Marcel"):
        assert name in text
    for header in {"en": ["Honours taken", "Honour chips", "Bêtes paid", "Rating"],
                   "fr": ["Honneurs pris", "Jetons d'honneurs", "Bêtes payées", "Cote"]}[language]:
        assert header in text, header
    assert ("301½" in text) and ("88⅓" in text)
    assert "Download CSV" not in text and "Télécharger" not in text  # the period form stays on the screen
    assert "Share" not in text and "Partager" not in text  # and so does the share panel


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_game_in_progress_prints_its_standings_so_far(browser: Browser, live_server: LiveServer,
                                                        language: str) -> None:
    created = live_server.store.games.create_game(live_server.club, new_game(["Ana", "Ben", "Chloé"], "classic", 60),
                                            [{"type": "deal", "dealer": 2}])
    said = {"en": ("The game is not over: standings after 0 deals.", "Deal 1: Chloé deals; in progress."),
            "fr": ("La partie n'est pas finie : classement après 0 donne.",  # French: 0 is singular
                   "Donne 1 : Chloé distribue ; en cours.")}[language]
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/games/{created.game.id}/sheet")
        expect(page.locator("#standings .verdict")).to_have_text(said[0])
        expect(page.locator('.sheet-deal[data-deal="1"] h3')).to_have_text(said[1])
        expect(page.locator("#title")).to_contain_text("Ana, Ben, Chloé")  # no title: the players name the game
        pdf = page.pdf(format="A4")
    pages, text = pdf_text(pdf)
    assert pages == 1 and said[0] in text and said[1] in text


def test_a_hand_told_by_count_is_on_the_sheet_as_the_table_said_it(browser: Browser, live_server: LiveServer) -> None:
    def told_by_count(route: Route) -> None:
        document = route.fetch().json()
        for record in document["events"]:
            if record["type"] == "reveal" and record["deal"] == 2 and record["data"]["seat"] == 0:
                record["data"] = {"seat": 0, "count": 10, "points": 62, "honours": ["KH"]}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(document))

    with opened(browser, live_server, "en", PHONE) as page:
        page.route("**/export?format=json", told_by_count)
        open_sheet(page, live_server)
        deal2 = page.locator('.sheet-deal[data-deal="2"]')
        expect(deal2.locator('tr[data-seat="0"] td.left')).to_have_text("10 cards, 62 points, K♥ held")
        expect(deal2.locator('tr[data-seat="3"] td.left')).to_have_text("A♣ A♠ 2♣ 3♠ 5♣ (12 points)")


def test_a_game_share_opens_the_sheet_and_prints_it_signed_out(browser: Browser, live_server: LiveServer) -> None:
    """From a shared replay, the result sheet opens with the share and prints; its links keep the share."""
    made = live_server.store.shares.create_share(live_server.club, live_server.example_game)
    with opened(browser, live_server, "fr", PHONE, signed_in=False) as page:
        page.goto(f"{live_server.url}/games/{live_server.example_game}/replay#share={made.secret}")
        sheet = page.locator("#sheet-link")
        expect(sheet).to_have_attribute("href", f"/games/{live_server.example_game}/sheet#share={made.secret}")
        sheet.click()
        expect(page.locator(".sheet-deal")).to_have_count(4)
        expect(page.locator("#meta")).not_to_contain_text("Club")  # a share names its game, not the club
        expect(page.locator("#replay-link")).to_have_attribute(
            "href", f"/games/{live_server.example_game}/replay#share={made.secret}")
        pages, text = pdf_text(page.pdf(format="A4"))
        assert 1 <= pages <= 3 and TEXT["fr"]["title"] in text and "1 Sylvie 162" in text


def test_a_settlement_undone_leaves_the_sheet_and_comes_back_when_the_deal_is_won_again(
        browser: Browser, live_server: LiveServer) -> None:
    """An undo after a deal's settlement withdraws it: the sheet shows the deal open again, then settled once."""
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
    hands = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
    going_out = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}
    created = live_server.store.games.create_game(live_server.club, new_game(["Ana", "Ben", "Chloé"], rules, 100), [
        {"type": "deal", "dealer": 2, "hands": hands},
        {"type": "play", "seat": 0, "cards": ["AC", "2C"], "announced": []},
        {"type": "play", "seat": 1, "cards": ["3D"], "announced": []},
        {"type": "play", "seat": 2, "cards": ["4D"], "announced": []},
        going_out, {"type": "undo", "reason": "wrong seat"},
    ])
    deal = '.sheet-deal[data-deal="1"]'
    with opened(browser, live_server, "en", PHONE) as page:
        page.goto(f"{live_server.url}/games/{created.game.id}/sheet")
        expect(page.locator(f"{deal} h3")).to_have_text("Deal 1: Chloé deals; in progress.")
        expect(page.locator(f"{deal} table")).to_have_count(0)
        live_server.store.games.append(live_server.club, created.game.id, [going_out])  # the redo
        page.reload()
        expect(page.locator(f"{deal} h3")).to_have_text("Deal 1: Chloé deals, Ana wins.")
        expect(page.locator(f'{deal} tr[data-seat="0"]')).to_contain_text("+46")
        expect(page.locator("#standings .verdict")).to_have_text("The game is not over: standings after 1 deal.")
