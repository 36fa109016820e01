"""Replay and audit through the API: a whole deal recorded over HTTP, simulated games, exchange round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.views import state_view
from nj_ledger import replay
from nj_ledger.events import event_from_dict
from nj_ledger.simulator import simulate
from support.http import verified_receipt, without_receipt

AUDIT_FIELDS = {"ok", "transfers", "totals", "conservation", "chain", "checkpoints", "recomputation",
                "corrections", "findings"}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def record_over_http(client, calls, club, seed: int, **options) -> str:
    """Play a simulated game batch by batch through the API, each batch sent with If-Match."""
    game = simulate(seed=seed, **options)
    created = client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth, json={
        "players": game.players, "rules": game.rules.to_dict(), "starting_chips": game.starting_chips})
    assert created.status_code == 201, created.json
    game_id, tag = created.json["id"], created.headers["ETag"]
    for batch in game.batches:
        answer = calls.act(club, game_id, *batch, If_Match=tag)
        assert answer.status_code == 201, answer.json
        tag = answer.headers["ETag"]
    assert tag == f'"{len(game.events)}"'
    return str(game_id)


def test_a_deal_recorded_over_http_is_replayed_step_by_step_and_audits_clean(client, calls, club) -> None:
    game = record_over_http(client, calls, club, seed=21, players=3, deals=1, info="partial")
    records = calls.events(club, game)
    answer = client.get(f"/api/v1/games/{game}/deals/1/replay", headers=club.auth)
    assert answer.status_code == 200
    replayed = answer.json
    assert (replayed["game"], replayed["deal"]) == (game, 1)
    steps = replayed["steps"]
    deal_records = [r for r in records if r["deal"] == 1]
    assert steps[0]["event"] is None and steps[0]["seq"] == deal_records[0]["seq"] - 1
    assert steps[0]["state"]["status"] == "ready" and steps[0]["state"]["id"] == game
    assert [s["event"] for s in steps[1:]] == deal_records
    for step in steps[1:]:
        upto = [event_from_dict(r) for r in records[: step["seq"]]]
        assert step["state"] == {"id": game, "club": club.id, **state_view(replay(upto))}
    assert steps[-1]["state"]["deal"]["winner"] is not None
    report = client.get(f"/api/v1/games/{game}/audit", headers=club.auth).json
    assert set(report) >= AUDIT_FIELDS
    assert report["ok"] and report["chain"] == {"ok": True, "first_bad_seq": None, "checked": len(records)}
    assert report["conservation"]["ok"] and report["recomputation"]["ok"]
    assert [t["seq"] for t in report["transfers"]] == [r["seq"] for r in records if r["type"] == "transfer"]


def test_one_step_of_a_replay(client, calls, club, problem) -> None:
    game = record_over_http(client, calls, club, seed=4, players=4, deals=2)
    full = client.get(f"/api/v1/games/{game}/deals/2/replay", headers=club.auth).json["steps"]
    middle = full[len(full) // 2]
    one = client.get(f"/api/v1/games/{game}/deals/2/replay?at={middle['seq']}", headers=club.auth).json
    assert one["steps"] == [middle]
    start = client.get(f"/api/v1/games/{game}/deals/2/replay?at={full[0]['seq']}", headers=club.auth).json
    assert start["steps"] == [full[0]]
    problem(client.get(f"/api/v1/games/{game}/deals/2/replay?at=1", headers=club.auth), 404, "not-found")
    problem(client.get(f"/api/v1/games/{game}/deals/0/replay", headers=club.auth), 404, "not-found")


@pytest.mark.parametrize(("seed", "profile", "info"), [(1, "classic", "full"), (2, "hearts", "partial"),
                                                       (3, "skip", "partial")])
def test_simulated_games_audit_clean(client, calls, club, seed, profile, info) -> None:
    game = record_over_http(client, calls, club, seed=seed, profile=profile, deals=3, info=info)
    report = client.get(f"/api/v1/games/{game}/audit", headers=club.auth).json
    assert report["ok"], report["findings"]
    assert all(f["severity"] != "error" for f in report["findings"])


def test_export_then_import_gives_the_same_table_actions(client, calls, club) -> None:
    game = record_over_http(client, calls, club, seed=9, players=3, deals=2, info="partial")
    exported = client.get(f"/api/v1/games/{game}/export?format=json", headers=club.auth)
    assert exported.status_code == 200
    document = exported.json
    imported = client.post(f"/api/v1/clubs/{club.id}/imports", json=document, headers=club.auth)
    assert imported.status_code == 201, imported.json
    copy = imported.json["id"]
    assert imported.headers["Location"].endswith(copy) and copy != game
    again = client.get(f"/api/v1/games/{copy}/export", headers=club.auth).json
    assert again["actions"] == document["actions"]
    strip = [{k: r[k] for k in ("seq", "deal", "type", "data")} for r in calls.events(club, game)]
    assert [{k: r[k] for k in ("seq", "deal", "type", "data")} for r in calls.events(club, copy)] == strip
    original_state = client.get(f"/api/v1/games/{game}", headers=club.auth).json
    assert without_receipt(imported.json) == {**without_receipt(original_state), "id": copy}
    verified_receipt(client, imported.json, copy, original_state["version"])


def test_an_unknown_export_format_is_refused(client, calls, club, problem) -> None:
    game = calls.game(club)["id"]
    problem(client.get(f"/api/v1/games/{game}/export?format=xml", headers=club.auth), 422, "invalid-request")


def test_an_import_with_a_refused_action_stores_nothing(client, club, problem) -> None:
    document = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"], "rules": "classic",
                "starting_chips": 60, "actions": [{"type": "deal"}, {"type": "deal"}]}
    body = problem(client.post(f"/api/v1/clubs/{club.id}/imports", json=document, headers=club.auth),
                   422, "deal-in-progress")
    assert body["index"] == 1
    problem(client.post(f"/api/v1/clubs/{club.id}/imports", json={**document, "format": "pgn"},
                        headers=club.auth), 422, "invalid-document")
    assert client.get(f"/api/v1/clubs/{club.id}/games", headers=club.auth).json["games"] == []


def test_the_example_games_import_and_audit_clean(client, club) -> None:
    for path in sorted(EXAMPLES.glob("*.json")):
        answer = client.post(f"/api/v1/clubs/{club.id}/imports", headers=club.auth,
                             json=json.loads(path.read_text(encoding="utf-8")))
        assert answer.status_code == 201, (path.name, answer.json)
        report = client.get(f"/api/v1/games/{answer.json['id']}/audit", headers=club.auth).json
        assert report["ok"], (path.name, report["findings"])
