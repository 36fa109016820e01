"""The games in ``examples/``: each loads, replays and audits clean; together they show every feature."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nj_ledger import Event, GameState, replay
from nj_ledger.audit import audit
from nj_ledger.exchange import document_meta, load_game, write_game_document

from .chained import chained_records
from .helpers import PROFILE_NAMES, check_log, snapshot

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PATHS = sorted(EXAMPLES.glob("*.json"))

# What each game's notes tell, checked against its events.
EXPECTED = {
    "dimanche-chez-jeanne": {
        "profile": "classic", "ends": "shortfall", "features": {"bete", "forgotten", "shortfall"},
    },
    "club-de-quimper": {"profile": "cards", "ends": "agreed", "features": {"undo", "grand_opera", "bete"}},
    "paques-chez-rene": {"profile": "skip", "ends": "max_deals", "features": {"undo", "forgotten", "bete"}},
    "jour-de-l-an-au-chalet": {"profile": "hearts", "ends": "cannot_ante", "features": {"forgotten"}},
    "avantcoureur-1760-lorraine": {
        "profile": "avantcoureur-1760", "ends": "agreed", "features": {"bete", "forgotten", "undo"},
    },
}


def load(path: Path) -> tuple[dict[str, Any], list[Event], GameState]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    events, state = load_game(doc)
    return doc, events, state


def features(events: list[Event]) -> set[str]:
    """The notable things that happened in a game, read from its events."""
    board = events[0].data["rules"]["board"]
    found: set[str] = set()
    for event in events:
        data = event.data
        if event.type == "deal_ended":
            if data["grand_opera"]:
                found.add("grand_opera")
            if data["betes"]:
                found.add("bete")
            if data["shortfalls"]:
                found.add("shortfall")
        elif event.type == "play" and any(c in board and c not in data["announced"] for c in data["cards"]):
            found.add("forgotten")
        elif event.type == "undo":
            found.add("undo")
    return found


def deal_kinds(events: list[Event]) -> set[str]:
    return {"full" if e.data.get("hands") else "partial" for e in events if e.type == "deal"}


def test_the_examples_are_the_games_described() -> None:
    assert {path.stem for path in PATHS} == set(EXPECTED)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_example_loads_replays_and_conserves_chips(path: Path) -> None:
    _, events, state = load(path)
    check_log(events, state)  # chips conserved at every event, replay equals the executed state
    assert snapshot(replay(events)) == snapshot(state)
    assert state.status == "ended"
    assert state.deals_played >= 3
    assert sum(1 for e in events if e.type == "deal_ended") == state.deals_played


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_example_audits_clean(path: Path) -> None:
    _, events, _ = load(path)
    report = audit(chained_records(events))
    assert report["ok"], report["findings"]
    assert report["chain"]["ok"] and report["conservation"]["ok"] and report["recomputation"]["ok"]
    assert not [f for f in report["findings"] if f.severity == "error"]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_example_is_a_documented_table_game(path: Path) -> None:
    doc, events, state = load(path)
    meta = document_meta(doc)
    assert set(meta) == {"title", "date", "table", "notes"}
    for number in range(1, state.deals_played + 1):
        assert f"Deal {number} " in meta["notes"]
    assert 60 <= doc["starting_chips"] <= 120
    assert deal_kinds(events) == {"full", "partial"}
    players = doc["players"]
    assert all(name.isalpha() and name[0].isupper() for name in players)
    assert any(e.type == "play" and e.data["announced"] for e in events)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_example_shows_what_its_notes_tell(path: Path) -> None:
    expected = EXPECTED[path.stem]
    _, events, state = load(path)
    assert events[0].data["rules"]["profile"] == expected["profile"]
    assert state.result is not None and state.result["reason"] == expected["ends"]
    assert features(events) == expected["features"]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_example_exports_and_imports_to_the_same_log(path: Path) -> None:
    doc, events, _ = load(path)
    exported = write_game_document(chained_records(events), document_meta(doc))
    assert load_game(json.loads(json.dumps(exported, ensure_ascii=False)))[0] == events


def test_the_examples_cover_every_profile_and_feature() -> None:
    games = [load(path)[1] for path in PATHS]
    assert {g[0].data["rules"]["profile"] for g in games} >= set(PROFILE_NAMES)
    assert set().union(*map(features, games)) >= {"grand_opera", "bete", "forgotten", "undo", "shortfall"}
    for game in games:
        if game[-1].data["reason"] == "shortfall":
            last_deal = [e for e in game if e.type == "deal_ended"][-1]
            assert last_deal.data["shortfalls"]
            break
    else:
        pytest.fail("no example ends in a shortfall")
