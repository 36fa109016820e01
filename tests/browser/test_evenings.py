"""Club evenings in the pages: a table opened by its code on a phone scores its game and a second player confirms
it; the director's table × round grid marks what is missing or unconfirmed and records mends with their reasons;
the big screen follows the games live, frozen for the last rounds, then revealed, in English and French; an evening
of 20 players run from the pages, closed, its results published."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from nj_ledger.simulator import simulate

from .conftest import PageErrors, new_context, screenshot, sign_in
from .server import LiveServer
from .test_scorer import (
    ANA_GOES_OUT,
    ANA_OPENS,
    ANA_TAKES,
    BEN_CONTINUES,
    BEN_KEEPS,
    CHLOE_FORGETS,
    CHLOE_KEEPS,
    record,
    tap,
)


@pytest.fixture(scope="module")
def evening_club(live_server: LiveServer) -> LiveServer:
    """The live server seen by a club of its own: the evenings' games stay out of the other tests' club."""
    club, token = live_server.store.clubs.create_club("Le Cercle des Soirées")
    return dataclasses.replace(live_server, club=club.id, club_name=club.name, token=token.secret)


def call(server: LiveServer, method: str, path: str, body: Any = None, token: str | None = None,
         status: int = 200) -> Any:
    """The API as a club's other device calls it (the club's scorer token unless another is given)."""
    return server.calls().read(method, f"/api/v1{path}", body, token=token or server.token, status=status)


def open_evening(server: LiveServer, **body: Any) -> dict[str, Any]:
    made = call(server, "POST", f"/clubs/{server.club}/evenings",
                {"date": "2026-11-26", "starting_chips": 60, **body}, status=201)
    assert isinstance(made, dict)
    return made


def evening_path(server: LiveServer, evening: str, *rest: str) -> str:
    return "/".join([f"/clubs/{server.club}/evenings/{evening}", *rest])


def play(server: LiveServer, game: str, players: int, seed: int, token: str | None = None) -> None:
    """A simulated game (its hands dealt) played to its end on an evening's game, 60 chips, classic rules."""
    actions = simulate(seed=seed, profile="classic", players=players, starting_chips=60, deals=3, chatter=0).actions
    done = call(server, "POST", f"/games/{game}/actions", {"actions": actions}, token=token, status=201)
    assert done["state"]["status"] == "ended"


def cell(page: Page, round_: int, table: int) -> Any:
    return page.locator(f'#grid-table td[data-round="{round_}"][data-table="{table}"]')


def tap_a_deal_and_end(page: Page) -> None:
    """On the scorer of a table of three, Chloé dealing: a whole deal tapped card by card, then the game ended."""
    record(page, "#deal")
    tap(page, ANA_OPENS)
    record(page, "#play")
    tap(page, BEN_CONTINUES)
    record(page, "#play")
    record(page, "#pass")
    tap(page, ANA_TAKES)
    record(page, "#play")
    record(page, "#pass")
    tap(page, CHLOE_FORGETS)
    page.locator('input[data-announce="KH"]').uncheck()
    record(page, "#play")
    tap(page, ANA_GOES_OUT)
    record(page, "#play")
    page.locator("#by-cards").click()
    tap(page, BEN_KEEPS)
    record(page, "#reveal")
    tap(page, CHLOE_KEEPS)
    record(page, "#reveal")
    page.locator("#end").click()
    record(page, "#end")


SIX = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny"]


