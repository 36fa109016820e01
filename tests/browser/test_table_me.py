"""A player's own phone at a club evening: it joins table 1 by its code, its player taps their name ("This is me"),
and when the director draws the next round, the page opens with "Your next table: Table 2" and a big button to
that table's page, above the list of where the table's players sit. The phone follows its player from table to
table; left on an old table's page, it still says where the player sits; "Not you? Change" lets the name go."""

from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, expect

from .conftest import screenshot
from .server import LiveServer
from .test_evenings import SIX, call, evening_club, evening_path, open_evening, table_phone_by_code

__all__ = ["evening_club"]  # the fixture, shared with test_evenings

ANA, BEN, CHLOE, DENIS, ELISE, FANNY = SIX
SEATING = [[[ANA, BEN, CHLOE], [DENIS, ELISE, FANNY]],
           [[BEN, DENIS, ELISE], [ANA, CHLOE, FANNY]],
           [[BEN, CHLOE, ELISE], [ANA, DENIS, FANNY]]]


def test_a_players_own_phone_says_their_next_table_and_opens_it(browser: Browser, evening_club: LiveServer) -> None:
    made = open_evening(evening_club, name="Vendredi des mobiles", players=SIX, rounds=3, seating=SEATING)
    evening, first, second = made["id"], made["links"][0]["code"], made["links"][1]["code"]
    rounds = evening_path(evening_club, evening, "rounds")
    call(evening_club, "POST", rounds, {}, status=201)
    context, page, errors = table_phone_by_code(browser, evening_club, first)

    # Each name of the table's game is a button; the seat list still reads as the names alone.
    expect(page.locator("#current .seat-list li")).to_have_text([ANA, BEN, CHLOE])
    expect(page.locator("#me-hint")).to_have_text(
        "Your own phone? Tap your name: when the next round is drawn, this page shows your table.")
    ana = page.get_by_role("button", name=ANA, exact=True)
    box = ana.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44
    assert ana.get_attribute("aria-describedby") == "me-hint"
    screenshot(page, "table-me-claim-phone", full_page=False)
    ana.click()
    expect(page.locator("#current .seat-list li.me")).to_have_text(f"{ANA} (you)")
    expect(page.locator("#me-line")).to_contain_text(f"This phone follows {ANA}.")
    expect(page.locator("#me-change")).to_be_focused()
    expect(page.locator(".me-claim")).to_have_count(0)  # claimed once on this phone
    assert page.evaluate(f"localStorage.getItem('nj-ledger.me.{evening}')") == ANA
    expect(page.locator("#my-next")).to_have_count(0)  # seated here, nothing drawn yet: no panel

    # "Not you? Change": the names are buttons again; Ana taps hers again.
    page.locator("#me-change").click()
    expect(page.locator(".me-claim")).to_have_count(3)
    assert page.evaluate(f"localStorage.getItem('nj-ledger.me.{evening}')") is None
    page.get_by_role("button", name=ANA, exact=True).click()
    expect(page.locator("#current .seat-list li.me")).to_have_text(f"{ANA} (you)")

    # The director draws round 2 (games not ended: forced): the phone shows Ana's table first, big.
    call(evening_club, "POST", rounds, {"force": True}, status=201)
    panel = page.locator("#my-next")
    expect(panel.locator("h2")).to_have_text("Your next table: Table 2", timeout=15_000)
    expect(page.locator("#table-view > *").first).to_have_id("my-next")
    expect(page.locator("#moves li")).to_have_text([re.compile(rf"^{ANA} goes to table 2 · Code {second}$"),
                                                    f"{BEN} stays at table 1",
                                                    re.compile(rf"^{CHLOE} goes to table 2 · Code {second}$")])
    go = page.locator("#my-next-open")
    expect(go).to_have_text("Go to table 2")
    expect(go).to_have_attribute("href", f"/tables/{second}")
    button, moves = go.bounding_box(), page.locator("#moves").bounding_box()
    assert button is not None and moves is not None
    assert button["width"] >= 300 and button["height"] >= 44 and button["y"] + button["height"] <= moves["y"]
    title = panel.locator("h2").bounding_box()
    assert title is not None and title["y"] + title["height"] < 844  # on the phone's first screen
    expect(panel.locator("#me-line")).to_contain_text(f"This phone follows {ANA}.")
    expect(page.locator("#current .seat-list li")).to_have_text([BEN, DENIS, ELISE])  # no claim buttons: claimed
    found = [v for v in Axe().run(page).response["violations"] if v["impact"] in {"serious", "critical"}]
    assert found == [], found
    shot = screenshot(page, "table-me-next-table-phone", full_page=False)
    assert shot.exists()

    # One tap: table 2's page, joined by its code; Ana is seated there, the seat list says so, no panel.
    go.click()
    expect(page.locator("#title")).to_have_text("Table 2 · Vendredi des mobiles")
    assert page.evaluate(f"localStorage.getItem('nj-ledger.table.{second}')")
    expect(page.locator("#current .seat-list li")).to_have_text([f"{ANA} (you)", CHLOE, FANNY])
    expect(page.locator("#my-next")).to_have_count(0)

    # Round 3: Ana stays at table 2; the phone, back on table 1's page (whose moves no longer name her), reads
    # table 2 with the token it holds and says the same.
    call(evening_club, "POST", rounds, {"force": True}, status=201)
    expect(page.locator("#my-next h2")).to_have_text("You stay at this table", timeout=15_000)
    expect(page.locator("#my-next-open")).to_have_count(0)
    page.goto(f"{evening_club.url}/tables/{first}")
    expect(page.locator("#my-next h2")).to_have_text("Your next table: Table 2")
    expect(page.locator("#my-next-open")).to_have_attribute("href", f"/tables/{second}")
    assert errors.errors == []
    context.close()


def test_a_player_who_no_longer_plays_is_told_so(browser: Browser, evening_club: LiveServer) -> None:
    made = open_evening(evening_club, name="Départs", players=SIX, rounds=2, seating=SEATING[:2])
    evening, first = made["id"], made["links"][0]["code"]
    call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)
    context, page, errors = table_phone_by_code(browser, evening_club, first)
    page.get_by_role("button", name=CHLOE, exact=True).click()
    decision = {"type": "withdrawal", "player": CHLOE, "reason": "went home"}
    call(evening_club, "POST", evening_path(evening_club, evening, "decisions"), decision, status=201)
    tables = [[BEN, DENIS, ELISE], [ANA, FANNY, "Gaston"]]
    call(evening_club, "POST", evening_path(evening_club, evening, "decisions"),
         {"type": "arrival", "players": ["Gaston"], "reason": "came late"}, status=201)
    call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {"force": True, "tables": tables},
         status=201)
    expect(page.locator("#my-next h2")).to_have_text("You do not play in round 2", timeout=15_000)
    expect(page.locator("#moves li").nth(2)).to_have_text(f"{CHLOE} does not play this round")
    assert errors.errors == []
    context.close()
