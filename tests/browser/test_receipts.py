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

from nj_ledger import new_game
from nj_ledger.store.checkpoints import sign_heads
from nj_ledger.store.documents import import_document
from nj_ledger.store.keys import configured_signer
from reliability.tampering import Table
from support.http import Club

from .conftest import SESSION_KEY, new_context, screenshot
from .server import EXAMPLES, LiveServer


def a_copy_of_the_example(server: LiveServer, page: Page) -> Table:
    """The example game in a club of its own (the other tests count the live server's club), signed in to."""
    club, token = server.store.clubs.create_club("Le Cercle des Reçus")
    document = json.loads((EXAMPLES / "dimanche-chez-jeanne.json").read_text(encoding="utf-8"))
    game = import_document(server.store.games, club.id, document).game.id
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
        heads, _ = sign_heads(live_server.store.keys, table.club.id)  # kept away from the server, as a club would
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


def test_an_older_receipt_is_forgotten_only_while_the_log_still_holds_it(page: Page,
                                                                         live_server: LiveServer) -> None:
    """A browser that kept 16 receipts of a game is given a newer one, validly signed (an intruder holds the
    key) over a log rewritten since: the receipt it would forget is checked against the log first, and stays."""
    table = a_copy_of_the_example(live_server, page)
    store = live_server.store
    created = store.games.create_game(table.club.id, new_game(["Ana", "Ben"], "classic", 40))
    table = Table(store, table.club, created.game.id, calls=None)  # type: ignore[arg-type]
    receipts = [created.receipt]
    for step in range(16):
        source, target = ("seat:0", "seat:1") if step % 2 == 0 else ("seat:1", "seat:0")
        appended = store.games.append(table.club.id, table.game,
                                [{"type": "adjust", "from": source, "to": target, "amount": 1, "reason": "x"}])
        receipts.append(appended.receipt)  # type: ignore[union-attr]
    page.evaluate("([key, value]) => localStorage.setItem(key, JSON.stringify(value))",
                  ["nj-ledger.receipts", {table.game: receipts[:16]}])
    table.rewrite_tail(receipts[1]["version"] - 2, lambda action: {**action, "reason": "changed"})
    signer = configured_signer()
    assert signer is not None
    table.sign_head(signer)
    page.goto(f"{live_server.url}/games/{table.game}/replay")
    expect(page.locator("#notice")).to_contain_text(f"no longer holds, at version {receipts[1]['version']}")
    held = page.evaluate("() => JSON.parse(localStorage.getItem('nj-ledger.receipts'))")[table.game]
    assert receipts[1] in held and len(held) == 17


def test_an_older_receipt_the_log_still_holds_is_forgotten(page: Page, live_server: LiveServer) -> None:
    table = a_copy_of_the_example(live_server, page)
    store = live_server.store
    created = store.games.create_game(table.club.id, new_game(["Ana", "Ben"], "classic", 40))
    receipts = [created.receipt]
    for step in range(16):
        source, target = ("seat:0", "seat:1") if step % 2 == 0 else ("seat:1", "seat:0")
        appended = store.games.append(table.club.id, created.game.id,
                                [{"type": "adjust", "from": source, "to": target, "amount": 1}])
        receipts.append(appended.receipt)  # type: ignore[union-attr]
    page.evaluate("([key, value]) => localStorage.setItem(key, JSON.stringify(value))",
                  ["nj-ledger.receipts", {created.game.id: receipts[:16]}])
    page.goto(f"{live_server.url}/games/{created.game.id}/replay")
    page.wait_for_function(  # the newest kept, and the one it made surplus checked and forgotten
        f"() => JSON.parse(localStorage.getItem('nj-ledger.receipts'))['{created.game.id}']"
        f".every((receipt) => receipt.version !== {receipts[1]['version']})")
    held = page.evaluate("() => JSON.parse(localStorage.getItem('nj-ledger.receipts'))")[created.game.id]
    assert held == [receipts[0], *receipts[2:]]