def test_a_table_opened_by_its_code_scores_its_game_and_a_second_player_confirms(
        browser: Browser, evening_club: LiveServer) -> None:
    made = open_evening(evening_club, name="Jeudi des tables", players=SIX, rounds=1, starting_chips=200,
                        confirmation=True, seating=[[SIX[:3], SIX[3:]]])
    evening, link = made["id"], made["links"][0]
    assert link["url"].startswith(f"{evening_club.url}/tables/{link['code']}#token=")
    call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)

    # The table's phone, signed in to nothing, opens the QR code's link: its token is kept, the address keeps the code.
    phone = new_context(browser, phone=True)
    page = phone.new_page()
    errors = PageErrors(page)
    page.goto(link["url"])
    expect(page.locator("#title")).to_have_text("Table 1 · Jeudi des tables")
    expect(page.locator("#current")).to_have_attribute("data-mark", "missing")
    expect(page.locator("#current .cell-mark")).to_have_text("⚠ missing")
    assert "token=" not in page.url and page.url.endswith(f"#table={link['code']}")
    expect(page.locator(".site-header .links")).to_be_hidden()  # a table's phone goes nowhere else
    screenshot(page, "evening-table-phone", full_page=False)

    # Its scorer: the table's token records the game's actions; a whole deal tapped, then the game ended.
    page.locator("#score").click()
    page.wait_for_url(re.compile(r"/games/[^/]+/record#table="))
    expect(page.locator("#table-link")).to_be_visible()
    expect(page.locator("#audit-link")).to_have_count(0)
    expect(page.locator("#dealer")).to_have_value("2")
    tap_a_deal_and_end(page)

    # Its replay, with the table's token still: the address keeps the table as the replay moves through the deal.
    page.locator("#replay-link").click()
    page.wait_for_url(re.compile(r"/replay#table=\w+&deal=1&seq=\d+$"))
    page.locator("#last").click()
    expect(page.locator("#position")).to_have_text(re.compile(r"^Step (\d+) of \1$"))
    assert f"#table={link['code']}&" in page.url
    page.go_back()

    # Back at the table: the result waits for a player's confirmation; Ben confirms on this phone.
    page.locator("#back-to-table").click()
    expect(page.locator("#current")).to_have_attribute("data-mark", "unconfirmed")
    expect(page.locator("#current .cell-mark")).to_have_text("? unconfirmed")
    expect(page.locator("#confirm")).to_be_disabled()
    page.get_by_label("Ben").check()
    screenshot(page, "evening-table-confirm-phone")
    with page.expect_response(lambda r: r.url.endswith("/confirmations")) as answer:
        page.locator("#confirm").click()
    assert answer.value.status == 201
    expect(page.locator("#confirmed-by")).to_contain_text("Result confirmed by Ben")
    expect(page.locator("#current")).to_have_attribute("data-mark", "counted")
    grid = call(evening_club, "GET", evening_path(evening_club, evening, "grid"))
    first = grid["tables"][0]["cells"][0]
    assert (first["mark"], first["confirmed_by"], first["status"]) == ("counted", "Ben", "ended")
    assert errors.errors == []
    phone.close()

    # A phone signed in to the club types table 2's code (in lower case, with a space) and opens it.
    member = new_context(browser, phone=True)
    typed = member.new_page()
    typed_errors = PageErrors(typed)
    sign_in(typed, evening_club)
    typed.goto(f"{evening_club.url}/tables")
    code = made["links"][1]["code"]
    typed.fill("#code", f"{code[:3].lower()} {code[3:].lower()}")
    typed.locator("#code-form button[type=submit]").click()
    expect(typed.locator("#title")).to_have_text("Table 2 · Jeudi des tables")
    expect(typed.locator("#current li")).to_have_text(SIX[3:])
    typed.locator("#score").click()
    typed.wait_for_url(re.compile(r"/games/[^/]+/record"))
    expect(typed.locator("#deal")).to_be_visible()
    assert typed_errors.errors == []
    member.close()


