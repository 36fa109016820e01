"""A deal scripted as a table plays it, and the taps that record it on the scorer (the simulator's seed 142).

A 3-player deal of a new game (classic rules, hands not entered): passes are never tapped (a play from a later
seat records the passes in between), honours laid are pre-ticked as announced, and each loser's hand is told
by count (points typed, honours held ticked). tests/browser/test_scorer_taps.py holds it to a tap budget;
tests/deploy/ records it on a phone at the club server's HTTPS name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from playwright.sync_api import Locator, Page, expect

from .conftest import settled

# (seat, cards laid in one turn, the seats whose passes the play records). Chloé (2) deals: Ana opens.
DEAL = [
    (0, ["9H", "10C", "JD", "QC", "KD", "6C", "7D", "8C", "9D"], []),  # Nain jaune qui prend, sans 10
    (2, ["10H", "JS", "QS"], [1]),  # Ben passes; Chloé continues: Dame qui prend
    (0, ["KH", "AS", "2C", "3H"], []),  # Roi qui prend, Roi et je recommence
    (1, ["4S", "5C"], []),
    (2, ["6D", "7C", "8S"], []),
    (1, ["9C"], [0]),
    (2, ["10S", "JH"], []),
    (1, ["QD", "KC", "8D"], [0]),
    (1, ["2D", "3S", "4C"], [2, 0]),  # sans 9: nobody has one, Ben starts a new run
    (2, ["5H"], []),
    (2, ["4D"], [0, 1]),  # sans 6: blocked, Chloé starts again
    (0, ["5D"], []),
    (0, ["AH"], [1, 2]),  # blocked again; Ana lays her last card: J'arrête
]
# What each loser says at settlement: cards left, points (A=1, 2–9 face value, 10/J/Q/K=10), honours held.
LOSERS = {
    1: {"count": 6, "points": 35, "honours": []},  # 2H 7H 7S 8H AC KS
    2: {"count": 5, "points": 21, "honours": ["10D"]},  # 10D 3C 3D 4H AD: bête of the 10♦
}
NAMES = ["Ana", "Ben", "Chloé"]


@dataclass
class Taps:
    """Every tap the test makes goes through here, and is counted."""

    page: Page
    count: int = 0
    kinds: dict[str, int] = field(default_factory=dict)

    def tap(self, target: Locator, kind: str) -> None:
        self.count += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        target.tap()
        if kind == "card":  # what the seats may do with it is the rules' answer, asked of the server
            settled(self.page)

    def record(self, target: Locator, kind: str) -> None:
        """A tap that records an action: waits for the new state."""
        with self.page.expect_response(lambda r: r.url.endswith("/actions") and r.request.method == "POST") as answer:
            self.tap(target, kind)
        assert answer.value.status == 201, answer.value.text()
        expect(self.page.locator("#notice")).to_be_hidden()


def record_the_deal(page: Page) -> Taps:
    """Deal, every turn of :data:`DEAL`, and each loser's hand by count, on a scorer page open at a new game."""
    taps = Taps(page)
    taps.record(page.locator("#deal"), "deal")
    for seat, cards, _passes in DEAL:
        for card in cards:
            taps.tap(page.locator(f'#controls .key[data-card="{card}"]'), "card")
        receiving = page.locator("#record-bar .pick.receiving").get_attribute("data-pick")
        target = "#play" if receiving == str(seat) else f'#record-bar .pick[data-pick="{seat}"]'
        taps.record(page.locator(target), "turn")
    for seat, told in LOSERS.items():
        expect(page.locator("#count-who")).to_contain_text(NAMES[seat])
        taps.tap(page.locator("#points"), "settle")
        page.keyboard.type(str(told["points"]))
        for card in told["honours"]:
            taps.tap(page.locator(f'#count-form [data-honour="{card}"]'), "settle")
        taps.record(page.locator("#reveal-count"), "settle")
    return taps
