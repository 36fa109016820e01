"""The scorer's own answer of what may be tapped (``record_taps.js``) is the core's (``nj_ledger.scorer.tappable``).

Until the core has loaded in the page (and on a phone where it cannot), the scorer answers what may be tapped with
its JavaScript copy of the play rules and of the undo (``record_taps.js`` says why it stays). Here that copy runs in
Chromium, as the page imports it, on positions of simulated games of every profile, hands known and not, with the
simulator's undos, passes and adjustments, and rounds every seat passes (the run blocked): the state as the API
shows it, the log as the API gives it, the cards tapped so far (none, the table's own play card by card, random
plays the core accepts) and the seat chosen (none, or one). Its answer must be the core's, field for field: the
seats each card may go to, the seats that may record the cards tapped or start a play with them, the cards seen.
"""

from __future__ import annotations

import json
import random
from typing import Any

from playwright.sync_api import Page

from nj_ledger import LedgerError, execute, replay
from nj_ledger.events import Event
from nj_ledger.profiles import PROFILES
from nj_ledger.scorer import tappable
from nj_ledger.simulator import simulate
from nj_ledger.state import GameState
from nj_ledger.view import state_view

from .server import LiveServer

SEEDS = (1, 2)
EVERY = 2  # every other batch of a game is a position (each with its variants): some 2,500 positions in all


def records(events: list[Event]) -> list[dict[str, Any]]:
    return [{"seq": seq, "deal": e.deal, "type": e.type, "data": e.data, "v": e.v} for seq, e in enumerate(events, 1)]


def core_taps(state: GameState, pending: list[str], chosen: int | None) -> dict[str, Any]:
    return json.loads(tappable(state, json.dumps(pending), -1 if chosen is None else chosen))


def variants(state: GameState, batch: list[dict[str, Any]], rng: random.Random) -> list[tuple[list[str], int | None]]:
    """The cards tapped and the seat chosen, for one position: none; the table's own play, card by card, for any
    seat and for its own; a random play the core accepts, two or three cards long, for any seat and one chosen."""
    found: list[tuple[list[str], int | None]] = [([], None)]
    if state.status != "playing":
        return found
    found.append(([], rng.randrange(len(state.players))))
    play = next((action for action in batch if action["type"] == "play"), None)
    if play is not None:
        for count in range(1, len(play["cards"]) + 1):
            found.append((play["cards"][:count], None))
        found.append((play["cards"], play["seat"]))
    pending: list[str] = []
    for _ in range(rng.choice((2, 3))):
        offered = [card for card, seats in core_taps(state, pending, None)["cards"].items() if seats]
        if not offered:
            break
        pending = [*pending, rng.choice(sorted(offered))]
        found.append((pending, None))
    if pending:
        found.append((pending, rng.randrange(len(state.players))))
    return found


def positions() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Simulated games (each its log, as the API gives it) and the positions to answer, each with the core's answer."""
    games: list[dict[str, Any]] = []
    asked: list[dict[str, Any]] = []
    for profile in sorted(PROFILES):
        for info in ("partial", "full"):
            for seed in SEEDS:
                game = simulate(seed=seed, profile=profile, info=info, deals=2,
                                by_count=0.5 if info == "partial" else 0)
                rng = random.Random(f"{profile}-{info}-{seed}")
                index = len(games)
                games.append({"name": f"{profile} {info} {seed}", "records": records(game.events)})
                state = replay(game.events[:1])
                known = 1
                for number, batch in enumerate(game.batches):
                    opening = state.deal is not None and not state.deal.opened  # the deal's first card
                    if number % EVERY == 0 or state.status != "playing" or opening:
                        view = json.loads(json.dumps(state_view(state)))
                        for pending, chosen in variants(state, batch, rng):
                            asked.append({"game": index, "known": known, "state": view, "pending": pending,
                                          "chosen": chosen, "core": core_taps(state, pending, chosen)})
                    if number % (4 * EVERY) == 1:
                        blocked(games, asked, game.events[:known], state, rng)
                    state, made = execute(state, batch)
                    known += len(made)
    return games, asked


def blocked(games: list[dict[str, Any]], asked: list[dict[str, Any]], events: list[Event], state: GameState,
            rng: random.Random) -> None:
    """A round every seat passes, then one pass more: the positions after the run is blocked (the missing rank
    skipped, or a new run), which a simulated table seldom leaves standing (it plays from a later seat instead)."""
    name = f"{games[-1]['name'].removesuffix(' blocked')} blocked"
    shown = False
    for _ in range(len(state.players) + 1):
        if state.status != "playing" or state.deal is None or state.deal.expected is None:
            return
        try:
            state, made = execute(state, [{"type": "pass", "seat": state.deal.turn}])
        except LedgerError:
            return
        events = [*events, *made]
        if state.deal is not None and not state.deal.passers:
            shown = True  # blocked: this position, and the one a pass later
        elif not shown:
            continue
        games.append({"name": name, "records": records(events)})
        view = json.loads(json.dumps(state_view(state)))
        for pending, chosen in variants(state, [], rng):
            asked.append({"game": len(games) - 1, "known": len(events), "state": view, "pending": pending,
                          "chosen": chosen, "core": core_taps(state, pending, chosen)})


ANSWER = """async ([games, asked]) => {
  const { tapsHere } = await import("/static/pages/record_taps.js");
  return asked.map((position) => {
    const events = games[position.game].records.slice(0, position.known);
    return tapsHere(position.state, events, position.pending, position.chosen);
  });
}"""


def test_the_pages_answer_of_what_may_be_tapped_is_the_cores(page: Page, live_server: LiveServer) -> None:
    games, asked = positions()
    assert len(asked) > 1000
    assert sum(1 for position in asked if position["state"]["status"] == "playing") > 900
    # the positions reach what the copy decides: later seats, blocked rounds, refusals and undos
    assert any(position["core"]["recordable"] for position in asked)
    assert any(not position["core"]["recordable"] and position["pending"] for position in asked)
    assert any(record["type"] == "undo" for game in games for record in game["records"])
    assert sum(1 for game in games if game["name"].endswith("blocked")) > 20
    answers: list[dict[str, Any]] = []
    for start in range(0, len(asked), 400):  # a few hundred positions per call: each call's JSON stays small
        chunk = asked[start:start + 400]
        shown = [{key: value for key, value in position.items() if key != "core"} for position in chunk]
        answers += page.evaluate(ANSWER, [games, shown])
    differ = []
    for position, answer in zip(asked, answers, strict=True):
        core = position["core"]
        mine = {**answer, "seen": sorted(answer["seen"])}
        if mine != {**core, "seen": sorted(core["seen"])}:
            cards = {card: (seats, answer["cards"].get(card)) for card, seats in core["cards"].items()
                     if seats != answer["cards"].get(card)}
            differ.append((games[position["game"]]["name"], position["known"], position["pending"],
                           position["chosen"], cards or {key: (core[key], answer[key]) for key in core}))
    assert not differ, f"{len(differ)} of {len(asked)} positions differ; the first: {differ[:3]}"
