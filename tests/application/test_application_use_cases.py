"""The use cases the API and the command line share: what they return and what they refuse, on both databases."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from nj_ledger.application import (
    DealNotSettled,
    GameFilter,
    NoSuchDeal,
    NoSuchStep,
    current_game,
    deal_analysis,
    folded,
    idempotent_request,
    list_games,
    receipt_of,
    record_actions,
    records_page,
    replay_segment,
    settled_deal,
    start_game,
)
from nj_ledger.errors import LedgerError
from nj_ledger.store import Appended, ClubInfo, LogDamaged, NotFound, Store, StoredResponse, VersionConflict
from nj_ledger.store.documents import import_document

PLAYERS = ["Ana", "Ben", "Chloé"]


def imported(store: Store, club: ClubInfo, document: dict[str, Any], actions: int) -> str:
    return import_document(store.games, club.id, {**document, "actions": document["actions"][:actions]}).game.id


def test_a_game_started_keeps_its_title_trimmed_and_its_day(store: Store, club: ClubInfo) -> None:
    created = start_game(store, club.id, PLAYERS, "classic", 60, 1, title="  Jeudi  ", played_on=date(2026, 11, 24))
    assert created.game.meta == {"title": "Jeudi", "date": "2026-11-24"}
    assert list(created.state.players) == PLAYERS and created.receipt is not None
    untitled = start_game(store, club.id, PLAYERS, "classic", 60, title="   ")
    assert untitled.game.meta == {} and untitled.game.played_on == created.game.created_at.date()


def test_a_game_the_core_refuses_is_not_stored(store: Store, club: ClubInfo) -> None:
    with pytest.raises(LedgerError):
        start_game(store, club.id, ["Ana"], "classic", 60)
    assert list_games(store, club.id, GameFilter(), 10, 0).items == []


def test_actions_are_recorded_and_a_stale_version_is_refused(store: Store, club: ClubInfo) -> None:
    game = start_game(store, club.id, PLAYERS, "classic", 60).game.id
    appended = record_actions(store, club.id, game, [{"type": "deal"}], expected_version=1)
    assert isinstance(appended, Appended) and appended.state.status == "playing"
    assert current_game(store, club.id, game).game.version == appended.game.version
    with pytest.raises(VersionConflict):
        record_actions(store, club.id, game, [{"type": "undo"}], expected_version=1)


def test_an_idempotent_batch_answers_its_retry_as_first_answered(store: Store, club: ClubInfo) -> None:
    game = start_game(store, club.id, PLAYERS, "classic", 60).game.id
    payload = {"actions": [{"type": "deal"}]}
    key = idempotent_request("k-1", game, payload)
    assert key is not None and key == idempotent_request("k-1", game, dict(payload))
    assert idempotent_request(None, game, payload) is None
    assert key.fingerprint != idempotent_request("k-1", "another", payload).fingerprint
    first = record_actions(store, club.id, game, payload["actions"], idempotency=key,
                           respond=lambda info, state, records, receipt: (201, {"version": info.version}))
    assert isinstance(first, Appended)
    again = record_actions(store, club.id, game, payload["actions"], idempotency=key)
    assert again == StoredResponse(201, {"version": first.game.version})
    assert current_game(store, club.id, game).game.version == first.game.version


def test_a_refusal_sent_with_a_key_is_kept_for_its_retry(store: Store, club: ClubInfo) -> None:
    game = start_game(store, club.id, PLAYERS, "classic", 60).game.id
    refused = [{"type": "play", "seat": 0, "cards": ["5H"]}]  # nothing dealt yet
    key = idempotent_request("k-2", game, {"actions": refused})
    with pytest.raises(LedgerError) as caught:
        record_actions(store, club.id, game, refused, idempotency=key,
                       refused=lambda refusal: (422, {"code": refusal.code}))
    assert record_actions(store, club.id, game, refused, idempotency=key) == StoredResponse(
        422, {"code": caught.value.code})


def test_reads_of_a_game_its_state_receipt_log_and_list(store: Store, club: ClubInfo,
                                                         document: dict[str, Any]) -> None:
    game = imported(store, club, document, 22)
    current = current_game(store, club.id, game)
    assert receipt_of(store, club.id, current)["version"] == current.game.version
    page = records_page(store, club.id, game, 0, 5)
    assert [r["seq"] for r in page.records] == [1, 2, 3, 4, 5]
    assert (page.version, page.last, page.more) == (current.game.version, 5, True)
    end = records_page(store, club.id, game, current.game.version - 2, 5)
    assert (end.last, end.more) == (current.game.version, False)
    assert records_page(store, club.id, game, current.game.version, 5).records == []
    other = store.clubs.create_club("Another")[0]
    with pytest.raises(NotFound):
        current_game(store, other.id, game)
    start_game(store, club.id, PLAYERS, "classic", 60, title="Jeudi", played_on=date(2026, 11, 26))
    assert len(list_games(store, club.id, GameFilter(), 10, 0).items) == 2
    first = list_games(store, club.id, GameFilter(), 1, 0)
    assert len(first.items) == 1 and first.more
    titled = list_games(store, club.id, GameFilter(title="jeu", played_from=date(2026, 11, 26)), 10, 0)
    assert [g.meta.get("title") for g in titled.items] == ["Jeudi"] and not titled.more
    assert list_games(store, other.id, GameFilter(), 10, 0).items == []


def test_a_deal_to_replay_and_its_steps(store: Store, club: ClubInfo, document: dict[str, Any]) -> None:
    game = imported(store, club, document, 23)
    state, records = replay_segment(store, club.id, game, 1)
    first, last = records[0]["seq"] - 1, records[-1]["seq"]
    assert state.deal is None or not state.deal.ended
    assert replay_segment(store, club.id, game, 1, first)[1] == records
    with pytest.raises(NoSuchStep) as caught:
        replay_segment(store, club.id, game, 1, last + 1)
    assert caught.value.said.params == {"number": 1, "first": first, "last": last, "at": last + 1}
    with pytest.raises(NoSuchDeal) as missing:
        replay_segment(store, club.id, game, 3)
    assert missing.value.code == "not-found" and missing.value.said.template == "Game {game!r} has no deal {number}."


def test_the_deal_to_analyse_is_settled_and_found_with_its_kept_analysis(store: Store, club: ClubInfo,
                                                                          document: dict[str, Any]) -> None:
    game = imported(store, club, document, 23)
    deal = settled_deal(store, club.id, game, 1)
    assert [seq for seq, _ in deal.events] == [r["seq"] for r in deal.records]
    assert deal.head == {"seq": deal.records[-1]["seq"], "hash": deal.records[-1]["hash"]}
    assert deal.key == (game, 1, deal.head["seq"], deal.head["hash"])
    found = deal_analysis(store, club.id, game, 1)
    assert found.kept is None and found.deal.records == deal.records and found.deal.key == deal.key
    store.analyses.keep_deal_analysis(*deal.key, {"status": "done", "from_seq": deal.records[0]["seq"]})
    assert deal_analysis(store, club.id, game, 1).kept == {"status": "done", "from_seq": deal.records[0]["seq"]}
    with pytest.raises(DealNotSettled) as unsettled:
        settled_deal(store, club.id, game, 2)
    assert unsettled.value.code == "deal-not-settled" and unsettled.value.params == {"number": 2}
    with pytest.raises(NoSuchDeal):
        deal_analysis(store, club.id, game, 3)


def test_events_that_cannot_be_folded_are_the_logs_damage(store: Store, club: ClubInfo,
                                                          document: dict[str, Any]) -> None:
    game = imported(store, club, document, 22)
    start, _ = replay_segment(store, club.id, game, 1)
    with pytest.raises(LogDamaged) as damaged:
        folded(game, 1, start, ["not an event"])
    assert damaged.value.params == {"game": game, "number": 1}
