"""Properties of the engine over simulated games (hypothesis).

* chips are conserved after every event;
* replaying the log gives the state that was built action by action;
* illegal actions — mutations of the move really recorded next, and random ones — are
  refused with a coded :class:`LedgerError` and change nothing.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from api.views import state_view
from nj_ledger import DECK, GameState, LedgerError, apply, decide, execute, replay
from nj_ledger.events import TABLE_ACTIONS
from nj_ledger.simulator import SimulatedGame, simulate
from support.scale import examples, scaled
from support.sentences import said

from .helpers import PROFILE_NAMES, check_log, snapshot
from .properties import check_game, illegal_moves, refused, states_before_batches

GAMES: st.SearchStrategy[dict[str, Any]] = st.builds(
    dict,
    seed=st.integers(0, 2**32 - 1),
    profile=st.sampled_from(PROFILE_NAMES),
    players=st.integers(2, 8),
    info=st.sampled_from(["full", "partial"]),
    deals=st.integers(1, 3),
    chatter=st.sampled_from([0.0, 1.0, 3.0]),
    by_count=st.sampled_from([0.0, 0.0, 0.5]),  # partial information: some losers tell their hands by count
)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WHOLE_GAMES = examples(40, 600)  # a test of whole random games: 40 in make test, 600 in make test-slow


def play(arguments: dict[str, Any]) -> SimulatedGame:
    game = simulate(**arguments)
    assert game.state is not None
    return game


# --- conservation and replay ------------------------------------------------------------------------
def _conserved_and_replayed(arguments: dict[str, Any]) -> None:
    check_game(play(arguments))


@scaled
@WHOLE_GAMES
@given(GAMES)
def test_chips_are_conserved_and_replay_equals_the_incremental_state(arguments: dict[str, Any]) -> None:
    _conserved_and_replayed(arguments)



@FAST
@given(GAMES, st.data())
def test_any_prefix_replays_to_the_pure_fold_of_it(arguments: dict[str, Any], data: st.DataObject) -> None:
    events = play(arguments).events
    k = data.draw(st.integers(1, len(events)), label="prefix")
    start = replay(events[:1])

    def step(state: GameState, event: Any) -> GameState:
        before = snapshot(state, depth=40)  # the fields, without the chain of undo points
        after = apply(state, event)
        assert snapshot(state, depth=40) == before  # apply leaves its input alone
        return after

    folded = reduce(step, events[1:k], start)
    assert snapshot(replay(events[:k])) == snapshot(folded)
    assert sum(folded.balances) + sum(folded.boxes) == folded.total_chips


# --- illegal actions --------------------------------------------------------------------------------
ALWAYS_ILLEGAL = [
    {"type": "shuffle"},
    {"type": "play", "seat": 99, "cards": ["AS"]},
    {"type": "play", "seat": 0, "cards": []},
    {"type": "pass", "seat": "one"},
]


def _illegal_moves_refused(arguments: dict[str, Any], data: st.DataObject) -> None:
    game = play(arguments)
    stops = list(states_before_batches(game))
    state, batch = stops[data.draw(st.integers(0, len(stops) - 1), label="position")]
    legal = batch[0] if batch else None
    for name, action, codes in illegal_moves(state, legal):
        refusal = refused(state, [action])
        assert codes is None or refusal.code in codes, (name, action, refusal.code, said(refusal))
        assert refusal.params["index"] == 0
        with pytest.raises(LedgerError):
            decide(state, action)
    if batch is not None:
        # all or nothing: a legal batch followed by an illegal action is refused whole
        bad = data.draw(st.sampled_from(ALWAYS_ILLEGAL), label="bad")
        refusal = refused(state, [*batch, bad])
        assert refusal.params["index"] == len(batch)
        before = snapshot(state)
        execute(state, batch)
        assert snapshot(state) == before  # execute never mutates its input, also when it succeeds


@scaled
@WHOLE_GAMES
@given(GAMES, st.data())
def test_illegal_moves_are_refused_and_change_nothing(arguments: dict[str, Any], data: st.DataObject) -> None:
    _illegal_moves_refused(arguments, data)



# --- random actions ---------------------------------------------------------------------------------
CARD_TEXTS = st.one_of(
    st.sampled_from([str(c) for c in DECK]), st.sampled_from(["t♦", "q♠", "7♦", "ZZ", "", "1H"])
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    CARD_TEXTS,
    st.lists(CARD_TEXTS, max_size=4),
    st.sampled_from(["seat:0", "seat:1", "seat:9", "box:7D", "box:QS", "box:AS", "bank"]),
    st.lists(st.lists(CARD_TEXTS, max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers()),
)
FIELDS = (
    "seat",
    "cards",
    "announced",
    "dealer",
    "hands",
    "talon",
    "from",
    "to",
    "amount",
    "reason",
    "inferred",
)
JUNK = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.one_of(st.sampled_from(TABLE_ACTIONS), st.text(max_size=5), st.none(), st.integers()),
    st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=4),
)
SEATS = st.one_of(st.integers(0, 3), st.integers(0, 7), st.integers(-2, 9), VALUES)
DECK_CARDS = st.lists(st.sampled_from([str(c) for c in DECK]), min_size=1, max_size=4)
ACCOUNTS = st.one_of(
    st.integers(0, 7), st.sampled_from(["seat:0", "seat:1", "seat:2", "box:7D", "box:10D", "box:QS"])
)


def _action(kind: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": st.just(kind), **fields})


ACTIONS = st.one_of(
    _action("play", seat=SEATS, cards=DECK_CARDS),
    _action("play", seat=SEATS, cards=st.one_of(DECK_CARDS, VALUES)),
    st.builds(
        lambda a, announced: {**a, "announced": announced},
        _action("play", seat=SEATS, cards=DECK_CARDS),
        st.lists(st.sampled_from(["10D", "JC", "QS", "KH", "7D", "QH", "KS", "9C"])),
    ),
    _action("pass", seat=SEATS),
    _action(
        "reveal",
        seat=SEATS,
        cards=st.one_of(st.lists(st.sampled_from([str(c) for c in DECK]), max_size=22), VALUES),
    ),
    _action("deal"),
    _action("deal", dealer=SEATS),
    _action("undo"),
    _action("end", reason=st.one_of(st.text(max_size=20), VALUES)),
    _action(
        "adjust", **{"from": ACCOUNTS, "to": ACCOUNTS, "amount": st.one_of(st.integers(-2, 200), VALUES)}
    ),
    JUNK,
)


def _random_actions(arguments: dict[str, Any], data: st.DataObject) -> None:
    game = play(arguments)
    stops = list(states_before_batches(game))
    position = data.draw(st.integers(0, len(stops) - 1), label="position")
    state, _ = stops[position]
    log = list(game.events[: 1 + sum(len(execute(s, b)[1]) for s, b in stops[:position] if b is not None)])
    assert state_view(replay(log)) == state_view(state)
    actions = data.draw(st.lists(ACTIONS, min_size=1, max_size=3), label="actions")
    before = snapshot(state)
    try:
        after, events = execute(state, actions)
    except LedgerError as refusal:
        event(f"refused: {refusal.code}")
        assert refusal.code and said(refusal)
        assert snapshot(state) == before
        return
    event(f"accepted: {' '.join(str(a.get('type')) for a in actions)}")
    assert snapshot(state) == before
    check_log(log + events, after)


@scaled
@WHOLE_GAMES
@given(GAMES, st.data())
def test_random_actions_are_refused_with_a_code_or_keep_the_invariants(
    arguments: dict[str, Any], data: st.DataObject
) -> None:
    _random_actions(arguments, data)