def test_the_directors_grid_marks_what_is_missing_or_unconfirmed_and_records_mends(
        browser: Browser, evening_club: LiveServer) -> None:
    players = [f"Joueur {n:02d}" for n in range(1, 13)]
    made = open_evening(evening_club, name="Grille du jeudi", players=players, rounds=3, confirmation=True,
                        ends_at="2099-12-31T22:30:00+00:00")
    evening = made["id"]
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, evening_club)
    page.goto(f"{evening_club.url}/clubs/{evening_club.club}/evenings/{evening}")
    expect(page.locator("#start-round")).to_have_text("Start round 1")
    expect(page.locator("#summary")).to_contain_text(re.compile(r"no round after \w+ 3[01], 2099"))
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "planned")
    page.locator("#start-round").click()
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "missing")

    # Table 1 plays and ends (unconfirmed), table 3 plays and is confirmed, table 2 has not ended: the page follows.
    grid = call(evening_club, "GET", evening_path(evening_club, evening, "grid"))
    games = {row["table"]: row["cells"][0] for row in grid["tables"]}
    play(evening_club, games[1]["game"], 4, seed=11)
    play(evening_club, games[3]["game"], 4, seed=12)
    call(evening_club, "POST", evening_path(evening_club, evening, "confirmations"),
         {"game": games[3]["game"], "player": games[3]["players"][1]}, status=201)
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "unconfirmed")
    expect(cell(page, 1, 1).locator(".cell-mark")).to_have_text("? unconfirmed")
    expect(cell(page, 1, 2).locator(".cell-mark")).to_have_text("⚠ missing")
    expect(cell(page, 1, 3).locator(".cell-mark")).to_have_text("✓ counted")
    expect(page.locator("#summary")).to_contain_text("⚠ missing: 1")
    expect(page.locator("#summary")).to_contain_text("? unconfirmed: 1")
    expect(page.locator("#start-round")).to_have_text("Start round 2 anyway")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the grid scrolls in its own box
    page.locator("#grid-section").scroll_into_view_if_needed()
    screenshot(page, "evening-director-grid-marks-phone", full_page=False)

    # A mend: table 2's game voided, with its reason; then an adjustment. Each is listed with its reason.
    page.select_option("#mend-kind", "void")
    page.select_option("#mend-game", games[2]["game"])
    page.fill("#mend-reason", "the table broke up")
    page.fill("#signer-name", "Marie")  # asked once on this device, then kept
    page.locator("#mend-submit").click()
    expect(cell(page, 1, 2)).to_have_attribute("data-mark", "voided")
    expect(page.locator("#mends li").first).to_contain_text("Game of round 1, table 2 voided")
    expect(page.locator("#mends li").first).to_contain_text("reason: the table broke up")
    expect(page.locator("#mends li").first).to_contain_text("by Marie")
    expect(page.locator("#signer")).to_contain_text("Signed by Marie")
    page.select_option("#mend-kind", "adjustment")
    page.select_option("#mend-player", games[1]["players"][0])
    page.fill("#mend-amount", "-10")
    page.locator("#mend-submit").click()
    expect(page.locator("#mend-reason")).to_have_attribute("required", "")  # a mend is not sent without a reason
    expect(page.locator("#mends li")).to_have_count(1)
    page.fill("#mend-reason", "slow play, warned twice")
    page.locator("#mend-submit").click()
    expect(page.locator("#mends li")).to_have_count(2)
    expect(page.locator("#mends li").first).to_contain_text(f"{games[1]['players'][0]}'s score adjusted by −10 points")
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "unconfirmed")  # a mend confirms nothing
    # A score awarded to a player of the voided table, and a late arrival: the rounds not played are planned again.
    page.select_option("#mend-kind", "award")
    page.select_option("#mend-player", games[2]["players"][0])
    page.select_option("#mend-round", "1")
    page.fill("#mend-score", "50")
    page.fill("#mend-reason", "the game could not be finished")
    page.locator("#mend-submit").click()
    expect(page.locator("#mends li").first).to_contain_text(f"{games[2]['players'][0]} awarded 50 points for round 1")
    page.select_option("#mend-kind", "arrival")
    page.fill("#mend-names", "Joueur 13")
    page.fill("#mend-reason", "came after dinner")
    page.locator("#mend-submit").click()
    expect(page.locator("#mends li").first).to_contain_text("Arrived: Joueur 13.")
    expect(page.locator("#mends li").first).to_contain_text("reason: came after dinner")
    expect(page.locator("#grid-table tbody")).to_contain_text("Joueur 13")
    expect(page.locator("#summary")).to_contain_text("13 players")
    audit = call(evening_club, "GET", evening_path(evening_club, evening, "decisions") + "?mends=true")
    assert [(d["type"], d["data"]["reason"]) for d in audit["decisions"]] == [
        ("game_voided", "the table broke up"), ("score_adjusted", "slow play, warned twice"),
        ("score_awarded", "the game could not be finished")]
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "evening-director-grid-phone", full_page=False)
    screenshot(page, "evening-director-page-phone")
    assert errors.errors == []
    context.close()


def test_a_closed_evenings_grid_shows_only_the_rounds_played(browser: Browser, evening_club: LiveServer) -> None:
    made = open_evening(evening_club, name="Soirée écourtée", players=SIX, rounds=3)
    evening = made["id"]
    call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, evening_club)
    page.goto(f"{evening_club.url}/clubs/{evening_club.club}/evenings/{evening}")
    heads = page.locator("#grid-table thead th[scope=col]")
    expect(heads).to_have_text(["Round 1", "Round 2not started yet", "Round 3not started yet"])
    expect(cell(page, 3, 1)).to_have_attribute("data-mark", "planned")
    screenshot(page, "evening-grid-rounds-to-come")

    call(evening_club, "POST", evening_path(evening_club, evening, "close"), {"reason": "Early night"}, status=201)
    page.reload()
    expect(page.locator("#summary")).to_contain_text("closed · 1 round played")
    expect(heads).to_have_text(["Round 1"])  # the two rounds never played are gone
    expect(page.locator("#grid-table tbody tr")).to_have_count(2)
    expect(page.locator('#grid-table td[data-mark="planned"]')).to_have_count(0)
    screenshot(page, "evening-grid-closed")
    assert errors.errors == []
    context.close()


