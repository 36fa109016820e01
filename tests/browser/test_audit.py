"""The audit page: verdict, checks, findings, every transfer, and the chart of chips over the deals."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from nj_ledger import new_game

from .conftest import screenshot
from .server import LiveServer
from .viewports import PHONE, opened


def test_audit_shows_transfers_findings_and_the_chart(page: Page, live_server: LiveServer) -> None:
    game = live_server.example_game
    report = live_server.store.games.records(live_server.club, game)
    transfers = [r for r in report if r["type"] == "transfer"]
    page.goto(f"{live_server.url}/games/{game}/audit")

    expect(page.locator("#verdict")).to_contain_text(f"Every check passes over the {len(report)} events")
    expect(page.locator("#checks li")).to_have_count(5)
    expect(page.locator("#transfers tbody tr")).to_have_count(len(transfers))
    first = page.locator("#transfers tbody tr").first.locator("td")
    expect(first).to_have_text([str(transfers[0]["seq"]), "1", "Jeanne", "the 10♦ box", "1", "stake"])
    expect(page.locator("#findings")).to_contain_text("Honour not announced")
    expect(page.locator("#findings")).to_contain_text("Shortfall")

    # One line per player, one point per deal plus the start; the last points are the final chips.
    chart = page.locator("#chart svg.chips-chart")
    expect(chart.locator("polyline")).to_have_count(4)
    expect(chart.locator("g.series").first.locator("circle")).to_have_count(5)
    expect(page.locator("#chart .legend li")).to_have_text(
        ["Jeanne (160)", "Marcel (0)", "Sylvie (162)", "Thomas (154)"])
    expect(chart.locator('g.series[data-seat="1"] circle title').last).to_have_text("Marcel: 0 chips after deal 4")
    screenshot(page, "audit")


UNDONE = {
    "en": ("Ana's play 5♣ 6♣ withdrawn, with the settlement of deal 1", "Ben's pass withdrawn", "Result sheet",
           "2 chips from Ana to Ben"),
    "fr": ("Ana : coup 5♣ 6♣ retiré, avec le règlement de la donne 1", "Ben : passe retirée", "Feuille de résultats",
           "2 jetons d'Ana à Ben"),  # French elides "de" before a name that opens with a vowel
}


def corrected_game(server: LiveServer, *more: dict[str, object]) -> str:
    """A short deal of three (four cards each) with a pass taken back, a going out taken back with its settlement
    ("wrong seat") and played again, and an adjustment; then ``more`` actions."""
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
    hands = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
    going_out = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}
    return server.store.games.create_game(server.club, new_game(["Ana", "Ben", "Chloé"], rules, 100), [
        {"type": "deal", "dealer": 2, "hands": hands},
        {"type": "play", "seat": 0, "cards": ["AC", "2C"], "announced": []},
        {"type": "pass", "seat": 1}, {"type": "undo"},
        {"type": "play", "seat": 1, "cards": ["3D"], "announced": []},
        {"type": "play", "seat": 2, "cards": ["4D"], "announced": []},
        going_out, {"type": "undo", "reason": "wrong seat"}, going_out,
        {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2, "reason": "a chip on the floor"},
        *more,
    ]).game.id


@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_undo_says_what_it_withdrew_with_the_players_name(browser: Browser, live_server: LiveServer,
                                                                language: str) -> None:
    """The audit's list of undos names the action withdrawn and its player, and the settlement that went with it;
    an adjustment names its players, in French with "de" elided before a vowel."""
    game = corrected_game(live_server)
    settled, passed, sheet, adjusted = UNDONE[language]
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/games/{game}/audit")
        rows = page.locator("#corrections tbody tr")
        expect(rows).to_have_count(3)
        expect(rows.nth(0).locator("td").nth(2)).to_have_text(passed)
        expect(rows.nth(1).locator("td").nth(2)).to_have_text(settled)
        expect(rows.nth(1).locator("td").nth(3)).to_have_text("wrong seat")
        expect(rows.nth(2).locator("td").nth(2)).to_have_text(adjusted)
        expect(page.locator("#sheet-link")).to_have_text(sheet)
        expect(page.locator("#sheet-link")).to_have_attribute("href", f"/games/{game}/sheet")
        page.locator("#corrections").scroll_into_view_if_needed()
        screenshot(page, f"audit-undos-phone-{language}", full_page=False)


PLAIN = {
    "en": {"intact": "The record has not been altered since it was written.",
           "chips": "Every chip is accounted for: the chips add up at every step, and the rules, applied again, "
                    "give every payment recorded.",
           "corrections": "3 corrections, 1 of them without a reason.", "taken_back": "Correction",
           "undone": "Taken back: Ana's play of 5C, 6C, with the settlement of deal 1 — reason: wrong seat.",
           "link": "See it in the replay (deal 1)", "technical": "The checks in technical terms"},
    "fr": {"intact": "Le journal de la partie n'a pas été altéré depuis son écriture.",
           "chips": "Chaque jeton est justifié\u00a0: les jetons s'additionnent à chaque étape, et les règles, "
                    "appliquées de nouveau, donnent chaque paiement relevé.",
           "corrections": "3 corrections, dont 1 sans motif.", "taken_back": "Correction",
           "undone": "Repris\u00a0: la pose de 5♣, 6♣ par Ana, avec le règlement de la donne 1 — "
                     "motif\u00a0: wrong seat.",
           "link": "Revoir ce moment (donne 1)", "technical": "Les vérifications en termes techniques"},
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_audit_says_first_in_plain_words_and_links_each_finding_to_its_step(browser: Browser,
                                                                                 live_server: LiveServer,
                                                                                 language: str) -> None:
    """What a member wants to know comes first, in plain words (the record not altered, every chip accounted for,
    the corrections and whether each says why); the technical checks wait in a collapsed <details>; each finding
    links to its step in the replay, which opens at that step."""
    game = corrected_game(live_server, {"type": "deal"})
    records = live_server.store.games.records(live_server.club, game)
    undo_seq = [r["seq"] for r in records if r["type"] == "undo"][1]
    said = PLAIN[language]
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/games/{game}/audit")
        summary = page.locator("#summary li")
        expect(summary).to_have_text([said["intact"], said["chips"], said["corrections"]])
        expect(page.locator("#summary")).not_to_contain_text("hash")
        technical = page.locator("#technical")
        expect(technical.locator("summary")).to_have_text(said["technical"])
        expect(technical).not_to_have_attribute("open", "")
        expect(page.locator("#checks")).to_be_hidden()  # "hash chain", "signed checkpoints": there, on demand
        page.locator("#summary").scroll_into_view_if_needed()
        if language == "en":
            screenshot(page, "audit-plain", full_page=False)
        technical.locator("summary").click()
        expect(page.locator("#checks li")).to_have_count(5)

        undone = page.locator(f'#findings li[data-code="undo"][data-seq="{undo_seq}"]')
        expect(undone.locator("strong")).to_have_text(said["taken_back"])
        expect(undone.locator(".message")).to_have_text(said["undone"])
        link = undone.locator("a.step-link")
        expect(link).to_have_text(said["link"])
        expect(link).to_have_attribute("href", f"/games/{game}/replay#deal=1&seq={undo_seq}")
        expect(page.locator("#findings a.step-link")).to_have_count(3)  # every finding: two undos, an adjustment
        link.scroll_into_view_if_needed()
        screenshot(page, f"audit-finding-link-{language}", full_page=False)

        link.click()  # the replay opens at the undo's step
        page.wait_for_url(f"**/games/{game}/replay#deal=1&seq={undo_seq}")
        expect(page.locator("#position")).to_have_attribute("data-seq", str(undo_seq))
        expect(page.locator("#deal-select")).to_have_value("1")
