"""Mending a settled deal over HTTP: ``undo`` past the settlement, the state's ``undo`` and ``redo``, and the
audit's sentences naming what each undo withdrew, with the players' names, in English and in French."""

from __future__ import annotations

from typing import Any

from support.http import Calls, Club, assert_problem

FR = {"Accept-Language": "fr-FR,fr;q=0.9"}
SMALL = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
HANDS = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
OPENING = [{"type": "deal", "hands": HANDS}, {"type": "play", "seat": 0, "cards": ["AC", "2C"]},
           {"type": "play", "seat": 1, "cards": ["3D"]}, {"type": "play", "seat": 2, "cards": ["4D"]}]
WINNING_PLAY = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}


def about_to_end(calls: Calls, club: Club) -> str:
    """20 chips: seat 0 laying 5C 6C ends the first deal, and the game by shortfall."""
    game = str(calls.game(club, rules=SMALL, starting_chips=20)["id"])
    assert calls.act(club, game, *OPENING).status_code == 201
    return game


def posted(calls: Calls, club: Club, game: str, *actions: Any) -> dict[str, Any]:
    answer = calls.act(club, game, *actions)
    assert answer.status_code == 201, answer.get_json()
    return dict(answer.json["state"])


def test_undo_and_redo_of_the_play_that_ended_the_game(calls: Calls, club: Club) -> None:
    game = about_to_end(calls, club)
    assert calls.state(club, game)["undo"] == {"type": "play", "seat": 2, "withdraws_settlement": False}
    ended = posted(calls, club, game, WINNING_PLAY)
    assert ended["status"] == "ended" and ended["result"]["reason"] == "shortfall"
    assert ended["undo"] == {"type": "play", "seat": 0, "withdraws_settlement": True}
    assert ended["redo"] is None

    undone = posted(calls, club, game, {"type": "undo", "reason": "wrong seat"})
    assert undone["status"] == "playing" and undone["result"] is None and undone["deals_played"] == 0
    assert undone["redo"] == WINNING_PLAY
    assert [p["chips"] for p in undone["players"]] == [5, 5, 5]
    reloaded = calls.state(club, game)  # derived from the log: a reload shows the same
    assert (reloaded["undo"], reloaded["redo"]) == (undone["undo"], undone["redo"])
    events = calls.events(club, game)
    undo_at = next(e["seq"] for e in events if e["type"] == "undo")
    assert {e["data"]["reason"] for e in events[undo_at:]} == {"undo"}  # the settlement given back, transfer by
    assert all(e["type"] == "transfer" for e in events[undo_at:])  # transfer; nothing deleted or edited

    redone = posted(calls, club, game, undone["redo"])
    assert redone["status"] == "ended" and redone["redo"] is None and redone["result"] == ended["result"]


def test_undo_is_refused_after_an_end_and_before_the_first_deal(calls: Calls, club: Club) -> None:
    game = str(calls.game(club)["id"])
    fresh = calls.state(club, game)
    assert fresh["undo"] is None and fresh["redo"] is None
    assert_problem(calls.act(club, game, {"type": "undo"}), 422, "no-deal-in-progress")
    assert posted(calls, club, game, {"type": "end"})["undo"] is None
    assert_problem(calls.act(club, game, {"type": "undo"}), 422, "game-ended")


def audit_in(calls: Calls, club: Club, game: str, headers: dict[str, str]) -> dict[str, Any]:
    answer = calls.client.get(f"/api/v1/games/{game}/audit", headers={**club.auth, **headers})
    assert answer.status_code == 200
    return dict(answer.json)