def test_a_tables_phone_shows_the_next_round_as_soon_as_it_starts(browser: Browser, evening_club: LiveServer) -> None:
    made = open_evening(evening_club, name="Tables en direct", players=SIX, rounds=2,
                        seating=[[SIX[:3], SIX[3:]], [SIX[::2], SIX[1::2]]])
    evening, link = made["id"], made["links"][0]
    call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)
    context, phone, errors = table_phone(browser, link["url"])
    expect(phone.locator("#current h2")).to_have_text("This round's game (round 1)")
    call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {"force": True}, status=201)
    # the table's stream, not its reading every 8 seconds, brings the round: well within those 8 seconds
    expect(phone.locator("#current h2")).to_have_text("This round's game (round 2)", timeout=3000)
    expect(phone.locator("#current .seat-list li")).to_have_text(["Ana", "Chloé", "Élise"])
    assert errors.errors == []
    context.close()


def adjust(page: Page, player: str, amount: int, reason: str) -> None:
    """The director's decisions form: a player's score adjusted, with its reason."""
    page.select_option("#mend-kind", "adjustment")
    page.select_option("#mend-player", player)
    page.fill("#mend-amount", str(amount))
    page.fill("#mend-reason", reason)
    if page.locator("#signer-name").count():  # the director's name, asked once on this device
        page.fill("#signer-name", "Paul")
    page.locator("#mend-submit").click()


def test_a_directors_decision_goes_through_a_tables_confirmation_but_not_another_decision(
        browser: Browser, evening_club: LiveServer) -> None:
    """The director's page drew the evening at one version; a table's phone confirms a result meanwhile: the
    director's mend is sent again on the new version and recorded. Another director's decision meanwhile turns it
    down (409), and the page shows the evening as it now stands."""
    made = open_evening(evening_club, name="Soirée des deux directeurs", players=SIX, rounds=1, confirmation=True,
                        seating=[[SIX[:3], SIX[3:]]])
    evening = made["id"]
    started = call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)
    game = started["rounds"][0]["tables"][0]["game"]
    play(evening_club, game, 3, seed=5)
    context = new_context(browser)
    page = context.new_page()
    errors = PageErrors(page)
    page.route("**/stream*", lambda route: route.abort())  # the page hears nothing: it keeps the version it drew
    sign_in(page, evening_club)
    page.goto(f"{evening_club.url}/clubs/{evening_club.club}/evenings/{evening}")
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "unconfirmed")
    call(evening_club, "POST", evening_path(evening_club, evening, "confirmations"), {"game": game, "player": "Ben"},
         status=201)
    adjust(page, "Ana", 3, "a miscount at the table")
    expect(page.locator("#mends li").first).to_contain_text("Ana's score adjusted by +3 points")
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "counted")

    call(evening_club, "POST", evening_path(evening_club, evening, "decisions"),
         {"type": "adjustment", "player": "Denis", "amount": -1, "reason": "the other director saw it"}, status=201)
    with page.expect_response(lambda r: r.url.endswith("/decisions") and r.request.method == "POST") as refused:
        adjust(page, "Chloé", 2, "a second miscount")
    assert refused.value.status == 409
    expect(page.locator("#mends li").first).to_contain_text("Denis's score adjusted by −1 point")
    expect(page.locator("#mends li")).to_have_count(2)
    expect(page.locator("#mend-reason")).to_have_value("a second miscount")  # kept, to be sent again once checked
    decisions = call(evening_club, "GET", evening_path(evening_club, evening, "decisions") + "?mends=true")
    assert [d["data"]["player"] for d in decisions["decisions"]] == ["Ana", "Denis"]
    assert errors.errors == []
    context.close()


def shown(score: float) -> str:
    """A score as the pages show it in English: one decimal at most, thousands grouped."""
    return f"{score:,.1f}".rstrip("0").rstrip(".")


