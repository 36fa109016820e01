"""The streaming import stores what the in-memory import stores, refuses the same way, and keeps nothing then."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from nj_ledger.audit import audit
from nj_ledger.errors import InvalidInput, RuleViolation
from nj_ledger.simulator import simulate
from nj_ledger.store import ClubInfo, Store
from nj_ledger.store.documents import document_digest, import_document
from nj_ledger.store.streaming import JSONError, import_file, read_header


def game_document(seed: int, deals: int = 3, **extra: Any) -> dict[str, Any]:
    game = simulate(seed, "classic", 4, deals=deals, starting_chips=300)
    return {"format": "nj-ledger/game", "version": 1, "title": "Jeudi", "players": game.players,
            "rules": "classic", "starting_chips": game.starting_chips, "actions": game.actions, **extra}


def as_file(document: dict[str, Any]) -> io.BytesIO:
    return io.BytesIO(json.dumps(document, ensure_ascii=False).encode())


def test_the_streamed_game_has_the_same_log_digest_and_state(store: Store, club: ClubInfo) -> None:
    document = game_document(5, events=[{"seq": 1}])
    whole = import_document(store.games, club.id, document)
    streamed = import_file(store.games, club.id, as_file(document))

    def log(game_id: str) -> list[tuple[Any, ...]]:
        return [(r["seq"], r["deal"], r["type"], r["data"]) for r in store.games.records(club.id, game_id)]

    assert log(streamed.game.id) == log(whole.game.id)
    assert streamed.game.version == whole.game.version and streamed.game.status == whole.game.status
    assert streamed.game.meta == {"title": "Jeudi"} and streamed.state.balances == whole.state.balances
    assert store.games.find_game(club.id, document_digest(document)) in (whole.game.id, streamed.game.id)
    assert audit(store.games.records(club.id, streamed.game.id))["chain"]["ok"]


def test_the_digest_is_the_documents_with_the_header_after_the_actions(store: Store, club: ClubInfo) -> None:
    document = game_document(6, deals=1)
    text = json.dumps({"actions": document["actions"], **{k: v for k, v in document.items() if k != "actions"}})
    game = import_file(store.games, club.id, io.BytesIO(text.encode()))
    assert store.games.find_game(club.id, document_digest(document)) == game.game.id


def test_a_refused_action_names_its_place_and_stores_nothing(store: Store, club: ClubInfo) -> None:
    document = game_document(7)
    bad = len(document["actions"]) - 1
    document["actions"][bad] = {"type": "play", "seat": 0, "cards": ["ZZ"]}
    before = store.clubs.club_counts(club.id)["games"]
    with pytest.raises((InvalidInput, RuleViolation)) as refusal:
        import_file(store.games, club.id, as_file(document))
    assert refusal.value.params["index"] == bad
    assert store.clubs.club_counts(club.id)["games"] == before


def test_malformed_documents_are_refused(store: Store, club: ClubInfo) -> None:
    with pytest.raises(InvalidInput) as refusal:
        import_file(store.games, club.id, as_file({**game_document(8, deals=1), "actions": [{"type": "deal"}, 3]}))
    assert refusal.value.params["field"] == "actions[1]"
    with pytest.raises(InvalidInput):
        import_file(store.games, club.id, as_file({"format": "nj-ledger/game", "version": 1}))
    with pytest.raises(JSONError):
        import_file(store.games, club.id, io.BytesIO(b'{"format": "nj-ledger/game", "actions": [{"type": '))


def test_the_header_skips_the_long_lists() -> None:
    header = read_header(as_file(game_document(9, deals=1, events=[{"seq": 1}, {"seq": 2}])))
    assert header["actions"] == [] and header["events"] == [] and header["players"][0] == "Ana"


def test_replays_start_from_the_deal_starts_and_match_a_full_fold(store: Store, club: ClubInfo) -> None:
    from api.views import state_view
    from nj_ledger.reducer import fold, replay
    from nj_ledger.store.log import event_of

    game = import_file(store.games, club.id, as_file(game_document(10, deals=4))).game
    records = store.games.records(club.id, game.id)
    for deal in (3, 1, 4, 2):
        segment = store.games.deal_segment(club.id, game.id, deal)
        assert segment is not None
        state, steps = segment
        first = steps[0]["seq"]
        expected = replay(event_of(r) for r in records[: first - 1])
        assert state_view(state) == state_view(expected)
        for record in steps:
            fold(state, event_of(record))
        assert state_view(state) == state_view(replay(event_of(r) for r in records[: steps[-1]["seq"]]))
    assert store.games.deal_segment(club.id, game.id, 99) is None
