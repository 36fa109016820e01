"""The director's evening page on a phone, as a club runs it: what each table waits for, the standings with the
players who have no result yet unranked, a mend signed with the director's name, a forced round and the close asked
in the page (never a browser pop-up), the closed evening without a link that leads nowhere, and the published
results showing the mend, its reason and who signed it."""

from __future__ import annotations

import dataclasses
import re

import pytest
from playwright.sync_api import Browser, Dialog, Page, expect

from .conftest import PageErrors, new_context, screenshot, sign_in
from .server import LiveServer
from .test_evenings import SIX, call, cell, evening_path, open_evening, play
from .viewports import opened


@pytest.fixture(scope="module")
def director_club(live_server: LiveServer) -> LiveServer:
    club, token = live_server.store.clubs.create_club("Le Cercle du Directeur")
    return dataclasses.replace(live_server, club=club.id, club_name=club.name, token=token.secret)


def no_popups(page: Page) -> list[str]:
    """Every browser pop-up (alert, confirm, prompt) a script opens: there must be none."""
    opened: list[str] = []

    def refuse(dialog: Dialog) -> None:
        opened.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", refuse)
    return opened


def test_the_director_runs_an_evening_on_a_phone_without_a_browser_popup(
        browser: Browser, director_club: LiveServer) -> None:
    made = open_evening(director_club, name="Jeudi du directeur", players=SIX, rounds=2, confirmation=True,
                        seating=[[SIX[:3], SIX[3:]], [SIX[::2], SIX[1::2]]])
    evening = made["id"]
    first = call(director_club, "POST", evening_path(director_club, evening, "rounds"), {}, status=201)
    games = [table["game"] for table in first["rounds"][0]["tables"]]
    play(director_club, games[1], 3, seed=7)  # table 2 ends its game; table 1 has not dealt yet

    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    popups = no_popups(page)
    sign_in(page, director_club)
    page.goto(f"{director_club.url}/clubs/{director_club.club}/evenings/{evening}")

    # What each table waits for, in words: table 1 has not dealt, table 2 waits for one of its players.
    waiting = page.locator("#waiting")
    expect(waiting.locator("h3")).to_have_text("Round 1: what each table waits for")
    expect(waiting.locator('li[data-table="1"]')).to_contain_text("⚠ missing — Not dealt yet")
    expect(waiting.locator('li[data-table="2"]')).to_contain_text(
        "? unconfirmed — Ended: waiting for a player of the table (Denis, Élise, Fanny) to confirm the result")
    expect(cell(page, 1, 2).locator(".cell-wait")).to_contain_text("waiting for a player of the table")
    # Nobody has a result yet: nobody is ranked, nobody is "first with 0".
    expect(page.locator("#standings-title")).to_have_text("Standings so far")
    expect(page.locator("#standings-table tbody td.rank")).to_have_text(["–"] * 6)
    expect(page.locator("#standings")).not_to_contain_text("null")
    call(director_club, "POST", evening_path(director_club, evening, "confirmations"),
         {"game": games[1], "player": "Élise"}, status=201)
    expect(waiting.locator('li[data-table="2"]')).to_contain_text("Confirmed by Élise: it counts")
    ranks = page.locator("#standings-table tbody td.rank")
    expect(ranks.nth(0)).to_have_text("1")
    expect(ranks.nth(3)).to_have_text("–")
    expect(page.locator("#standings-table tbody tr").nth(3)).to_contain_text("(no result yet)")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "director-summary-phone", full_page=False)
    page.locator("#waiting").scroll_into_view_if_needed()
    screenshot(page, "director-waiting-phone", full_page=False)
    assert page.locator('#standings-table tbody tr[data-ranked="true"] td:nth-child(2)').all_inner_texts() != []

    # A mend, signed with the director's name (asked once, then kept on the phone), its amount with its unit.
    page.select_option("#mend-kind", "adjustment")
    page.select_option("#mend-player", "Ana")
    page.fill("#mend-amount", "-3")
    page.fill("#mend-reason", "slow play, warned twice")
    expect(page.locator("#signer-name")).to_have_attribute("required", "")
    page.fill("#signer-name", "Marie")
    page.locator("#mend-submit").click()
    mend = page.locator("#mends li.mend").first
    expect(mend).to_contain_text("Ana's score adjusted by −3 points")
    expect(mend).to_contain_text("reason: slow play, warned twice")
    expect(mend).to_contain_text("by Marie")
    expect(page.locator("#signer")).to_contain_text("Signed by Marie")
    expect(page.locator("#signer-name")).to_have_count(0)  # not asked again
    page.locator("#mend-section").scroll_into_view_if_needed()
    screenshot(page, "director-mend-signed-phone", full_page=False)
    # Another director takes over on this phone: the name changes, asked in the page, the cursor in its field.
    page.locator("#signer-change").click()
    renamed = page.locator("#signer-dialog")
    expect(renamed.locator("button")).to_have_text(["Keep “Marie”", "Sign with this name"])
    expect(renamed.locator(".ask-field")).to_be_focused()  # typing is what is asked here
    renamed.locator(".ask-field").fill("Paul")
    renamed.locator(".ask-field").press("Enter")
    expect(page.locator("#signer")).to_contain_text("Signed by Paul")
    decisions = call(director_club, "GET", evening_path(director_club, evening, "decisions") + "?mends=true")
    assert [d["by"].get("signed_by") for d in decisions["decisions"]] == ["Marie"]

    # A round forced while a game is being played: asked in the page, and the director waits.
    expect(page.locator("#start-round")).to_have_text("Start round 2 anyway")
    page.locator("#start-round").click()
    forced = page.locator("#force-dialog")
    expect(forced.locator(".ask-title")).to_have_text("Start round 2 before every game has ended?")
    expect(forced.locator("button")).to_have_text(["Wait for the games to end", "Start round 2 now"])
    expect(forced.locator("button.ask-no")).to_be_focused()
    page.keyboard.press("Escape")  # Escape answers no
    expect(forced).to_have_count(0)
    assert call(director_club, "GET", evening_path(director_club, evening))["current_round"] == 1

    # Closing with table 1's game unfinished: the page says it will never count and takes a note.
    page.locator("#close-evening").click()
    asked = page.locator("#close-dialog")
    expect(asked).to_be_visible()
    expect(asked.locator(".ask-title")).to_have_text("Close the evening?")
    expect(asked.locator(".ask-text")).to_contain_text("not ended: 1; waiting for a confirmation: 0")
    expect(asked.locator("button")).to_have_text(["Keep the evening open", "Close the evening"])
    expect(asked.locator("button.ask-no")).to_be_focused()  # a button, not the note: no phone keyboard
    assert page.evaluate("document.activeElement.tagName") == "BUTTON"
    title_id = asked.get_attribute("aria-labelledby")
    assert title_id and page.locator(f"#{title_id}").inner_text() == "Close the evening?"
    assert asked.get_attribute("aria-describedby")
    asked.locator(".ask-field").fill("the hall closes at eleven")
    screenshot(page, "director-close-dialog", full_page=False)
    with page.expect_response(lambda r: r.url.endswith("/close") and r.request.method == "POST") as closing:
        asked.locator("button.ask-yes").click()
    assert closing.value.status == 201
    assert closing.value.request.post_data_json == {"reason": "the hall closes at eleven", "signed_by": "Paul"}
    expect(page.locator("#summary")).to_contain_text("closed · 1 round played")

    # The closed evening: its final results and the way to them, no link or form that leads nowhere.
    expect(page.locator("#standings-title")).to_have_text("Final results")
    expect(page.locator("#final-results-link")).to_have_attribute(
        "href", f"/clubs/{director_club.club}/evenings/{evening}/results")
    for hidden in ("#start-round", "#close-evening", "#round-section", "#mend", "#links-section", "#new-links",
                   "#screen-section", "#waiting"):
        expect(page.locator(hidden)).to_be_hidden()
    expect(page.locator(".cell-confirm")).to_have_count(0)
    hrefs = [str(link.get_attribute("href")) for link in page.locator("main a:visible").all()]
    assert not [href for href in hrefs if "/record" in href or "/tables/" in href or href == "#"], hrefs
    expect(cell(page, 1, 2).locator("a")).to_have_text("Replay")  # a game played: its replay
    expect(cell(page, 1, 1).locator(".cell-wait")).to_have_text("Never ended: it does not count")
    expect(cell(page, 1, 1).locator("a")).to_have_count(0)  # nothing dealt: nothing to replay
    expect(page.locator("#mends li.mend").first).to_contain_text("by Marie")  # the decisions stay listed
    expect(page.locator("#mends li").first).to_contain_text("reason: the hall closes at eleven")
    expect(page.locator("#mends li").first).to_contain_text("by Paul")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "director-closed-evening")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    # The published results: the mend, its unit, its reason and who signed it; no rank for those with no result.
    page.locator("#publish").click()
    shared = page.locator("#published-url").input_value()
    assert re.search(r"/results#share=", shared)
    reader = new_context(browser, phone=True)
    results = reader.new_page()
    results_errors = PageErrors(results)
    results_popups = no_popups(results)
    results.goto(shared)
    expect(results.locator("#results-meta")).to_contain_text("final")
    listed = results.locator("#results-mends li")
    expect(listed).to_have_count(1)
    expect(listed.first).to_contain_text("Ana's score adjusted by −3 points")
    expect(listed.first).to_contain_text("reason: slow play, warned twice")
    expect(listed.first).to_contain_text("by Marie")
    rows = results.locator("#results-table tbody tr")
    expect(rows).to_have_count(6)
    expect(results.locator('#results-table tr[data-name="Ben"] td').first).to_have_text("–")
    expect(results.locator('#results-table tr[data-name="Ben"]')).to_contain_text("(no result yet)")
    expect(results.locator('#results-table tr[data-name="Ana"] td').nth(5)).to_have_text("−3 points")
    expect(rows.first.locator("td").first).to_have_text("1")
    results.locator("#mends-section").scroll_into_view_if_needed()
    screenshot(results, "results-after-mend")
    assert results_popups == [] and results_errors.errors == []
    reader.close()
    assert popups == [] and errors.errors == []
    context.close()