def screen_rows(page: Page) -> list[tuple[str, str]]:
    return [(row.get_attribute("data-name") or "", row.locator(".score").inner_text())
            for row in page.locator("#leaderboard .leaderboard tbody tr").all()]


def test_the_big_screen_follows_live_is_frozen_then_revealed(browser: Browser, evening_club: LiveServer) -> None:
    players = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo"]
    made = open_evening(evening_club, name="Soirée du grand écran", players=players, rounds=2,
                        seating=[[players[:4], players[4:]], [players[::2], players[1::2]]])
    evening = made["id"]
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-GB", service_workers="block")
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, evening_club)
    page.goto(f"{evening_club.url}/clubs/{evening_club.club}/evenings/{evening}/screen")
    expect(page.locator("#screen-state")).to_have_text("The first round has not started yet")
    started = call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)
    first = [t["game"] for t in started["rounds"][0]["tables"]]
    expect(page.locator("#screen-state")).to_contain_text("Round 1")

    # A game ends: the screen redraws from the club's stream, no reload.
    expect(page.locator("#screen-state")).to_contain_text("results in from 0 of 2 tables")
    play(evening_club, first[0], 4, seed=21)
    expect(page.locator("#leaderboard .leaderboard tbody tr").first.locator(".score")).to_have_text("100")
    expect(page.locator("#screen-state")).to_contain_text("results in from 1 of 2 tables")
    play(evening_club, first[1], 4, seed=22)
    expect(page.locator('#leaderboard .leaderboard tbody tr .score:text-is("100")')).to_have_count(2)
    after_one = call(evening_club, "GET", evening_path(evening_club, evening, "ranking"))

    # Frozen after round 1: round 2 is played, the screen still shows round 1 and says so.
    call(evening_club, "POST", evening_path(evening_club, evening, "decisions"),
         {"type": "freeze", "through_round": 1}, status=201)
    expect(page.locator("#screen")).to_have_attribute("data-frozen", "true")
    expect(page.locator("#screen-state")).to_contain_text("Frozen after round 1")
    second = call(evening_club, "POST", evening_path(evening_club, evening, "rounds"), {}, status=201)
    for seed, table in enumerate(second["rounds"][1]["tables"]):
        play(evening_club, table["game"], 4, seed=30 + seed)
    expect(page.locator("#screen")).to_have_attribute("data-version", re.compile(r"\d+"))
    page.wait_for_timeout(800)
    frozen_rows = screen_rows(page)
    assert sorted(frozen_rows) == sorted((r["name"], shown(r["score"])) for r in after_one["rows"])
    screenshot(page, "evening-big-screen-frozen", full_page=False)

    # Revealed: every round counts.
    call(evening_club, "POST", evening_path(evening_club, evening, "decisions"), {"type": "reveal"}, status=201)
    expect(page.locator("#screen")).to_have_attribute("data-frozen", "false")
    expect(page.locator("#screen-state")).to_contain_text("Round 2")
    final = call(evening_club, "GET", evening_path(evening_club, evening, "ranking"))
    leader = page.locator("#leaderboard .leaderboard tbody tr").first.locator(".score")
    expect(leader).to_have_text(shown(final["rows"][0]["score"]))
    assert sorted(screen_rows(page)) == sorted((r["name"], shown(r["score"])) for r in final["rows"])
    screenshot(page, "evening-big-screen", full_page=False)

    # In French: the switch on the page.
    page.locator('.lang-switch button[data-lang="fr"]').click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#screen-state")).to_contain_text("Manche 2 · points de match")
    expect(page.locator("#leaderboard .leaderboard thead").first).to_contain_text("Rang")
    call(evening_club, "POST", evening_path(evening_club, evening, "decisions"),
         {"type": "freeze", "through_round": 1}, status=201)
    expect(page.locator("#screen-state")).to_contain_text("Figé après la manche 1")
    screenshot(page, "evening-big-screen-fr-frozen", full_page=False)
    assert errors.errors == []
    context.close()


def table_phone(browser: Browser, url: str) -> tuple[BrowserContext, Page, PageErrors]:
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    page.goto(url)
    return context, page, errors


