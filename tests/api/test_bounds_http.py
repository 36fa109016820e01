"""Bounded numbers and deals over HTTP, on SQLite and PostgreSQL: a number past its range is a 422 naming the
field and stores nothing; a game played to the bounds is stored, read back as integers, and audits clean."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from core.test_bounds import DOUBLING_RULES, adjustments, doubling_deal, numbers, replay_bomb
from flask.testing import FlaskClient

from nj_ledger.bounds import MAX_CHIPS, MAX_DEAL_EVENTS, MAX_GAME_EVENTS
from nj_ledger.store import Store
from support.http import Calls, Club, assert_problem

FR = {"Accept-Language": "fr-FR,fr;q=0.9"}
PLAYERS = ["Ana", "Ben", "Chloé"]


def games_of(client: FlaskClient, club: Club) -> list[dict[str, Any]]:
    answer = client.get(f"/api/v1/clubs/{club.id}/games", headers=club.auth)
    assert answer.status_code == 200
    return list(answer.json["games"])


def document(**changes: Any) -> dict[str, Any]:
    return {"format": "nj-ledger/game", "version": 1, "players": PLAYERS, "rules": "classic",
            "starting_chips": 60, "actions": [], **changes}


@pytest.mark.parametrize("body, code, field", [
    ({"rules": {"profile": "classic", "max_deals": 10**30}}, "invalid-rules", "rules.max_deals"),
    ({"rules": {"profile": "classic", "stake_unit": 10**18}}, "invalid-rules", "rules.stake_unit"),
    ({"rules": {"profile": "classic", "point_value": 1_001}}, "invalid-rules", "rules.point_value"),
    ({"rules": {"profile": "avantcoureur-1760", "hoc_reward": 5_000}}, "invalid-rules", "rules.hoc_reward"),
    ({"rules": {"profile": "classic", "board": {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 10**6}}},
     "invalid-rules", "rules.board.7D"),
    ({"rules": {"profile": "classic", "players": {"min": 2, "max": 10**12}}}, "invalid-rules",
     "rules.players.max"),
    ({"starting_chips": 10**9 + 1}, "invalid-chips", "starting_chips"),
    ({"starting_chips": 10**30}, "invalid-chips", "starting_chips"),
])
def test_a_new_game_with_a_number_past_its_range_is_422_naming_the_field(
        client: FlaskClient, club: Club, body: dict[str, Any], code: str, field: str) -> None:
    new = {"players": PLAYERS, "rules": "classic", "starting_chips": 60, **body}
    answer = client.post(f"/api/v1/clubs/{club.id}/games", json=new, headers=club.auth)
    problem = assert_problem(answer, 422, code)
    assert problem["field"] == field
    assert field.split(".")[1 if field.startswith("rules.") else 0] in problem["detail"]  # named there too
    in_french = client.post(f"/api/v1/clubs/{club.id}/games", json=new, headers={**club.auth, **FR})
    french = assert_problem(in_french, 422, code)
    assert french["field"] == field and french["detail"] != problem["detail"]
    assert games_of(client, club) == []


def test_an_adjustment_past_a_billion_chips_is_422_naming_the_field(calls: Calls, club: Club) -> None:
    game = calls.game(club, rules={"profile": "classic", "shortfall": "negative"})
    before = calls.events(club, game["id"])
    adjust = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 10**9 + 1}
    answer = calls.act(club, game["id"], adjust)
    problem = assert_problem(answer, 422, "invalid-amount")
    assert problem["index"] == 0 and problem["field"].endswith("amount")
    assert problem["detail"] == (
        "amount must be a whole number of chips from 1 to 1,000,000,000, not 1000000001.")
    assert calls.events(club, game["id"]) == before


def test_the_replay_bomb_import_is_refused_and_stores_nothing(client: FlaskClient, club: Club) -> None:
    """26,500 plays each withdrawn again, in one deal: a 2 MB document, refused at the deal's bound."""
    body = orjson.dumps(document(actions=replay_bomb(26_500)))
    assert 1_500_000 < len(body) < 2 * 1024 * 1024
    answer = client.post(f"/api/v1/clubs/{club.id}/imports", data=body, content_type="application/json",
                         headers=club.auth)
    problem = assert_problem(answer, 422, "deal-too-long")
    assert problem["index"] < MAX_DEAL_EVENTS
    assert problem["detail"].startswith(f"Deal 1 would hold {MAX_DEAL_EVENTS + 1} events")
    french = client.post(f"/api/v1/clubs/{club.id}/imports", data=body, content_type="application/json",
                         headers={**club.auth, **FR})
    assert assert_problem(french, 422, "deal-too-long")["detail"].startswith("La donne 1 compterait")
    assert games_of(client, club) == []


def test_the_replay_bomb_sent_as_actions_stops_at_the_bound(calls: Calls, club: Club) -> None:
    game = calls.game(club)
    bomb = replay_bomb(600)
    assert calls.act(club, game["id"], *bomb[:900]).status_code == 201  # 900 actions: 16 + 899 events
    before = calls.events(club, game["id"])
    problem = assert_problem(calls.act(club, game["id"], *bomb[900:]), 422, "deal-too-long")
    assert problem["index"] == MAX_DEAL_EVENTS - (16 + 899)  # the action that would be the deal's 1,001st
    assert calls.events(club, game["id"]) == before


