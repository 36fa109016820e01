"""Receipts in the browser: kept from every game read or recorded, held against the log by the audit page.

A member who followed a game keeps its latest receipt; a log cut back afterwards
(its checkpoints deleted, its summary lowered: nothing in the database shows it)
fails that member's audit page, and the next read of the game warns at once. A
file of receipts (saved from the page, or a heads file) is checked the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page, expect
from reliability.helpers import Club
from reliability.tampering import Table

from nj_ledger.store.checkpoints import sign_heads
from nj_ledger.store.documents import import_document

from .conftest import SESSION_KEY, new_context, screenshot
from .server import EXAMPLES, LiveServer


def a_copy_of_the_example(server: LiveServer, page: Page) -> Table:
    """The example game in a club of its own (the other tests count the live server's club), signed in to."""
    club, token = server.store.create_club("Le Cercle des Reçus")
    document = json.loads((EXAMPLES / "dimanche-chez-jeanne.json").read_text(encoding="utf-8"))
    game = import_document(server.store, club.id, document).game.id
    page.goto(f"{server.url}/signin")
    page.evaluate("([key, value]) => localStorage.setItem(key, JSON.stringify(value))",
                  [SESSION_KEY, {"club": club.id, "token": token.secret, "name": club.name}])
    return Table(server.store, Club(club.id, token.secret), game, calls=None)  # type: ignore[arg-type]


def test_a_followed_game_cut_back_fails_the_members_audit(page: Page, live_server: LiveServer) -> None:
    table = a_copy_of_the_example(live_server, page)
    records = table.records()
    page.goto(f"{live_server.url}/games/{table.game}/replay")  # following the game keeps its receipt
    page.wait_for_function("() => localStorage.getItem('nj-ledger.receipts') !== null")
    held = page.evaluate("() => JSON.parse(localStorage.getItem('nj-ledger.receipts'))")
    assert [receipt["version"] for receipt in held[table.game]] == [len(records)]

    page.goto(f"{live_server.url}/games/{table.game}/audit")
    expect(page.locator("#verdict")).to_contain_text(f"Every check passes over the {len(records)} events")
    expect(page.locator("#checks li")).to_have_count(6)
    expect(page.locator("#checks li").last).to_contain_text("Receipts held by members (1 checked)")
    expect(page.locator("#receipt-held")).to_contain_text(f"version {len(records)}")

    cut = next(r["seq"] for r in records if r["type"] == "deal_ended")  # a deal end keeps its checkpoint
    table.cut(cut)
    page.goto(f"{live_server.url}/games/{table.game}/audit")
    expect(page.locator("#verdict")).to_contain_text(f"Some checks fail over the {cut} events")
    expect(page.locator("#findings")).to_contain_text("Log shorter than a receipt")
    expect(page.locator("#findings")).to_contain_text(f"events {cut + 1} to {len(records)} were removed")
    expect(page.locator("#notice")).to_contain_text(f"receipt for version {len(records)}")  # said at the read
    expect(page.locator("#notice")).to_contain_text(f"now shows version {cut}")

    with page.expect_download() as saving:
        page.locator("#receipts-save").click()
    saved = json.loads(Path(saving.value.path()).read_text())
    assert saved["format"] == "nj-ledger/receipts" and held[table.game][0] in saved["receipts"]
    screenshot(page, "audit-receipts")


def test_a_heads_file_checks_a_game_on_a_phone(live_server: LiveServer, browser) -> None:  # type: ignore[no-untyped-def]
    context = new_context(browser, locale="fr-FR", phone=True)
    page = context.new_page()
    try:
        table = a_copy_of_the_example(live_server, page)
        heads, _ = sign_heads(live_server.store, table.club.id)  # kept away from the server, as a club would
        page.goto(f"{live_server.url}/games/{table.game}/audit")
        expect(page.locator("#checks li")).to_have_count(5)  # no receipt held yet in this browser
        page.locator("#receipts-file").set_input_files(files=[{
            "name": "tetes.json", "mimeType": "application/json", "buffer": json.dumps(heads).encode()}])
        expect(page.locator("#receipt-source")).to_contain_text("tetes.json")
        expect(page.locator("#checks li")).to_have_count(6)
        expect(page.locator("#verdict")).to_contain_text("passent")
        page.locator("#receipts-file").set_input_files(files=[{
            "name": "vide.json", "mimeType": "application/json", "buffer": b'{"receipts": []}'}])
        expect(page.locator("#notice")).to_contain_text("reçu")
        page.locator("#receipts-file").set_input_files(files=[{
            "name": "tetes.json", "mimeType": "application/json", "buffer": json.dumps(heads).encode()}])
        page.locator("#receipts").scroll_into_view_if_needed()
        screenshot(page, "audit-receipts-phone-fr", full_page=False)
    finally:
        context.close()