def table_phone_by_code(browser: Browser, server: LiveServer, code: str) -> tuple[BrowserContext, Page, PageErrors]:
    """A phone that holds nothing of the club types a table's code at /tables."""
    context = new_context(browser, phone=True)
    page = context.new_page()
    errors = PageErrors(page)
    page.goto(f"{server.url}/tables")
    page.fill("#code", code)
    page.locator("#code-form button[type=submit]").click()
    page.wait_for_url(re.compile(rf"/tables/{code}#table={code}$"))
    assert page.evaluate("localStorage.getItem('nj-ledger.session') ?? sessionStorage.getItem('nj-ledger.session')") \
        is None  # the table's token only
    return context, page, errors


def score_short_game(phone: Page, confirm_with: int | None = 1) -> None:
    """A table's phone opens its game of the round, ends it with no deal played (the fewest taps: "End the game",
    then its confirmation), goes back to the table and, unless told otherwise, a second player confirms it."""
    phone.reload()
    expect(phone.locator("#current")).to_have_attribute("data-mark", "missing")
    phone.locator("#score").click()
    phone.wait_for_url(re.compile(r"/games/[^/]+/record#table="))
    phone.locator("#end").click()
    record(phone, "#end")
    phone.locator("#back-to-table").click()
    expect(phone.locator("#current")).to_have_attribute("data-mark", "unconfirmed")
    if confirm_with is not None:
        phone.locator("#confirm-panel input[type=radio]").nth(confirm_with).check()
        phone.locator("#confirm").click()
        expect(phone.locator("#current")).to_have_attribute("data-mark", "counted")


def score_a_deal_by_taps(phone: Page) -> None:
    """A table of three scores a whole deal on its phone, card by card (the first test's deal), then ends the game."""
    phone.reload()
    phone.locator("#score").click()
    phone.wait_for_url(re.compile(r"/games/[^/]+/record#table="))
    phone.select_option("#dealer", "2")
    tap_a_deal_and_end(phone)
    phone.locator("#back-to-table").click()
    expect(phone.locator("#current")).to_have_attribute("data-mark", "unconfirmed")


def seats(page: Page, table: int) -> list[str]:
    return page.locator(f'#seat-box .seat-table[data-table="{table}"] .seat-player').all_inner_texts()


