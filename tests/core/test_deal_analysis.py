"""The analysis of a whole recorded deal (nj_ledger.deal_analysis), as the API and the command line give it."""

from __future__ import annotations

import itertools
import json
import pathlib
from typing import Any

from nj_ledger import execute, new_game, replay
from nj_ledger.deal_analysis import DONE, PARTIAL, TOO_LARGE, analyse_deal, thresholds
from nj_ledger.events import Event
from nj_ledger.state import GameState

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json"


def _deal_one() -> tuple[GameState, list[tuple[int, Event]], GameState]:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    start = replay([new_game(document["players"], document["rules"], document["starting_chips"],
                             dealer=document["dealer"])])
    actions: list[dict[str, Any]] = [document["actions"][0], *itertools.takewhile(
        lambda action: action["type"] != "deal", document["actions"][1:])]
    state, events = execute(start, actions)
    return start, list(enumerate(events, start=1)), state


def test_the_end_of_deal_one_is_reviewed_within_a_small_budget_and_finds_thomass_blunder() -> None:
    start, events, end = _deal_one()
    analysis = analyse_deal(start, events, limit=20_000)
    assert analysis["status"] == PARTIAL  # the deal's start is far past 20,000 positions
    decisions = analysis["decisions"]
    assert [(d["seat"], d["mark"], d["lost"]) for d in decisions] == [
        (3, "blunder", 23), (0, "best", 0), (1, "best", 0), (2, "best", 0)]
    assert analysis["expected"][0]["values"][3] == 93
    assert analysis["expected"][-1]["values"] == list(end.balances)  # the deal as it was settled
    assert analysis["from_seq"] == decisions[0]["seq"]
    assert analysis["thresholds"] == thresholds(15) == {"inaccuracy": 1, "mistake": 5, "blunder": 15}


def test_a_budget_too_small_for_the_last_decision_says_too_large() -> None:
    start, events, _ = _deal_one()
    assert analyse_deal(start, events, limit=1)["status"] == TOO_LARGE


def test_a_small_deal_is_analysed_whole() -> None:
    start = replay([new_game(["Ana", "Ben"], {"profile": "classic", "players": [2], "deal_table": {"2": [2, 48]}},
                             60)])
    state, events = execute(start, [{"type": "deal", "hands": [["5H", "6H"], ["7D", "KS"]]},
                                    {"type": "play", "seat": 0, "cards": ["5H"], "announced": []}])
    rest = [{"type": "play", "seat": 0, "cards": ["6H"], "announced": []}] if state.deal and state.deal.turn == 0 \
        else []
    _, more = execute(state, rest)
    analysis = analyse_deal(start, list(enumerate([*events, *more], start=1)))
    assert analysis["status"] == DONE
    assert analysis["decisions"] and all(d["lost"] >= 0 for d in analysis["decisions"])
