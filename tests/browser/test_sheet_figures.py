"""Every figure of the result sheet is the log's: each deal's chips are the replay's state at the deal's last step
(after its settlement and any adjustment agreed before the next deal, before the next deal's antes), its change
the difference from the deal's first step, its payments and honours those of the deal's settlement that stands;
the standings are the chips after the last settled deal, never with a deal in progress's antes in them.

The game is simulated (seed 205: four players, five deals, a settlement withdrawn by an undo and played again in
deal 1, adjustments after deals 3 and 4, the game ended when a player could not pay the antes of a sixth deal),
stored whole, and also cut two actions into its fifth deal."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from nj_ledger.simulator import simulate

from .conftest import screenshot
from .server import LiveServer
from .viewports import PHONE, opened

HONOURS = {"take", "grand_opera", "hoc"}


def number(text: str) -> int:
    """A figure as the sheet writes it ("1,204", "−17", "+32") as an integer."""
    return int(text.replace(",", "").replace("\u202f", "").replace("−", "-").replace("+", ""))


def replays(page: Page, server: LiveServer, game: str, deals: int) -> dict[int, list[dict[str, Any]]]:
    """Each deal's replay steps, from the API."""
    steps = {}
    for deal in range(1, deals + 1):
        answer = page.request.get(f"{server.url}/api/v1/games/{game}/deals/{deal}/replay",
                                  headers={"Authorization": f"Bearer {server.token}"})
        assert answer.ok, answer.text()
        steps[deal] = answer.json()["steps"]
    return steps


