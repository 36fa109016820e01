"""Settling by count over HTTP: the count form of ``reveal`` posted, refused in English and French, stored,
replayed, exported, and marked by the audit."""

from __future__ import annotations

from typing import Any

RULES = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
PLAY = [{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["AC", "2C"]},
        {"type": "play", "seat": 1, "cards": ["3D"]}, {"type": "play", "seat": 2, "cards": ["4D"]},
        {"type": "play", "seat": 0, "cards": ["5C", "6C"]}]
BEN = {"type": "reveal", "seat": 1, "count": 3, "points": 27, "honours": ["QS"]}


def out_unseen(calls, club) -> str:
    game = calls.game(club, ["Ana", "Ben", "Chloé"], rules=RULES, starting_chips=100)["id"]
    answer = calls.act(club, game, *PLAY)
    assert answer.status_code == 201, answer.json
    return str(game)


def test_a_count_is_posted_stored_and_settles(client, calls, club) -> None:
    game = out_unseen(calls, club)
    answer = calls.act(club, game, BEN)
    assert answer.status_code == 201, answer.json
    assert [(e["type"], e["data"]) for e in answer.json["events"]] == [
        ("reveal", {"seat": 1, "count": 3, "points": 27, "honours": ["QS"]})]
    state = calls.state(club, game)
    assert state["status"] == "revealing" and state["deal"]["awaiting_reveal"] == [2]
    settled = calls.act(club, game, {"type": "reveal", "seat": 2, "cards": ["KH", "7D", "2S"]})
    assert settled.status_code == 201, settled.json
    assert [player["chips"] for player in calls.state(club, game)["players"]] == [131, 49, 39]
    replayed = client.get(f"/api/v1/games/{game}/deals/1/replay", headers=club.auth)
    assert replayed.status_code == 200
    steps = replayed.json["steps"]
    told = next(step for step in steps if step["event"] and step["event"]["type"] == "reveal")
    assert told["event"]["data"]["count"] == 3 and told["state"]["status"] == "revealing"
    exported = client.get(f"/api/v1/games/{game}/export?format=njn", headers=club.auth)
    assert "Reveal 1: 3 cards 27 points honours QS\n" in exported.get_data(as_text=True)


def test_a_wrong_count_is_refused_in_both_languages_and_stores_nothing(client, calls, club, problem) -> None:
    game = out_unseen(calls, club)
    before = calls.state(club, game)["version"]
    english = problem(calls.act(club, game, {**BEN, "count": 4}), 422, "reveal-mismatch")
    assert english["detail"] == "Ben (seat 1) has 3 cards left, not 4."
    french = problem(calls.act(club, game, {**BEN, "points": 40}, Accept_Language="fr"), 422, "reveal-mismatch")
    assert french["detail"].startswith("Les 3 cartes de Ben") and "de 12 à 30 points" in french["detail"]
    both = problem(calls.act(club, game, {**BEN, "cards": ["9H", "QS", "8S"]}, Accept_Language="fr"), 422,
                   "invalid-action")
    assert "pas les deux" in both["detail"]
    plain = problem(calls.act(club, game, {**BEN, "honours": ["9H"]}), 422, "not-an-honour")
    assert plain["detail"].startswith("9H is not an honour")
    assert calls.state(club, game)["version"] == before


def test_the_audit_marks_the_deal_settled_by_count(client, calls, club) -> None:
    game = out_unseen(calls, club)
    for action in (BEN, {"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]}):
        assert calls.act(club, game, action).status_code == 201
    report: dict[str, Any] = calls.audit(club, game)
    assert report["ok"] and report["recomputation"]["ok"]
    assert report["settled_by_count"] == [1]
    marks = [finding for finding in report["findings"] if finding["code"] == "settled-by-count"]
    assert [(mark["severity"], mark["message"]) for mark in marks] == [
        ("info", "Deal 1 was settled by count for Ben, Chloé: the cards left were told, not shown.")]  # by name
    french = client.get(f"/api/v1/games/{game}/audit", headers={**club.auth, "Accept-Language": "fr"}).json
    assert next(f["message"] for f in french["findings"] if f["code"] == "settled-by-count").startswith(
        "La donne 1 a été réglée au compte pour Ben")


def test_the_openapi_document_describes_the_count(client) -> None:
    document = client.get("/api/v1/openapi.json").json
    schemas = document["components"]["schemas"]
    audit = next(schema for name, schema in schemas.items() if name.startswith("Audit"))
    assert audit["properties"]["settled_by_count"]["type"] == "array"
    assert "settled-by-count" in audit["properties"]["settled_by_count"]["description"]
    assert '"count", "points", "honours"?' in str(document)
