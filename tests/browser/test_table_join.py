"""A table of a club evening joined by its code alone, on a phone that holds nothing of the club: the code typed at
/tables opens the table (no sign-in), its scorer records a deal and ends the game, the scorer leads back to the
table where a second player confirms the result at the top of the page; once the director draws the next round,
the table says where its players sit now. A code that opens nothing shows the form again with the server's
sentence."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from .conftest import PageErrors, new_context, screenshot
from .server import LiveServer
from .test_evenings import SIX, call, evening_club, evening_path, open_evening, tap_a_deal_and_end

__all__ = ["evening_club"]  # the fixture, shared with test_evenings


def test_a_phone_with_nothing_joins_a_table_by_its_code_scores_ends_goes_back_and_a_second_player_confirms(
        browser: Browser, evening_club: LiveServer) -> None:
    seating = [[SIX[:3], SIX[3:]], [[SIX[0], SIX[3], SIX[4]], [SIX[1], SIX[2], SIX[5]]]]
    made = open_evening(evening_club, name="Vendredi des codes", players=SIX, rounds=2, starting_chips=200,
                        confirmation=True, seating=seating)
    evening, code = made["id"], made["links"][0]["code"]
    assert len(code) == 8
    call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)

    # A phone that holds nothing: the code typed in lower case with a dash, as read off the table.
    phone = new_context(browser, phone=True)
    page = phone.new_page()
    errors = PageErrors(page)
    joins: list[int] = []
    page.on("response", lambda r: joins.append(r.status) if r.url.endswith("/join") else None)
    page.goto(f"{evening_club.url}/tables")
    page.fill("#code", f"{code[:4].lower()}-{code[4:].lower()}")
    page.locator("#code-form button[type=submit]").click()
    expect(page.locator("#title")).to_have_text("Table 1 · Vendredi des codes")
    expect(page.locator("#current li")).to_have_text(SIX[:3])
    assert joins == [201] and "/signin" not in page.url and page.url.endswith(f"/tables/{code}#table={code}")
    kept = page.evaluate(f"localStorage.getItem('nj-ledger.table.{code}')")
    assert kept and len(kept) >= 40  # the table's token, kept as a QR code's is
    club_session = "localStorage.getItem('nj-ledger.session') ?? sessionStorage.getItem('nj-ledger.session')"
    assert page.evaluate(club_session) is None  # never the club's session
    expect(page.locator(".site-header .links")).to_be_hidden()

    # Its scorer: a whole deal tapped, then "End the game"; the scorer leads back to the table.
    page.locator("#score").click()
    page.wait_for_url(re.compile(rf"/games/[^/]+/record#table={code}$"))
    tap_a_deal_and_end(page)
    back = page.locator("#back-to-table")
    expect(back).to_be_visible()
    expect(back).to_have_text("Back to the table")
    expect(page.locator("#table-confirmation")).to_have_text(
        "The result counts once a second player of the table confirms it on the table's page.")
    box = back.bounding_box()
    assert box is not None and box["width"] >= 300 and box["height"] >= 44  # a big button on a phone
    screenshot(page, "table-after-end-game", full_page=False)

    # Back at the table: the confirmation panel comes first; Ben, not the scorer's holder, confirms.
    back.click()
    page.wait_for_url(re.compile(rf"/tables/{code}$"))
    expect(page.locator("#confirm-panel")).to_be_visible()
    first = page.locator("#table-view > section").first
    expect(first).to_have_id("confirm-panel")
    panel, current = page.locator("#confirm-panel").bounding_box(), page.locator("#current").bounding_box()
    assert panel is not None and current is not None and panel["y"] < current["y"]
    expect(page.locator("#current")).to_have_attribute("data-mark", "unconfirmed")
    page.get_by_label("Ben").check()
    screenshot(page, "table-join-confirm-phone", full_page=False)
    with page.expect_response(lambda r: r.url.endswith("/confirmations")) as answer:
        page.locator("#confirm").click()
    assert answer.value.status == 201
    expect(page.locator("#waiting-next")).to_have_text("Result confirmed by Ben: the table waits for the next round.")
    expect(page.locator("#current")).to_have_attribute("data-mark", "counted")
    expect(page.locator("#confirm-panel")).to_have_count(0)
    page.wait_for_timeout(1500)  # the reads that follow (the stream's decision, a read sent before) keep it so
    expect(page.locator("#confirm-panel")).to_have_count(0)
    expect(page.locator("#waiting-next")).to_be_visible()
    cell = call(evening_club, "GET", evening_path(evening_club, evening, "grid"))["tables"][0]["cells"][0]
    assert (cell["mark"], cell["confirmed_by"]) == ("counted", "Ben")
    screenshot(page, "table-join-confirmed-phone", full_page=False)

    # The director draws round 2 (table 2 ended by its own token): the table says where its players sit now.
    other = made["links"][1]
    other_game = call(evening_club, "GET", f"/tables/{other['code']}", token=other["secret"])["current"]["game"]
    ended = {"actions": [{"type": "end", "reason": "agreed at the table"}]}
    call(evening_club, "POST", f"/games/{other_game}/actions", ended, token=other["secret"], status=201)
    call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)
    expect(page.locator("#moves li")).to_have_text(
        ["Ana stays at table 1", re.compile(rf"^Ben goes to table 2 · Code {other['code']}$"),
         re.compile(rf"^Chloé goes to table 2 · Code {other['code']}$")], timeout=15_000)
    expect(page.locator("#current li")).to_have_text(seating[1][0])
    screenshot(page, "table-join-next-round-phone", full_page=False)
    assert errors.errors == []
    phone.close()


def test_a_code_that_opens_nothing_shows_the_form_again_with_the_servers_sentence(
        browser: Browser, evening_club: LiveServer) -> None:
    phone = new_context(browser, phone=True)
    page = phone.new_page()
    errors = PageErrors(page)
    page.goto(f"{evening_club.url}/tables/ZZZZ2222")
    expect(page.locator("#notice")).to_have_text(
        "There is no open table 'ZZZZ2222': check the code printed on the table.")
    expect(page.locator("#code-form")).to_be_visible()
    expect(page.locator("#code")).to_have_value("ZZZZ2222")
    assert "/signin" not in page.url
    screenshot(page, "table-join-unknown-phone", full_page=False)
    assert errors.errors == []
    phone.close()


def test_in_french_the_table_says_where_its_players_sit_in_the_round_just_drawn(
        browser: Browser, evening_club: LiveServer) -> None:
    seating = [[SIX[:3], SIX[3:]], [[SIX[0], SIX[3], SIX[4]], [SIX[1], SIX[2], SIX[5]]]]
    made = open_evening(evening_club, name="Samedi", players=SIX, rounds=2, seating=seating)
    rounds = evening_path(evening_club, made["id"], "rounds")
    call(evening_club, "POST", rounds, {}, status=201)
    call(evening_club, "POST", rounds, {"force": True}, status=201)
    code, other = made["links"][0]["code"], made["links"][1]["code"]
    phone = new_context(browser, locale="fr-FR", phone=True)
    page = phone.new_page()
    errors = PageErrors(page)
    page.goto(f"{evening_club.url}/tables/{code.lower()}")
    expect(page.locator("#moves h2")).to_have_text("La manche 2 est tirée\u00a0: où vont les joueurs de cette table")
    expect(page.locator("#moves li")).to_have_text(
        ["Ana reste à la table 1", f"Ben va à la table 2 · Code {other}", f"Chloé va à la table 2 · Code {other}"])
    screenshot(page, "table-join-moves-fr-phone", full_page=False)
    # a player's own phone follows its player: the code beside Ben's name opens table 2, joined by its code
    page.get_by_role("link", name=f"Code {other}").first.click()
    expect(page.locator("#title")).to_have_text("Table 2 · Samedi")
    assert page.evaluate(f"localStorage.getItem('nj-ledger.table.{other}')")
    assert errors.errors == []
    phone.close()