def settlement(steps: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The settlement that stands (the last `deal_ended` of the deal) and the deal's events before it."""
    events = [step["event"] for step in steps if step["event"] is not None]
    last = max(i for i, event in enumerate(events) if event["type"] == "deal_ended")
    return events[last]["data"], events[:last]


def honours_taken(events: list[dict[str, Any]], seat: int) -> int:
    """The chips a seat took from the boxes in a deal, less the takes an undo gave back."""
    taken = 0
    for event in events:
        if event["type"] != "transfer":
            continue
        data = event["data"]
        if data["to"] == f"seat:{seat}" and data["reason"] in HONOURS:
            taken += data["amount"]
        if data["from"] == f"seat:{seat}" and data["reason"] == "undo" and data["to"].startswith("box:"):
            taken -= data["amount"]
    return taken


def check_deal(section: Locator, steps: list[dict[str, Any]]) -> None:
    """Each row of a settled deal's table against the replay of that deal."""
    first, last = steps[0]["state"], steps[-1]["state"]
    ended, before_end = settlement(steps)
    paid = {p["seat"]: p for p in ended["payments"]}
    betes: dict[int, int] = {}
    for bete in ended.get("betes", []):
        betes[bete["seat"]] = betes.get(bete["seat"], 0) + bete["paid"]
    for player in last["players"]:
        seat = player["seat"]
        row = section.locator(f'tr[data-seat="{seat}"]')
        chips_cell = row.locator("td[data-chips]")
        chips, change = chips_cell.inner_text().split(" (")
        assert number(chips) == player["chips"] == int(chips_cell.get_attribute("data-chips") or "")
        assert number(change.rstrip(")")) == player["chips"] - first["players"][seat]["chips"]
        cells = row.locator("td").all_inner_texts()
        payment = cells[1].split(" · ")
        if seat == ended["winner"]:
            assert number(payment[0]) == sum(p["paid"] for p in ended["payments"])
        else:
            assert number(payment[0].split(" (")[0]) == -paid[seat]["paid"]
        assert sum(number(part.rsplit(" ", 1)[1]) for part in payment[1:]) == -betes.get(seat, 0)
        taken = honours_taken(before_end, seat)
        assert cells[2] == ("–" if taken == 0 else f"+{taken}"), (seat, cells[2], taken)


def check_standings(page: Page, chips: list[int], starting: int, said: str) -> None:
    """The standings: most chips first, ties sharing a rank, each player's chips and net."""
    expect(page.locator("#standings .verdict")).to_have_text(said)
    rows = page.locator("#standings tbody tr")
    expect(rows).to_have_count(len(chips))
    shown = []
    for row in rows.all():
        seat = int(row.get_attribute("data-seat") or "")
        rank, _, figure, net = row.locator("td, th").all_inner_texts()
        assert number(figure) == chips[seat], (seat, figure, chips)
        assert number(net) == chips[seat] - starting
        shown.append((int(rank), chips[seat]))
    assert [c for _, c in shown] == sorted(chips, reverse=True)
    assert all(rank == 1 + sum(1 for c in chips if c > mine) for rank, mine in shown)


def test_each_figure_is_the_replays_at_the_end_of_its_deal(browser: Browser, live_server: LiveServer) -> None:
    simulated = simulate(seed=205, profile="classic", players=4, deals=6)
    started, actions = simulated.events[0], simulated.actions
    dealt = [i for i, action in enumerate(actions) if action["type"] == "deal"]
    assert len(dealt) == 5
    whole = live_server.store.games.create_game(live_server.club, started, actions).game.id
    cut = live_server.store.games.create_game(live_server.club, started, actions[:dealt[4] + 3]).game.id

    with opened(browser, live_server, "en", PHONE) as page:
        # the game in progress: four deals settled, the fifth dealt (its antes paid) and begun
        page.goto(f"{live_server.url}/games/{cut}/sheet")
        expect(page.locator(".sheet-deal")).to_have_count(5)
        steps = replays(page, live_server, cut, 5)
        for deal in range(1, 5):
            check_deal(page.locator(f'.sheet-deal[data-deal="{deal}"]'), steps[deal])
        expect(page.locator('.sheet-deal[data-deal="5"] h3')).to_contain_text("in progress")
        after_four = [p["chips"] for p in steps[4][-1]["state"]["players"]]
        assert after_four == [p["chips"] for p in steps[5][0]["state"]["players"]]  # before deal 5's antes
        assert after_four != [p["chips"] for p in steps[5][-1]["state"]["players"]]  # which the game now holds
        check_standings(page, after_four, started.data["starting_chips"],
                        "The game is not over: standings after 4 deals.")
        expect(page.locator("#meta dt:text-is('Deals played') + dd")).to_have_text("4")
        # the adjustments agreed after deals 3 and 4 are in those deals' chips, and said under their tables
        for deal in (3, 4):
            expect(page.locator(f'.sheet-deal[data-deal="{deal}"] .sheet-adjusted')).to_contain_text("Adjustment:")
        screenshot(page, "sheet")

        # the game over: the same four deals, the fifth settled, the standings the game's result
        page.goto(f"{live_server.url}/games/{whole}/sheet")
        expect(page.locator(".sheet-deal")).to_have_count(5)
        steps = replays(page, live_server, whole, 5)
        for deal in range(1, 6):
            check_deal(page.locator(f'.sheet-deal[data-deal="{deal}"]'), steps[deal])
        final = [p["chips"] for p in steps[5][-1]["state"]["players"]]
        check_standings(page, final, started.data["starting_chips"],
                        "The game is over: a player cannot stake the board any more.")
        expect(page.locator("#meta dt:text-is('Deals played') + dd")).to_have_text("5")


@pytest.mark.parametrize("language", ["fr"])
def test_the_standings_of_a_game_in_progress_say_so_in_french(browser: Browser, live_server: LiveServer,
                                                              language: str) -> None:
    simulated = simulate(seed=205, profile="classic", players=4, deals=6)
    actions = simulated.actions
    second = [i for i, action in enumerate(actions) if action["type"] == "deal"][1]
    game = live_server.store.games.create_game(live_server.club, simulated.events[0], actions[:second + 1]).game.id
    with opened(browser, live_server, language, PHONE) as page:
        page.goto(f"{live_server.url}/games/{game}/sheet")
        steps = replays(page, live_server, game, 1)
        check_standings(page, [p["chips"] for p in steps[1][-1]["state"]["players"]],
                        simulated.events[0].data["starting_chips"],
                        "La partie n'est pas finie : classement après 1 donne.")