def test_the_close_is_asked_in_french_with_buttons_that_say_what_they_do(
        browser: Browser, director_club: LiveServer) -> None:
    evening = open_evening(director_club, name="Soirée en français", players=SIX, rounds=1,
                           seating=[[SIX[:3], SIX[3:]]])["id"]
    call(director_club, "POST", evening_path(director_club, evening, "rounds"), {}, status=201)
    with opened(browser, director_club, "fr") as page:
        popups = no_popups(page)
        page.goto(f"{director_club.url}/clubs/{director_club.club}/evenings/{evening}")
        expect(page.locator("#waiting h3")).to_have_text("Manche 1\u00a0: ce que chaque table attend")
        page.locator("#close-evening").click()
        asked = page.locator("#close-dialog")
        expect(asked.locator(".ask-title")).to_have_text("Clore la soirée\u00a0?")
        expect(asked.locator("button")).to_have_text(["Garder la soirée ouverte", "Clore la soirée"])
        expect(asked.locator(".ask-text")).to_contain_text("pas finies\u00a0: 2")
        expect(asked.locator("button.ask-no")).to_be_focused()
        screenshot(page, "director-close-dialog-fr", full_page=False)
        page.keyboard.press("Escape")
        expect(asked).to_have_count(0)
        assert call(director_club, "GET", evening_path(director_club, evening))["status"] == "open"
        assert popups == []