def test_an_evening_of_twenty_players_run_from_the_pages_alone(browser: Browser, evening_club: LiveServer) -> None:
    """The director, at a desk, opens the evening from the form with 20 players, opens the big screen by its link
    (a television signed in to nothing, 1920×1080), sets the first round's tables by hand, starts it; the television
    seats everyone with each table's code, and six tables' phones, holding nothing of the club, type the code read
    off the screen; one table of three scores a whole deal by taps, the others a short game, each ended at the
    table and confirmed on its phone but one, which the director confirms from the grid; the television shows each
    table's progress; a correction with its reason, a departure ticked and a late arrival picked among the club's
    players; the big screen frozen after round 1 and revealed; an extra round with the tables the page proposes;
    the close, which warns of a game not counted, voided with its reason; the results published, printed and
    downloaded. No API call, and no token typed but the director's sign-in."""
    evening_club.store.clubs.add_player(evening_club.club, "Zoé Vingt")  # the club knows her; she comes late
    names = [f"Vingt {n:02d}" for n in range(1, 21)]
    director = new_context(browser)
    page = director.new_page()
    errors = PageErrors(page)
    sign_in(page, evening_club)
    page.goto(f"{evening_club.url}/")
    page.locator("#evenings-link").click()
    page.wait_for_url(re.compile(r"/evenings$"))
    page.fill("#name", "Vingt au club")
    page.fill("#new-players", "\n".join(names))
    page.select_option("#preferred", "3")
    page.fill("#rounds", "2")
    page.fill("#chips", "200")
    page.check("#confirmation")
    expect(page.locator("#present-count")).to_have_text("20 present")
    expect(page.locator("#split")).to_have_text("6 tables: 4 + 4 + 3 + 3 + 3 + 3")
    screenshot(page, "evening-twenty-new")
    page.locator("#new-evening button[type=submit]").click()
    page.wait_for_url(re.compile(r"/evenings/[^/]+$"))
    expect(page.locator("#links .table-link")).to_have_count(6)  # the scorer links, shown once
    expect(page.locator("#summary")).to_contain_text("no pair of players meets twice (no seating can do better)")

    # Round 1's tables set by hand: two players of tables 1 and 2 swap seats.
    page.locator("#seat-summary").click()
    expect(page.locator("#seat-summary")).to_have_text("Set round 1's tables by hand")
    first, second = seats(page, 1), seats(page, 2)
    page.locator('#seat-box .seat-table[data-table="1"] .seat-player').first.click()
    page.locator('#seat-box .seat-table[data-table="2"] .seat-player').first.click()
    assert seats(page, 1) == [second[0], *first[1:]] and seats(page, 2) == [first[0], *second[1:]]
    screenshot(page, "evening-twenty-seats", full_page=False)
    page.locator("#start-seated").click()
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "missing")
    expect(cell(page, 1, 1).locator(".cell-players")).to_have_text(", ".join([second[0], *first[1:]]))

    # The big screen: one tap on the director's page makes its link; the television opens it, signed in to nothing,
    # and seats the room: six tables, each with its players in seat order and its code.
    page.locator("#screen-make").click()
    screen_link = page.locator("#screen-address").input_value()
    assert "/screen#share=" in screen_link
    projector_context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-GB",
                                            service_workers="block")
    projector_context.set_default_timeout(10_000)
    projector = projector_context.new_page()
    projector_errors = PageErrors(projector)
    projector.goto(screen_link)
    expect(projector.locator("#seating h2")).to_have_text("Round 1: find your table")
    expect(projector.locator("#seating .seat-card")).to_have_count(6)
    expect(projector.locator('#seating .seat-card[data-table="1"] .seat-card-players li')).to_have_text(
        [second[0], *first[1:]])
    codes = [projector.locator(f'#seating .seat-card[data-table="{n}"] .seat-card-code').inner_text()
             for n in range(1, 7)]
    screenshot(projector, "evening-twenty-screen-seating", full_page=False)

    # Each table's phone types its code, read off the screen: the table opens, never the club.
    phones = [table_phone_by_code(browser, evening_club, code) for code in codes]
    for number, (_, phone, _) in enumerate(phones, start=1):
        expect(phone.locator("#title")).to_have_text(f"Table {number} · Vingt au club")
    score_a_deal_by_taps(phones[2][1])  # table 3, a table of three: a whole deal tapped
    phones[2][1].locator("#confirm-panel input[type=radio]").nth(1).check()
    phones[2][1].locator("#confirm").click()
    expect(phones[2][1].locator("#current")).to_have_attribute("data-mark", "counted")
    screenshot(phones[2][1], "evening-twenty-table-phone")
    for number, (_, phone, _) in enumerate(phones, start=1):
        if number != 3:
            score_short_game(phone, confirm_with=None if number == 1 else 1)

    # The director confirms table 1's result from the grid, for a player of the table.
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "unconfirmed")
    confirm = cell(page, 1, 1).locator(".cell-confirm")
    confirm.locator("select").select_option(index=2)
    confirm.locator("button").click()
    expect(cell(page, 1, 1)).to_have_attribute("data-mark", "counted")
    expect(cell(page, 1, 3)).to_contain_text("deals: 1")
    expect(page.locator("#start-round")).to_have_text("Start round 2")
    expect(projector.locator("#progress .progress-row")).to_have_count(6)  # the round's progress, table by table
    expect(projector.locator("#leaderboard .leaderboard tbody tr").first).to_be_visible()
    screenshot(projector, "evening-twenty-screen-round", full_page=False)

    # A correction with its reason; a player leaves; Zoé arrives, ticked among the club's players.
    adjust(page, "Vingt 05", -2, "a card shown too early")
    expect(page.locator("#mends li").first).to_contain_text("Vingt 05's score adjusted by −2 points")
    page.select_option("#mend-kind", "departure")
    page.locator("#departure-picks").get_by_label("Vingt 20", exact=True).check()
    page.fill("#mend-reason", "the last train")
    page.locator("#mend-submit").click()
    expect(page.locator("#mends li").first).to_contain_text("Left: Vingt 20.")
    page.select_option("#mend-kind", "arrival")
    expect(page.locator("#coming-back")).to_contain_text("Vingt 20")
    page.locator("#club-members").get_by_label("Zoé Vingt", exact=True).check()
    page.fill("#mend-reason", "came after work")
    screenshot(page, "evening-twenty-arrival", full_page=False)
    page.locator("#mend-submit").click()
    expect(page.locator("#mends li").first).to_contain_text("Arrived: Zoé Vingt.")
    expect(page.locator("#grid-table tbody")).to_contain_text("Zoé Vingt")

    # The big screen, frozen after round 1 while round 2 is played, then revealed.
    page.select_option("#freeze-round", "1")
    page.locator("#freeze-button").click()
    expect(page.locator("#frozen-state")).to_contain_text("Frozen after round 1")
    expect(projector.locator("#screen-state")).to_contain_text("Frozen after round 1")
    page.locator("#start-round").click()
    expect(cell(page, 2, 1)).to_have_attribute("data-mark", "missing")
    for _, phone, _ in phones:
        score_short_game(phone)
    expect(projector.locator("#screen")).to_have_attribute("data-frozen", "true")
    screenshot(projector, "evening-twenty-screen-frozen", full_page=False)
    page.locator("#reveal-button").click()
    expect(projector.locator("#screen")).to_have_attribute("data-frozen", "false")
    expect(projector.locator("#screen-state")).to_contain_text("Round 2")

    # An extra round, past the two planned: the page proposes tables for the twenty present.
    expect(page.locator("#start-round")).to_be_hidden()
    page.locator("#seat-summary").click()
    expect(page.locator("#seat-summary")).to_have_text("Play an extra round (3)")
    expect(page.locator("#seat-box .seat-table")).to_have_count(6)
    expect(page.locator("#seat-box .seat-player")).to_have_count(20)
    for table in range(1, 7):  # no table sits again as it did in round 2
        before = cell(page, 2, table).locator(".cell-players").inner_text().split(", ")
        assert sorted(seats(page, table)) != sorted(before)
    page.locator("#start-seated").click()
    expect(cell(page, 3, 6)).to_have_attribute("data-mark", "missing")
    for _, phone, _ in phones[:5]:
        score_short_game(phone)
    expect(cell(page, 3, 5)).to_have_attribute("data-mark", "counted")  # the director's page has followed

    # Closing warns, in the page, of table 6's game, not ended; the director keeps the evening open, voids that game
    # with a reason, then closes with a note.
    page.on("dialog", lambda dialog: pytest.fail(f"a browser pop-up: {dialog.message}"))
    page.locator("#close-evening").click()
    expect(page.locator("#close-dialog")).to_contain_text("not ended: 1")
    page.locator("#close-dialog button.ask-no").click()
    expect(page.locator("#close-dialog")).to_have_count(0)
    expect(page.locator("#close-evening")).to_be_visible()  # kept open
    page.select_option("#mend-kind", "void")
    game = cell(page, 3, 6).locator("a").get_attribute("href")
    assert game is not None
    page.select_option("#mend-game", game.split("/")[2])
    page.fill("#mend-reason", "the table left early")
    page.locator("#mend-submit").click()
    expect(cell(page, 3, 6)).to_have_attribute("data-mark", "voided")
    page.locator("#close-evening").click()
    expect(page.locator("#close-dialog")).not_to_contain_text("not ended")
    page.locator("#close-dialog .ask-field").fill("three rounds played")
    page.locator("#close-dialog button.ask-yes").click()
    expect(page.locator("#summary")).to_contain_text("closed")
    screenshot(page, "evening-twenty-director")
    page.locator("#publish").click()
    shared = page.locator("#published-url").input_value()
    assert "/results#share=" in shared

    # The published results: opened by anyone with the link, final, printable, with their CSV.
    reader = new_context(browser)
    results = reader.new_page()
    results_errors = PageErrors(results)
    results.goto(shared)
    expect(results.locator("#results-meta")).to_contain_text("final")
    expect(results.locator("#results-table tbody tr")).to_have_count(21)
    with results.expect_download() as download:
        results.locator("#csv").click()
    csv_text = Path(download.value.path()).read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith('"rank","name","score"')
    assert len(csv_text.splitlines()) == 22
    screenshot(results, "evening-results")
    results.emulate_media(media="print")
    expect(results.locator("#csv")).to_be_hidden()
    screenshot(results, "evening-results-print")
    # The big screen of the evening closed: its final results, every player on the projector.
    expect(projector.locator("#screen-state")).to_have_text("Final results")
    expect(projector.locator("#leaderboard .leaderboard tbody tr")).to_have_count(21)
    last = projector.locator("#leaderboard .leaderboard").nth(1).locator("tbody tr").last.bounding_box()
    assert last is not None and last["y"] + last["height"] <= 1080  # every player on the screen, none scrolled off
    screenshot(projector, "evening-big-screen-twenty", full_page=False)
    assert results_errors.errors == [] and errors.errors == [] and projector_errors.errors == []
    for context, _, phone_errors in phones:
        assert phone_errors.errors == []
        context.close()
    projector_context.close()
    reader.close()
    director.close()
