"""The JSON game document: reading, writing, and executing what a document records."""

from __future__ import annotations

import json
from typing import Any

import pytest

from nj_ledger import InvalidInput, LedgerError, new_game, replay
from nj_ledger.exchange import load_game, read_game_document, write_game_document
from nj_ledger.simulator import simulate
from support.sentences import said

from .chained import chained_records
from .helpers import PROFILE_NAMES, snapshot

DROP = object()  # a field to leave out of the document


def document(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"],
        "rules": "classic", "starting_chips": 60, "actions": [],
    }
    doc.update(changes)
    return {key: value for key, value in doc.items() if value is not DROP}


# --- round trip ----------------------------------------------------------------------------------
@pytest.mark.parametrize("info", ["full", "partial"])
@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_written_document_replays_to_the_same_events(profile: str, info: str, seed: int) -> None:
    game = simulate(seed=seed, profile=profile, info=info, deals=6)
    records = chained_records(game.events)
    meta = {"title": f"{profile} {info} {seed}", "date": "2026-01-18", "table": "Table 1", "notes": "Deal 1…"}
    doc = json.loads(json.dumps(write_game_document(records, meta), ensure_ascii=False))

    started, actions = read_game_document(doc)
    assert started == game.events[0]
    assert actions == [{"type": e.type, **e.data} for e in game.events if e.is_table_action]
    assert not any(a["type"] == "pass" and a.get("inferred") for a in actions)

    events, state = load_game(doc)
    assert events == game.events
    assert snapshot(state) == snapshot(game.state)
    assert doc["events"] == records
    assert {key: doc[key] for key in meta} == meta


def test_document_lists_explicit_passes_undos_and_adjustments_but_not_inferred_passes() -> None:
    games = [simulate(seed=seed, profile=p, info="partial", deals=8)
             for seed in range(6) for p in PROFILE_NAMES]
    kinds: dict[str, int] = {}
    for game in games:
        doc = write_game_document(chained_records(game.events))
        for action in doc["actions"]:
            kinds[action["type"]] = kinds.get(action["type"], 0) + 1
        explicit = [e for e in game.events if e.type == "pass" and not e.data.get("inferred")]
        passes = [a for a in doc["actions"] if a["type"] == "pass"]
        assert passes == [{"type": "pass", **e.data} for e in explicit]
        assert load_game(doc)[0] == game.events
    inferred = sum(1 for g in games for e in g.events if e.type == "pass" and e.data.get("inferred"))
    assert inferred > 0
    assert {"deal", "play", "pass", "reveal", "undo", "adjust", "end"} <= set(kinds)


def test_document_of_a_game_just_created() -> None:
    started = new_game(["Ana", "Ben", "Chloé"], {"profile": "cards", "max_deals": 5}, 75, dealer=1)
    doc = write_game_document(chained_records([started]))
    assert doc["format"] == "nj-ledger/game" and doc["version"] == 1
    assert doc["players"] == ["Ana", "Ben", "Chloé"]
    assert doc["starting_chips"] == 75 and doc["dealer"] == 1
    assert doc["rules"]["payment"] == "cards" and doc["rules"]["max_deals"] == 5
    assert doc["actions"] == []
    assert "title" not in doc and "notes" not in doc
    events, state = load_game(doc)
    assert events == [started]
    assert state.status == "ready" and state.next_dealer() == 1


def test_stored_events_are_ignored_on_import() -> None:
    game = simulate(seed=4, profile="classic", deals=2)
    doc = write_game_document(chained_records(game.events))
    doc["events"] = [{"seq": 1, "type": "transfer", "data": {"amount": 10**6}}]
    events, _ = load_game(doc)
    assert events == game.events


def test_write_refuses_a_log_that_does_not_start_the_game() -> None:
    game = simulate(seed=5, profile="classic", deals=1)
    records = chained_records(game.events)
    for broken in ([], records[1:], records + records[:1]):
        with pytest.raises(InvalidInput) as refusal:
            write_game_document(broken)
        assert refusal.value.code == "invalid-document"
        assert refusal.value.params["field"] == "events"


@pytest.mark.parametrize("meta, field", [
    ({"venue": "Angers"}, "venue"),
    ({"date": "18/01/2026"}, "date"),
    ({"title": 12}, "title"),
])
def test_write_refuses_bad_details(meta: dict[str, Any], field: str) -> None:
    started = new_game(["Ana", "Ben"], "classic", 60)
    with pytest.raises(InvalidInput) as refusal:
        write_game_document(chained_records([started]), meta)
    assert refusal.value.code == "invalid-document" and refusal.value.params["field"] == field


# --- reading ----------------------------------------------------------------------------------------
def test_read_returns_the_game_started_event_and_the_actions() -> None:
    actions = [{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["5H"]}]
    started, read = read_game_document(document(rules={"profile": "skip", "max_deals": 3}, dealer=0,
                                                 actions=actions, title="Essai", date="2026-02-28"))
    assert started == new_game(["Ana", "Ben", "Chloé"], {"profile": "skip", "max_deals": 3}, 60, dealer=0)
    assert read == actions
    read[0]["dealer"] = 2
    assert actions[0] == {"type": "deal"}


LONG = "x" * 20_001


