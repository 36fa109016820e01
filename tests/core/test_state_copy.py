"""A state's ``copy()`` is written out field by field: it must name every field, and share nothing that changes."""

from __future__ import annotations

from nj_ledger.reducer import fold, replay
from nj_ledger.simulator import simulate
from nj_ledger.state import DealState, GameState


def states_mid_deal() -> list[GameState]:
    """States of simulated games with a deal open, so that every field of both classes is set."""
    found = []
    for seed in range(5):
        game = simulate(seed, "classic", 3, deals=1)
        events = game.events
        for upto in (len(events) // 2, len(events)):
            state = replay(events[:upto])
            assert state.deal is not None
            found.append(state)
    return found


def test_copy_names_every_field_of_both_classes() -> None:
    for state in states_mid_deal():
        other = state.copy()
        assert other is not state and other.deal is not state.deal
        assert type(other) is GameState and type(other.deal) is DealState
        for name in GameState.__slots__:
            if name != "deal":
                assert getattr(other, name) is getattr(state, name), name
        for name in DealState.__slots__:
            assert getattr(other.deal, name) is getattr(state.deal, name), name


def test_a_copy_is_not_disturbed_by_the_original_moving_on() -> None:
    game = simulate(7, "classic", 4, deals=1)
    half = len(game.events) // 2
    state = replay(game.events[:half])
    kept = state.copy()
    before = {name: getattr(kept.deal, name) for name in DealState.__slots__}
    for event in game.events[half:]:
        state = fold(state, event)
    assert {name: getattr(kept.deal, name) for name in DealState.__slots__} == before
    assert kept.version == half
