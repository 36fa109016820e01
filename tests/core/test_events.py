"""Events and the fold: the stored form, upcasting of old versions, a log's first event."""

from __future__ import annotations

import pytest

from nj_ledger import Event, apply, event_from_dict, fold, new_game, replay
from nj_ledger import events as events_module
from nj_ledger.events import SCHEMA_VERSION, register_upcaster, upcast


def test_an_event_has_a_stored_form() -> None:
    event = Event("pass", {"seat": 2, "inferred": True}, 3)
    assert event.to_dict() == {
        "type": "pass",
        "deal": 3,
        "data": {"seat": 2, "inferred": True},
        "v": SCHEMA_VERSION,
    }
    assert event_from_dict(event.to_dict()) == event
    assert event_from_dict({"type": "end", "data": {"reason": ""}}) == Event("end", {"reason": ""}, 0)


def test_an_event_cannot_be_changed() -> None:
    event = Event("pass", {"seat": 2}, 3)
    for name, value in (("type", "play"), ("deal", 4), ("v", 2), ("data", {})):
        with pytest.raises(AttributeError):
            setattr(event, name, value)
    assert event == Event("pass", {"seat": 2}, 3, SCHEMA_VERSION)


def test_table_actions_and_ledger_events() -> None:
    assert Event("pass", {"seat": 1}).is_table_action
    assert not Event("pass", {"seat": 1, "inferred": True}).is_table_action
    assert all(
        Event(kind, {}).is_table_action for kind in ("deal", "play", "reveal", "undo", "adjust", "end")
    )
    assert not any(
        Event(kind, {}).is_table_action for kind in ("game_started", "transfer", "deal_ended", "game_ended")
    )


def test_old_versions_are_upcast_step_by_step_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events_module, "UPCASTERS", {})
    monkeypatch.setattr(events_module, "SCHEMA_VERSION", 3)

    @register_upcaster("transfer", 1)
    def rename(data: dict) -> dict:
        data["amount"] = data.pop("chips")
        return data

    @register_upcaster("transfer", 2)
    def default_reason(data: dict) -> dict:
        return {"reason": "payment", **data}

    stored = {"type": "transfer", "deal": 1, "v": 1, "data": {"from": "seat:1", "to": "seat:0", "chips": 4}}
    event = event_from_dict(stored)
    assert event.v == 3
    assert event.data == {"from": "seat:1", "to": "seat:0", "amount": 4, "reason": "payment"}
    assert stored["data"] == {"from": "seat:1", "to": "seat:0", "chips": 4}  # the stored row is not rewritten
    with pytest.raises(ValueError):
        upcast("deal", {}, 1)


def test_a_log_starts_with_game_started() -> None:
    with pytest.raises(ValueError):
        replay([])
    with pytest.raises(ValueError):
        fold(None, Event("deal", {"dealer": 0}, 1))
    started = new_game(["Ana", "Ben"], "classic", 50)
    state = apply(None, started)
    assert state.version == 1 and state.status == "ready"
    dealt = apply(state, Event("deal", {"dealer": 1}, 1))
    assert state.status == "ready" and dealt.status == "playing" and dealt.version == 2
