"""Every page is served with its script, a policy that forbids inline scripts, and its language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from api.page_text import MESSAGES

from .conftest import Table

STATIC = Path(__file__).resolve().parents[2] / "api" / "static" / "pages"


def pages(table: Table) -> list[tuple[str, str]]:
    game = table.game
    return [
        ("/", "home.js"), ("/signin", "signin.js"), ("/games/new", "new_game.js"),
        (f"/games/{game}/record", "record.js"), (f"/games/{game}/replay", "replay.js"),
        (f"/games/{game}/audit", "audit.js"), (f"/games/{game}/sheet", "sheet.js"),
        (f"/clubs/{table.club}/scoreboard", "scoreboard.js"),
        (f"/clubs/{table.club}/evenings", "evenings.js"), (f"/clubs/{table.club}/evenings/E1", "evening.js"),
        (f"/clubs/{table.club}/evenings/E1/screen", "screen.js"),
        (f"/clubs/{table.club}/evenings/E1/results", "results.js"),
        ("/tables", "table_page.js"), ("/tables/ABC234", "table_page.js"),
    ]


def test_every_page_loads_its_module_under_a_strict_policy(table: Table) -> None:
    for path, script in pages(table):
        response = table.client.get(path)
        assert response.status_code == 200, path
        html = response.get_data(as_text=True)
        assert f'<script type="module" src="/static/pages/{script}">' in html
        policy = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        # The only <script> without a src is the page's messages, which is data, never run.
        inline = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>", html)
        assert inline == [' type="application/json" id="nj-messages"'], path
        assert (STATIC / script).is_file()


def test_pages_hold_no_club_data_and_need_no_token(table: Table) -> None:
    response = table.client.get(f"/games/{table.game}/replay")
    html = response.get_data(as_text=True)
    assert f'data-game="{table.game}"' in html
    assert not re.search(r"\bAna\b", html) and table.club not in html  # a player's name ("Analysis" is not one)


def test_the_language_follows_accept_language_then_the_cookie(table: Table) -> None:
    french = table.client.get("/", headers={"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.8"})
    assert french.headers["Content-Language"] == "fr"
    assert '<html lang="fr">' in french.get_data(as_text=True)
    assert "Parties en cours" in french.get_data(as_text=True)
    assert {"Accept-Language", "Cookie"} <= set(french.vary)

    english = table.client.get("/", headers={"Accept-Language": "de, en;q=0.5"})
    assert english.headers["Content-Language"] == "en"
    assert "Live games" in english.get_data(as_text=True)
    assert table.client.get("/").headers["Content-Language"] == "en"  # no preference: English

    table.client.set_cookie("lang", "fr")
    try:
        chosen = table.client.get("/", headers={"Accept-Language": "en"})
        assert chosen.headers["Content-Language"] == "fr"
    finally:
        table.client.delete_cookie("lang")


def test_the_page_messages_reach_the_script_translated(table: Table) -> None:
    html = table.client.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert '"settle.winner": "{name} n\\u0027a plus de cartes et gagne la donne {deal}."' in html  # tojson's quote


def _keys_used_by_scripts() -> set[str]:
    keys: set[str] = set()
    for script in STATIC.glob("*.js"):
        keys.update(re.findall(r"""\bt\(\s*"([^"]+)"\s*[,)]""", script.read_text(encoding="utf-8")))
    return keys


def test_every_message_a_script_asks_for_exists() -> None:
    used = _keys_used_by_scripts()
    assert len(used) > 100
    assert sorted(used - set(MESSAGES)) == []


@pytest.mark.parametrize("prefix, values", [
    ("status.", ["ready", "playing", "revealing", "ended"]),
    ("reason.", ["cannot_ante", "shortfall", "max_deals", "agreed"]),
    ("reason.transfer.", ["ante", "take", "payment", "grand_opera", "bete", "hoc", "adjust", "undo"]),
    ("transfer.", ["ante", "take", "payment", "grand_opera", "bete", "hoc", "adjust", "undo", "other"]),
    ("severity.", ["info", "warning", "error"]),
    ("profile.", ["classic", "cards", "skip", "hearts", "avantcoureur-1760"]),
    ("cell.", ["planned", "missing", "unconfirmed", "counted", "voided", "awarded"]),
    ("evening.status.", ["open", "closed"]),
    ("evening.rule.", ["match_points", "net_chips"]),
    ("mend.", ["adjustment", "void", "withdrawal", "award", "arrival", "departure"]),
    ("column.", ["rank", "name", "games", "wins", "deals_played", "deals_won", "net", "net_per_game",
                 "grand_operas", "honours_taken", "honour_chips", "betes_paid", "ruins", "rating"]),
])
def test_messages_looked_up_by_value_exist(prefix: str, values: list[str]) -> None:
    assert [value for value in values if prefix + value not in MESSAGES] == []


def test_unknown_pages_are_problems_not_pages(table: Table) -> None:
    response = table.client.get("/games/x/nowhere")
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