@pytest.mark.parametrize("changes, field, cause", [
    ({"format": "nj-ledger/notation"}, "format", None),
    ({"format": DROP}, "format", None),
    ({"version": 2}, "version", None),
    ({"version": "1"}, "version", None),
    ({"version": True}, "version", None),
    ({"version": DROP}, "version", None),
    ({"action": []}, "action", None),
    ({"players": DROP}, "players", None),
    ({"players": "Ana, Ben, Chloé"}, "players", None),
    ({"players": ["Ana", 2, "Chloé"]}, "players", None),
    ({"players": ["Ana", "Ben", "ana"]}, "players", "invalid-players"),
    ({"players": ["Ana"]}, "players", "invalid-players"),
    ({"players": ["Ana", ""]}, "players", "invalid-players"),
    ({"rules": DROP}, "rules", None),
    ({"rules": 5}, "rules", None),
    ({"rules": "poker"}, "rules", "invalid-rules"),
    ({"rules": {"profile": "classic", "payment": "gold"}}, "rules", "invalid-rules"),
    ({"rules": {"profile": "hearts", "colour": "red"}}, "rules", "invalid-rules"),
    ({"starting_chips": DROP}, "starting_chips", None),
    ({"starting_chips": "60"}, "starting_chips", None),
    ({"starting_chips": 60.0}, "starting_chips", None),
    ({"starting_chips": True}, "starting_chips", None),
    ({"starting_chips": 0}, "starting_chips", "invalid-chips"),
    ({"starting_chips": 10}, "starting_chips", "starting-chips-too-low"),
    ({"dealer": 3}, "dealer", None),
    ({"dealer": -1}, "dealer", None),
    ({"dealer": "0"}, "dealer", None),
    ({"dealer": False}, "dealer", None),
    ({"actions": DROP}, "actions", None),
    ({"actions": {"type": "deal"}}, "actions", None),
    ({"actions": [{"type": "deal"}, "play 0 5H"]}, "actions[1]", None),
    ({"actions": [{"seat": 0, "cards": ["5H"]}]}, "actions[0]", None),
    ({"actions": [{"type": 4}]}, "actions[0]", None),
    ({"title": ["Dimanche"]}, "title", None),
    ({"table": 7}, "table", None),
    ({"notes": LONG}, "notes", None),
    ({"date": "18/01/2026"}, "date", None),
    ({"date": "2026-02-30"}, "date", None),
    ({"date": "2026-1-8"}, "date", None),
    ({"events": "none"}, "events", None),
])
def test_broken_documents_are_refused_naming_the_field(
    changes: dict[str, Any], field: str, cause: str | None
) -> None:
    with pytest.raises(InvalidInput) as refusal:
        read_game_document(document(**changes))
    error = refusal.value
    assert error.code == "invalid-document"
    assert error.params["field"] == field
    assert said(error).startswith(f"{field}: ")
    assert error.params.get("cause") == cause
    with pytest.raises(InvalidInput):
        load_game(document(**changes))


@pytest.mark.parametrize("doc", [None, [], "nj-ledger/game", 42])
def test_a_document_is_an_object(doc: Any) -> None:
    with pytest.raises(InvalidInput) as refusal:
        read_game_document(doc)
    assert refusal.value.code == "invalid-document"


# --- loading --------------------------------------------------------------------------------------------
def test_load_executes_the_actions() -> None:
    doc = document(actions=[{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["5H", "6C"]}])
    events, state = load_game(doc)
    assert events[0].type == "game_started"
    assert [e.type for e in events].count("transfer") == 15
    assert events[-1].type == "play" and events[-1].data["cards"] == ["5H", "6C"]
    assert snapshot(replay(events)) == snapshot(state)
    assert state.deal is not None and state.deal.turn == 1 and state.deal.expected == 7


DEAL = {"type": "deal"}
PLAY_5H = {"type": "play", "seat": 0, "cards": ["5H"]}


@pytest.mark.parametrize("actions, index, code", [
    ([DEAL, PLAY_5H, {"type": "play", "seat": 1, "cards": ["9C"]}], 2, "out-of-sequence"),
    ([DEAL, PLAY_5H, {"type": "play", "seat": 1, "cards": ["5H"]}], 2, "card-already-played"),
    ([{"type": "play", "seat": 0, "cards": ["5H"]}], 0, "no-deal-in-progress"),
    ([{"type": "deal"}, {"type": "shuffle"}], 1, "invalid-action"),
    ([{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["5X"]}], 1, "invalid-card"),
    ([{"type": "end"}, {"type": "deal"}], 1, "game-ended"),
])
def test_an_illegal_action_is_refused_with_its_index(
    actions: list[dict[str, Any]], index: int, code: str
) -> None:
    with pytest.raises(LedgerError) as refusal:
        load_game(document(actions=actions))
    assert refusal.value.code == code
    assert refusal.value.params["index"] == index


def test_a_refused_document_keeps_the_refusal_of_the_engine_not_of_the_format() -> None:
    game = simulate(seed=6, profile="hearts", info="partial", deals=3)
    doc = write_game_document(chained_records(game.events))
    plays = [i for i, a in enumerate(doc["actions"]) if a["type"] == "play"]
    doc["actions"][plays[3]]["seat"] = 9
    with pytest.raises(LedgerError) as refusal:
        load_game(doc)
    assert refusal.value.code == "unknown-seat"
    assert refusal.value.params["index"] == plays[3]
