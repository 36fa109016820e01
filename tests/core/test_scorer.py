"""What the scorer page computes with no connection (``nj_ledger.scorer``, run in the page under Pyodide).

The page hands the core the log as the API gives it (JSON records) and the waiting actions (JSON), and shows the
answer: it must be, after going through JSON both ways, exactly the state the server shows once it has recorded
the same actions, and the records it will append. What it lets the scorer tap must be what the rules accept.
Simulated games of every profile, the hands known and not known, undos and adjustments among them.
"""

from __future__ import annotations

import json

import pytest

from nj_ledger import LedgerError, execute, replay
from nj_ledger.cards import DECK
from nj_ledger.events import Event
from nj_ledger.profiles import PROFILES
from nj_ledger.scorer import project, state_of, tappable
from nj_ledger.simulator import simulate
from nj_ledger.view import state_view


def records(events: list[Event], first: int = 1) -> list[dict[str, object]]:
    return [{"seq": seq, "deal": e.deal, "type": e.type, "data": e.data, "v": e.v}
            for seq, e in enumerate(events, first)]


def round_trip(value: object) -> object:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("info", ["partial", "full"])
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_state_after_waiting_actions_is_the_servers(profile: str, info: str) -> None:
    game = simulate(seed=len(profile), profile=profile, info=info, deals=3, by_count=0.5 if info == "partial" else 0)
    assert len(game.batches) > 6
    # the outbox holds the last batches (a connection lost that long): the page knows the log before them
    for waiting in (1, 5, len(game.batches) // 2):
        known_batches = game.batches[:-waiting]
        kept = [game.events[0]]
        for batch in known_batches:
            kept += execute(replay(kept), batch)[1]
        shown = project(state_of(json.dumps(records(kept))), json.dumps(game.batches[-waiting:]))
        answer = json.loads(shown.answer)
        assert answer["applied"] == waiting and answer["refusal"] is None
        assert answer["state"] == round_trip(state_view(game.state))  # type: ignore[arg-type]
        assert answer["events"] == round_trip(records(game.events[len(kept):], first=len(kept) + 1))


def test_a_refused_action_stops_the_projection_with_its_code() -> None:
    game = simulate(seed=3, profile="classic", players=3, info="partial", deals=1, chatter=0)
    known = state_of(json.dumps(records(game.events[:1] + execute(replay(game.events[:1]), [{"type": "deal"}])[1])))
    turn = json.loads(project(known, "[]").answer)["state"]["deal"]["turn"]
    other = (turn + 1) % 3
    waiting = [[{"type": "play", "seat": turn, "cards": ["5H"]}], [{"type": "play", "seat": turn, "cards": ["5H"]}],
               [{"type": "pass", "seat": other}]]
    answer = json.loads(project(known, json.dumps(waiting)).answer)
    assert answer["applied"] == 1 and answer["refusal"] == {"index": 1, "code": "card-already-played"}


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_what_may_be_tapped_is_what_the_rules_accept(profile: str) -> None:
    game = simulate(seed=11, profile=profile, info="full", deals=1, chatter=0)
    state = replay(game.events[:1])
    checked = 0
    for batch in game.batches:
        if state.status == "playing" and checked < 6:
            assert state.deal is not None
            answer = json.loads(tappable(state, "[]", -1))
            seats = range(len(state.players))
            for card in DECK:
                accepted = []
                for seat in seats:
                    try:
                        execute(state, [{"type": "play", "seat": seat, "cards": [card], "announced": []}])
                    except LedgerError as refused:
                        if refused.code != "must-continue":
                            continue
                    accepted.append(seat)
                assert answer["cards"][card] == accepted, (profile, card)
            assert answer["seen"] == sorted(state.deal.seen)
            play = next((a for a in batch if a["type"] == "play"), None)
            if play is not None:  # the play the table made is offered, card by card, then recordable for its seat
                for count in range(len(play["cards"])):
                    tapped = json.loads(tappable(state, json.dumps(play["cards"][:count]), -1))
                    assert play["seat"] in tapped["cards"][play["cards"][count]]
                whole = json.loads(tappable(state, json.dumps(play["cards"]), -1))
                assert play["seat"] in whole["recordable"] and play["seat"] in whole["starts"]
            checked += 1
        state = execute(state, batch)[0]