def test_the_audit_says_each_undo_with_the_players_names_in_english_and_french(calls: Calls, club: Club) -> None:
    game = about_to_end(calls, club)
    posted(calls, club, game, WINNING_PLAY)
    posted(calls, club, game, {"type": "undo", "reason": "mauvaise place"})
    posted(calls, club, game, {"type": "undo"})
    posted(calls, club, game, {"type": "play", "seat": 2, "cards": ["4D"], "announced": []})  # the redo
    posted(calls, club, game, WINNING_PLAY)  # and the other
    first, second = (e["seq"] for e in calls.events(club, game) if e["type"] == "undo")
    english, french = audit_in(calls, club, game, {}), audit_in(calls, club, game, FR)
    assert english["ok"] and english["recomputation"]["ok"]

    def said(report: dict[str, Any], code: str) -> list[str]:
        return [f["message"] for f in report["findings"] if f["code"] == code]

    assert said(english, "undo") == [
        "Taken back: Ana's play of 5C, 6C, with the settlement of deal 1 and the end of the game — "
        "reason: mauvaise place.",
        "Taken back: Chloé's play of 4D — no reason given.",
    ]
    assert [f["seq"] for f in english["findings"] if f["code"] == "undo"] == [first, second]  # each at its undo
    assert said(french, "undo") == [
        "Repris : la pose de 5♣, 6♣ par Ana, avec le règlement de la donne 1 et la fin de la partie — "
        "motif : mauvaise place.",
        "Repris : la pose de 4♦ par Chloé — sans motif.",
    ]
    assert said(english, "shortfall")[0] == "Deal 1: Ben owed 27 chips (payment) and could pay only 5."
    assert said(french, "shortfall")[0] == "Donne 1\u00a0: Ben devait 27 jetons (paiement) et n'a pu en payer que 5."
    assert not any("seat" in message for message in said(english, "shortfall"))
    undo, _ = english["corrections"]
    assert undo == {"seq": first, "deal": 1, "type": "undo", "reason": "mauvaise place", "withdrew": WINNING_PLAY,
                    "settlement": 1, "game_end": True, "message": said(english, "undo")[0]}
    assert french["corrections"][1]["message"] == said(french, "undo")[1]


def test_an_adjustment_names_the_players_and_boxes(calls: Calls, club: Club) -> None:
    game = str(calls.game(club)["id"])
    posted(calls, club, game, {"type": "adjust", "from": "seat:0", "to": "box:7D", "amount": 2, "reason": "tombé"})
    posted(calls, club, game, {"type": "adjust", "from": "box:7D", "to": "seat:1", "amount": 2})
    english, french = audit_in(calls, club, game, {}), audit_in(calls, club, game, FR)
    assert [f["message"] for f in english["findings"]] == [
        "2 chips moved by agreement from Ana to the 7D box (tombé).",
        "2 chips moved by agreement from the 7D box to Ben (no reason given).",
    ]
    assert [f["message"] for f in french["findings"]] == [
        "2 jetons passés d'un commun accord de Ana à la case 7♦ (tombé).",
        "2 jetons passés d'un commun accord de la case 7♦ à Ben (sans motif).",
    ]
    assert [c["message"] for c in english["corrections"]] == [f["message"] for f in english["findings"]]


def test_the_openapi_document_describes_undo_and_redo(calls: Calls) -> None:
    spec = calls.client.get("/api/v1/openapi.json").json
    state = spec["components"]["schemas"]["GameState"]["properties"]
    assert {"undo", "redo"} <= set(state)
    assert "redo" in state["redo"]["description"] and "withdraw" in state["undo"]["description"]
    undo = spec["components"]["schemas"]["UndoView"]["properties"]
    assert set(undo) == {"type", "seat", "withdraws_settlement"}


def test_the_replay_shows_the_settlement_then_its_withdrawal_in_the_deal(calls: Calls, club: Club) -> None:
    game = about_to_end(calls, club)
    posted(calls, club, game, WINNING_PLAY)
    now = posted(calls, club, game, {"type": "undo", "reason": "wrong seat"})
    answer = calls.client.get(f"/api/v1/games/{game}/deals/1/replay", headers=club.auth)
    assert answer.status_code == 200
    steps = answer.json["steps"]
    kinds = [step["event"]["type"] for step in steps[1:]]
    assert kinds[kinds.index("deal_ended"):kinds.index("undo") + 1] == ["deal_ended", "game_ended", "undo"]
    at = {step["event"]["type"]: step["state"] for step in steps[1:] if step["event"]["type"] != "transfer"}
    assert at["game_ended"]["status"] == "ended" and at["game_ended"]["deals_played"] == 1
    assert at["game_ended"]["undo"] == {"type": "play", "seat": 0, "withdraws_settlement": True}
    assert at["undo"]["status"] == "playing" and at["undo"]["result"] is None and at["undo"]["deals_played"] == 0
    assert at["undo"]["redo"] == WINNING_PLAY
    current = calls.state(club, game)
    assert steps[-1]["state"] == {key: current[key] for key in steps[-1]["state"]}
    assert (current["undo"], current["redo"]) == (now["undo"], now["redo"])