def test_a_game_at_its_bound_of_events_refuses_more_and_may_still_end(store: Store, client: FlaskClient,
                                                                       calls: Calls, club: Club) -> None:
    """The attack made a game of 120,017 events with adjustments before its first deal; now a game holds at most
    MAX_GAME_EVENTS (written here through the store, a batch of 5,000 adjustments at a time)."""
    game = calls.game(club)["id"]
    for start in range(0, 24_999, 5_000):
        store.games.append(club.id, game, adjustments(min(5_000, 24_999 - start)))
    assert client.get(f"/api/v1/games/{game}", headers=club.auth).json["version"] == MAX_GAME_EVENTS - 1
    for action, count in (({"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1}, MAX_GAME_EVENTS + 1),
                          ({"type": "deal"}, MAX_GAME_EVENTS - 1)):
        problem = assert_problem(calls.act(club, game, action), 422, "game-too-long")
        assert problem["index"] == 0 and str(count) in problem["detail"]
        french = assert_problem(calls.act(club, game, action, headers=FR), 422, "game-too-long")
        assert french["detail"].startswith("La partie compte" if action["type"] == "deal" else "La partie compterait")
    ended = calls.act(club, game, {"type": "end", "reason": "time to go home"})
    assert ended.status_code == 201 and ended.json["state"]["version"] == MAX_GAME_EVENTS + 1


def test_a_document_past_the_events_of_a_game_is_refused_and_stores_nothing(client: FlaskClient, club: Club,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the events a game brought whole may hold (MAX_DOCUMENT_EVENTS, made small here: a document of a million
    events is the benchmarks')."""
    for module in ("nj_ledger.exchange", "nj_ledger.store.streaming"):
        monkeypatch.setattr(f"{module}.MAX_DOCUMENT_EVENTS", MAX_GAME_EVENTS)
    body = orjson.dumps(document(actions=adjustments(25_000)))
    assert len(body) < 2 * 1024 * 1024
    answer = client.post(f"/api/v1/clubs/{club.id}/imports", data=body, content_type="application/json",
                         headers=club.auth)
    problem = assert_problem(answer, 422, "game-too-long")
    assert problem["index"] == 24_999
    assert games_of(client, club) == []


def test_a_document_with_a_rule_number_past_its_range_is_422_naming_it(client: FlaskClient,
                                                                       club: Club) -> None:
    answer = client.post(f"/api/v1/clubs/{club.id}/imports", headers=club.auth,
                         json=document(rules={"profile": "classic", "stake_unit": 10**18}))
    problem = assert_problem(answer, 422, "invalid-document")
    assert problem["field"] == "rules.stake_unit"
    assert problem["detail"].startswith("rules.stake_unit: Rule option 'stake_unit' must be a whole number")
    assert games_of(client, club) == []


@pytest.mark.parametrize("record", [
    '[Players "Ana; Ben"]\n[StartingChips "' + "9" * 5000 + '"]\n',
    '[Players "Ana; Ben"]\n[StartingChips "60"]\nDeal\nAdjust ' + "9" * 5000 + " from 0 to 1\n",
])
def test_an_njn_number_too_long_to_read_is_422_at_its_line(client: FlaskClient, club: Club,
                                                            record: str) -> None:
    answer = client.post(f"/api/v1/clubs/{club.id}/imports", data=record.encode(), content_type="text/x-njn",
                         headers=club.auth)
    problem = assert_problem(answer, 422, "invalid-notation")
    assert problem["errors"][0]["message"].endswith(
        "is too large a number for a record: it has at most 13 digits.")
    assert games_of(client, club) == []


def test_a_game_played_to_the_bound_of_chips_is_stored_read_back_as_integers_and_audits_clean(
        client: FlaskClient, calls: Calls, club: Club) -> None:
    """Bêtes doubling the boxes every deal until the bound refuses a deal; then the table ends the game."""
    game = calls.game(club, players=["Ana", "Ben"], rules=DOUBLING_RULES, starting_chips=10**9)
    refused = None
    for _ in range(100):
        dealer = client.get(f"/api/v1/games/{game['id']}", headers=club.auth).json["next_dealer"]
        answer = calls.act(club, game["id"], *doubling_deal(dealer))
        if answer.status_code != 201:
            refused = assert_problem(answer, 422, "chips-out-of-range")
            break
    assert refused is not None and "holds at most 1000000000000" in refused["detail"]
    assert calls.act(club, game["id"], {"type": "end", "reason": "the bound"}).status_code == 201
    events = all_events(client, club, game["id"])
    found = [number for event in events for number in numbers(event["data"])]
    assert all(isinstance(number, int) for number in found)
    assert max(abs(number) for number in found) <= MAX_CHIPS
    standings = events[-1]["data"]["standings"]
    assert MAX_CHIPS // 2 < max(abs(row["chips"]) for row in standings) <= MAX_CHIPS
    audit = client.get(f"/api/v1/games/{game['id']}/audit", headers=club.auth).json
    assert audit["chain"]["ok"] and audit["conservation"]["ok"] and audit["ok"], audit["findings"]


def all_events(client: FlaskClient, club: Club, game: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while True:
        answer = client.get(f"/api/v1/games/{game}/events?after={len(events)}&limit=1000", headers=club.auth)
        assert answer.status_code == 200
        page = orjson.loads(answer.data)["events"]  # read as orjson reads: integers, never floats
        if not page:
            return events
        events.extend(page)
