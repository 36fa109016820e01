"""The big screen shows the ranks the evening's ranking gives, on a phone: a player whose adjustments cancel out
is ranked (a result the director gave, with 0) where the ranking puts them, with no gap in the ranks shown; the
players with no result yet follow, "–"."""

from __future__ import annotations

import dataclasses

import pytest
from playwright.sync_api import Browser, expect

from .conftest import screenshot
from .server import LiveServer
from .test_evenings import SIX, call, evening_path, open_evening, play
from .viewports import opened


@pytest.fixture(scope="module")
def ranks_club(live_server: LiveServer) -> LiveServer:
    """The live server seen by a club of its own."""
    club, token = live_server.store.clubs.create_club("Le Cercle des Rangs")
    return dataclasses.replace(live_server, club=club.id, club_name=club.name, token=token.secret)


def test_the_big_screen_ranks_cancelling_adjustments_as_the_ranking_does(browser: Browser,
                                                                         ranks_club: LiveServer) -> None:
    evening = open_evening(ranks_club, name="Soirée des rangs", players=SIX, rounds=1,
                           seating=[[SIX[:3], SIX[3:]]])["id"]
    tables = call(ranks_club, "POST", evening_path(ranks_club, evening, "rounds"), {}, status=201)["rounds"][0][
        "tables"]
    play(ranks_club, tables[0]["game"], 3, seed=7)  # Ana, Ben, Chloé: a game counted
    call(ranks_club, "POST", f"/games/{tables[1]['game']}/actions", {"actions": [{"type": "deal"}]}, status=201)
    for amount, reason in ((5, "helped set up"), (-5, "entered twice")):
        call(ranks_club, "POST", evening_path(ranks_club, evening, "decisions"),
             {"type": "adjustment", "player": "Denis", "amount": amount, "reason": reason}, status=201)
    ranking = call(ranks_club, "GET", evening_path(ranks_club, evening, "leaderboard"))["rows"]
    denis = next(row for row in ranking if row["name"] == "Denis")
    assert denis["rank"] is not None and denis["score"] == 0 and denis["games"] == 0

    with opened(browser, ranks_club, "en") as page:
        page.goto(f"{ranks_club.url}/clubs/{ranks_club.club}/evenings/{evening}/screen")
        expect(page.locator("#screen")).to_have_attribute("data-phase", "playing")
        expect(page.locator("#leaderboard tbody tr")).to_have_count(6)
        shown = page.evaluate("""() => [...document.querySelectorAll('#leaderboard tbody tr')].map((tr) => [
            tr.dataset.name, tr.querySelector('.rank').textContent, tr.querySelector('.score').textContent,
            tr.className])""")
        # the screen lists the rows in the ranking's order, each with the ranking's rank: Denis among the ranked
        assert [(name, rank) for name, rank, _, _ in shown] == [
            (row["name"], "–" if row["rank"] is None else str(row["rank"])) for row in ranking]
        ranked = [(name, rank, score) for name, rank, score, kind in shown if kind != "unranked"]
        assert ("Denis", str(denis["rank"]), "0") in ranked and len(ranked) == 4
        assert [kind for _, _, _, kind in shown[4:]] == ["unranked", "unranked"]
        assert {name for name, _, _, _ in shown[4:]} == {"Élise", "Fanny"}
        assert all(score == "–" for _, _, score, _ in shown[4:])
        # no gap: the ranks shown are those of a ranking of four, ties sharing (1, 2, 3 / 1, 1, 3…)
        numbers = [int(rank) for _, rank, _ in ranked]
        assert numbers[0] == 1 and all(number <= position for position, number in enumerate(numbers, 1))
        page.locator("#leaderboard").scroll_into_view_if_needed()
        screenshot(page, "big-screen-ranks-phone")
