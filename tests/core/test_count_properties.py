"""Settling by count over simulated games (hypothesis).

* a deal whose losers tell their hands by count -- the true count, points and honours, for any of them, the
  others showing their cards -- settles to exactly the chips the cards would have moved;
* a count, points or honours no hand could make is refused, with a stable code, and changes nothing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from nj_ledger import execute, replay
from nj_ledger.cards import DECK, parse_cards
from nj_ledger.checks import declarable
from nj_ledger.events import Event
from nj_ledger.simulator import SimulatedGame, simulate, told_by_count
from nj_ledger.state import GameState
from support.scale import examples, scaled

from .helpers import check_log
from .properties import refused

# Every profile whose settlement needs the losers' hands (hearts pays by cards without bêtes: no reveal).
PROFILES = ("classic", "cards", "skip", "avantcoureur-1760", {"profile": "classic", "grand_opera": {
    "condition": "no_other_plays", "reward": "double"}, "point_value": 3})
GAMES: st.SearchStrategy[dict[str, Any]] = st.builds(
    dict,
    seed=st.integers(0, 2**32 - 1),
    profile=st.sampled_from(PROFILES),
    info=st.just("partial"),
    deals=st.integers(1, 3),
    chatter=st.sampled_from([0.0, 1.0, 3.0]),
)
SETTINGS = examples(25, 400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def partial_game(arguments: dict[str, Any]) -> SimulatedGame:
    game = simulate(**arguments)
    assert game.state is not None
    return game


def is_card_reveal(batch: list[dict[str, Any]]) -> bool:
    return len(batch) == 1 and batch[0]["type"] == "reveal" and "cards" in batch[0]


def without_hands(event: Event) -> tuple[str, Any]:
    """An event as the settlement compares it: a reveal by its seat only, a deal's end without the hands shown."""
    if event.type == "reveal":
        return event.type, event.data["seat"]
    if event.type == "deal_ended":
        return event.type, {name: value for name, value in event.data.items() if name != "hands_left"}
    return event.type, dict(event.data)


def wrong_counts(state: GameState, told: dict[str, Any]) -> list[tuple[dict[str, Any], set[str]]]:
    """Counts no hand could be: each with the codes that may refuse it."""
    count, deal = told["count"], state.deal
    assert deal is not None
    honours = declarable(state)
    wrong: list[tuple[dict[str, Any], set[str]]] = []
    for other in (count - 1, count + 1, count + 5):
        if 1 <= other <= 52:
            wrong.append(({**told, "count": other}, {"reveal-mismatch"}))
    wrong.append(({**told, "points": 10 * count + 1}, {"reveal-mismatch"}))  # more than ten a card
    wrong.append(({**told, "points": count - 1}, {"reveal-mismatch"}))  # less than one a card
    plain = next(card for card in DECK if card not in honours)
    wrong.append(({**told, "honours": [*told["honours"], str(plain)]}, {"not-an-honour"}))
    if told["honours"]:
        wrong.append(({**told, "honours": [*told["honours"], told["honours"][0]]}, {"reveal-mismatch"}))
    seen = [card for card in honours if card in deal.seen]
    if seen:
        wrong.append(({**told, "honours": [*told["honours"], str(seen[0])]}, {"reveal-mismatch"}))
    wrong.append(({**told, "cards": []}, {"invalid-action"}))
    return wrong


@scaled
@SETTINGS
@given(GAMES, st.data())
def test_a_count_settles_as_the_cards_and_a_wrong_one_is_refused(
    arguments: dict[str, Any], data: st.DataObject
) -> None:
    game = partial_game(arguments)
    state = replay(game.events[:1])
    log: list[Event] = list(game.events[:1])
    for batch in game.batches:
        if is_card_reveal(batch):
            action = batch[0]
            told = told_by_count(state, action["seat"], parse_cards(action["cards"]))
            for wrong, codes in wrong_counts(state, told):
                refusal = refused(state, [wrong])
                assert refusal.code in codes, (wrong, refusal.code)
            if data.draw(st.booleans(), label=f"seat {action['seat']} by count"):
                batch = [told]
        state, events = execute(state, batch)
        log.extend(events)
    check_log(log, state)
    assert [without_hands(event) for event in log] == [without_hands(event) for event in game.events]
    assert game.state is not None
    assert state.balances == game.state.balances and state.boxes == game.state.boxes


@scaled
@SETTINGS
@given(GAMES)
def test_every_loser_by_count(arguments: dict[str, Any]) -> None:
    """The simulator's own option: every loser told by count, the game conserved and replayed."""
    game = simulate(**arguments, by_count=1.0)
    assert game.state is not None
    check_log(game.events, game.state)
    for event in game.events:
        if event.type == "reveal":
            assert "count" in event.data and "cards" not in event.data
    again, events = execute(replay(game.events[:1]), game.actions)
    assert events == game.events[1:] and again.balances == game.state.balances
