"""Games in and out of the pages: a game's NJN record and JSON document downloaded from its replay, and a file
of either kind imported from the home page, its errors listed with their line numbers, in English and French."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from nj_ledger import new_game

from .conftest import screenshot
from .server import EXAMPLES, LiveServer
from .viewports import PHONE, opened

BAD_NJN = ('[Players "Ana; Ben; Chloé"]\n[StartingChips "60"]\n[Rules "classic"]\n[Table "chez Ana"\n\n'
           "Deal 1 dealer 2\n0: 5H 6H 7X\n")
ILLEGAL_NJN = '[Players "Ana; Ben; Chloé"]\n[StartingChips "60"]\n[Rules "classic"]\n\nDeal 1 dealer 2\n0: 5H\n1: 5H\n'
BAD_JSON = '{\n  "format": "nj-ledger/game",\n  "players": ["Ana", "Ben"],,\n  "rules": "classic"\n}\n'
SAID = {
    "en": {"download": ["Download NJN", "Download JSON"], "done": "is imported as a new game",
           "refused": "is not imported; nothing is stored",
           "bad": ["Line 4, column 8: ", "Line 7, column 10: "], "illegal": "Line 7, column 4: 5H",
           "json": "Line 3, column 29: This file is not valid JSON.", "action": "Action 1: "},
    "fr": {"download": ["Télécharger en NJN", "Télécharger en JSON"], "done": "est importé comme nouvelle partie",
           "refused": "n'est pas importé\u00a0; rien n'est enregistré",
           "bad": ["Ligne 4, colonne 8\u00a0: ", "Ligne 7, colonne 10\u00a0: "],
           "illegal": "Ligne 7, colonne 4\u00a0: La carte 5♥",  # a card as a French deck prints it
           "json": "Ligne 3, colonne 29\u00a0: Ce fichier n'est pas du JSON valable.", "action": "Action 1\u00a0: "},
}


def games(server: LiveServer) -> int:
    return len(server.store.games.list_games(server.club, limit=500))


def download(page: Page, format_: str) -> tuple[str, str]:
    with page.expect_download() as started:
        page.locator(f'button.download[data-format="{format_}"]').click()
    saved = started.value
    return saved.suggested_filename, Path(saved.path()).read_text(encoding="utf-8")


def upload(page: Page, name: str, text: str, mime: str = "text/plain") -> None:
    page.locator("#import-file").set_input_files({"name": name, "mimeType": mime, "buffer": text.encode("utf-8")})


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_game_downloads_as_njn_and_json_from_its_replay(browser: Browser, live_server: LiveServer,
                                                          language: str) -> None:
    game = live_server.example_game
    with opened(browser, live_server, language, PHONE, downloads=True) as page:
        page.goto(f"{live_server.url}/games/{game}/replay")
        buttons = page.locator("button.download")
        expect(buttons).to_have_text(["NJN", "JSON"])
        assert [b.get_attribute("aria-label") for b in buttons.all()] == SAID[language]["download"]
        screenshot(page, f"replay-downloads-{language}", full_page=False)
        name, njn = download(page, "njn")
        assert name == f"{game}.njn"
        assert njn.startswith('[Club "Les Honneurs du Jeudi"]\n[Title "Le Nain Jaune du dimanche chez Jeanne"]')
        assert '[Players "Jeanne; Marcel; Sylvie; Thomas"]' in njn and "Deal 4 dealer 2" in njn
        name, text = download(page, "json")
        assert name == f"{game}.json"
        document = json.loads(text)
        assert document["format"] == "nj-ledger/game"
        assert document["players"] == ["Jeanne", "Marcel", "Sylvie", "Thomas"]
        assert document["events"][-1]["type"] == "game_ended"


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_file_is_imported_from_the_home_page(browser: Browser, live_server: LiveServer, language: str) -> None:
    said = SAID[language]
    record = (EXAMPLES / "jour-de-l-an-au-chalet.njn").read_text(encoding="utf-8")
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/")
        expect(page.locator("#import-file")).to_be_attached()
        upload(page, "chalet.njn", record)
        result = page.locator("#import-result")
        expect(result).to_contain_text(f"chalet.njn {said['done']}")
        replay = result.locator("a[data-imported]")
        imported = replay.get_attribute("data-imported")
        assert imported and live_server.store.games.game(live_server.club, imported).status == "ended"
        screenshot(page, f"import-done-{language}")
        replay.click()
        expect(page.locator("#position")).to_contain_text("1")

        # a JSON document, as the replay downloads it, imports as well
        page.goto(f"{live_server.url}/")
        document = (EXAMPLES / "paques-chez-rene.json").read_text(encoding="utf-8")
        upload(page, "paques.json", document, "application/json")
        expect(result).to_contain_text(f"paques.json {said['done']}")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_refused_file_lists_its_errors_by_line(browser: Browser, live_server: LiveServer, language: str) -> None:
    said = SAID[language]
    stored = games(live_server)
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/")
        result = page.locator("#import-result")
        errors = page.locator(".import-errors li")

        upload(page, "bad.njn", BAD_NJN)  # an unclosed tag and a card that is no card: both told at once
        expect(result).to_contain_text(f"bad.njn {said['refused']}")
        expect(errors).to_have_count(2)
        assert [errors.nth(i).get_attribute("data-line") for i in range(2)] == ["4", "7"]
        for error, start in zip(errors.all(), said["bad"], strict=True):
            assert error.inner_text().startswith(start)
        screenshot(page, f"import-refused-{language}")

        upload(page, "illegal.njn", ILLEGAL_NJN)  # the engine's refusal, at its card
        expect(errors).to_have_count(1)
        expect(errors).to_contain_text(said["illegal"])

        upload(page, "broken.json", BAD_JSON, "application/json")  # not JSON at all: where it stops being JSON
        expect(errors).to_have_text([said["json"]])

        refused = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"], "rules": "classic",
                   "starting_chips": 60, "actions": [{"type": "play", "seat": 0, "cards": ["5H"]}]}
        upload(page, "early.json", json.dumps(refused), "application/json")  # a play before any deal
        expect(errors).to_have_count(1)
        assert errors.inner_text().startswith(said["action"])
    assert games(live_server) == stored  # nothing of the refused files was kept


ONE = {
    "en": {"one_shown": "1 game shown: all of them.", "two_shown": "2 games shown: all of them.", "deal": ", 1 deal."},
    "fr": {"one_shown": "1 partie affichée\u00a0: toutes.", "two_shown": "2 parties affichées\u00a0: toutes.",
           "deal": ", 1 donne."},
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_imported_game_joins_the_list_at_once(browser: Browser, live_server: LiveServer, language: str) -> None:
    """A game of one deal, downloaded and imported back: the list under the filters shows it without a reload,
    and one deal, one game are said in the singular."""
    title = f"Un seul coup ({language})"
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}  # four cards each: a short deal
    hands = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
    game = live_server.store.games.create_game(live_server.club, new_game(["Ana", "Ben", "Chloé"], rules, 100), [
        {"type": "deal", "dealer": 2, "hands": hands},
        {"type": "play", "seat": 0, "cards": ["AC", "2C"], "announced": []},
        {"type": "play", "seat": 1, "cards": ["3D"], "announced": []},
        {"type": "play", "seat": 2, "cards": ["4D"], "announced": []},
        {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []},  # Ana goes out: deal 1 is settled
    ], meta={"title": title}).game.id
    said = ONE[language]
    with opened(browser, live_server, language, PHONE, downloads=True) as page:
        page.goto(f"{live_server.url}/games/{game}/replay")
        name, njn = download(page, "njn")
        page.goto(f"{live_server.url}/?title={title}")
        rows = page.locator("#games li.game")
        expect(rows).to_have_count(1)
        expect(page.locator("#shown")).to_have_text(said["one_shown"])
        asked: list[Any] = []  # the live games asked again (a periodic read may answer before the import's)
        page.on("response", lambda r: asked.append(r) if "/games?limit=50" in r.url else None)
        upload(page, name, njn)
        result = page.locator("#import-result")
        expect(result).to_contain_text(f"{name} {SAID[language]['done']}")
        expect(result).to_contain_text(said["deal"])
        imported = result.locator("a[data-imported]").get_attribute("data-imported")
        expect(rows).to_have_count(2)  # no reload: the list is asked again
        assert any(any(g["id"] != game and g["title"] == title for g in r.json()["games"]) for r in asked)
        expect(page.locator(f'#games li.game[data-game="{imported}"]')).to_be_visible()
        expect(page.locator("#shown")).to_have_text(said["two_shown"])
        screenshot(page, f"import-joins-the-list-{language}", full_page=False)
