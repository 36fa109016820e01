"""Undo then redo, anywhere in a simulated game, is as if nothing had been undone (hypothesis).

At random points of a game — right after a deal's settlement most of all, the game's end
included — a few undos withdraw the latest actions, then the ``redo`` the state offers is sent
as many times. Each undo keeps the chips conserved and gives back exactly what was withdrawn;
after the redos balances, boxes and the whole state are those of the game never undone, and the
game goes on the same. The log replays to the state built, and its audit (recomputation
included) is clean.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from api.views import state_view
from nj_ledger import GameState, execute, replay
from nj_ledger.audit import audit
from nj_ledger.events import Event
from nj_ledger.simulator import simulate
from support.scale import examples, scaled

from .chained import chained_records
from .helpers import PROFILE_NAMES, check_log

GAMES: st.SearchStrategy[dict[str, Any]] = st.builds(
    dict,
    seed=st.integers(0, 2**32 - 1),
    profile=st.sampled_from(PROFILE_NAMES),
    players=st.integers(2, 6),
    info=st.sampled_from(["full", "partial"]),
    deals=st.integers(1, 3),
    chatter=st.sampled_from([0.0, 1.0]),
    by_count=st.sampled_from([0.0, 0.5]),  # with partial information, some hands told by count
)


def seen(state: GameState) -> dict[str, Any]:
    """The state as the API shows it, without the version (undos and redos add events)."""
    return {key: value for key, value in state_view(state).items() if key != "version"}


def chips(state: GameState) -> int:
    return sum(state.balances) + sum(state.boxes)


def undo_and_redo(state: GameState, times: int, log: list[Event]) -> GameState:
    """``times`` undos (as many as the deal allows), then as many redos; checked on the way."""
    withdrawn: list[dict[str, Any]] = []
    redos_before = state.redo_action()  # a batch may be an undo of the game's own
    for _ in range(times):
        what = state.undoable()
        if what is None:
            break
        ended_before, played_before = state.status == "ended", state.deals_played
        state, events = execute(state, [{"type": "undo", "reason": "property"}])
        log.extend(events)
        assert chips(state) == state.total_chips
        redo = state.redo_action()
        assert redo is not None and (redo["type"], redo["seat"]) == (what["type"], what["seat"])
        withdrawn.append(redo)
        if what["withdraws_settlement"]:
            assert state.status in ("playing", "revealing") and state.deals_played == played_before - 1
            assert state.result is None
        else:
            assert not ended_before and state.deals_played == played_before
    for action in reversed(withdrawn):
        assert state.redo_action() == action
        state, events = execute(state, [action])
        log.extend(events)
        assert chips(state) == state.total_chips
    assert state.redo_action() == redos_before
    return state


@scaled
@examples(30, 400)
@given(GAMES, st.data())
def test_undo_then_redo_anywhere_leaves_the_game_as_never_undone(arguments: dict[str, Any],
                                                                 data: st.DataObject) -> None:
    game = simulate(**arguments)
    original = replay(game.events[:1])
    state = replay(game.events[:1])
    log: list[Event] = list(game.events[:1])
    settlements, ended_undone = 0, False
    for batch in game.batches:
        original, _ = execute(original, batch)
        state, events = execute(state, batch)
        log.extend(events)
        assert seen(state) == seen(original)
        what = state.undoable()
        if what is None:
            continue
        settled = what["withdraws_settlement"]
        settlements += settled
        ended_undone = ended_undone or (settled and state.status == "ended")
        times = data.draw(st.integers(1, 3) if settled else st.integers(0, 2), label="undos")
        state = undo_and_redo(state, times, log)
        assert state.balances == original.balances and state.boxes == original.boxes
        assert seen(state) == seen(original)
    assert state.status == original.status == "ended"
    event(f"settlements undone: {min(settlements, 3)}" + (" (the game's end too)" if ended_undone else ""))
    check_log(log, state)  # conserved at every event, and the replay is the state built
    report = audit(chained_records(log))
    assert report["ok"], report["findings"][:3]
    assert report["recomputation"]["ok"] and report["conservation"]["checked"] == len(log)
