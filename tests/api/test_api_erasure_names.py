"""A member's erasure writes out their name and nobody else's: a co-player whose name holds it ("Ana-Marie", "Ana
Marie") keeps theirs, in the games' logs as in the evening's decisions and the labels of the tokens that made them;
every spelling typed at a table ("STRASSE" for "Straße") is written out; a new player cannot take an erased member's
pseudonym; a text that is one member's name and another's id erases no one; and an erasure's reason is told to the
club's writers only."""

from __future__ import annotations

import json
from typing import Any

from test_api_directors import director_of
from test_api_evenings import create, decide, start_round

from nj_ledger.store import Store
from support.http import Calls, Club

FOUR = ["Ana", "Ana-Marie", "Ana Marie", "Ben"]


def names(calls: Calls, club: Club, game: str) -> list[str]:
    return [player["name"] for player in calls.state(club, game)["players"]]


def erase(calls: Calls, club: Club, store: Store, who: str) -> dict[str, Any]:
    return calls.read("POST", f"/api/v1/clubs/{club.id}/members/{who}/erasure", {"reason": "asked"},
                      club=director_of(store, club), status=201)


def test_names_that_hold_the_erased_one_are_kept_whole(calls: Calls, club: Club, store: Store) -> None:
    game = calls.game(club, FOUR, title="Ana contre Ana-Marie")["id"]
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    evening = create(calls, club, players=FOUR, rounds=1, seating=[[FOUR]])["id"]
    decide(calls, club, evening, type="adjustment", player="Ana-Marie", amount=2,
           reason="Ana-Marie et Ana Marie ont aidé Ana")
    made = calls.read("POST", f"/api/v1/clubs/{club.id}/tokens", {"role": "scorer", "label": "Téléphone d'Ana"},
                      club=club, status=201)
    decide(calls, Club(club.id, made["token"]), evening, type="adjustment", player="Ana", amount=1,
           reason="ana est partie tôt")

    erase(calls, club, store, "Ana")
    assert names(calls, club, game) == ["Joueur 1", "Ana-Marie", "Ana Marie", "Ben"]
    assert calls.read("GET", f"/api/v1/games/{game}", club=club)["title"] == "Joueur 1 contre Ana-Marie"
    decisions = calls.read("GET", f"/api/v1/clubs/{club.id}/evenings/{evening}/decisions", club=club)
    adjusted = [d["data"] for d in decisions["decisions"] if d["type"] == "score_adjusted"]
    assert [(d["player"], d["reason"]) for d in adjusted] == [
        ("Ana-Marie", "Ana-Marie et Ana Marie ont aidé Joueur 1"), ("Joueur 1", "Joueur 1 est partie tôt")]
    assert decisions["ok"] and decisions["decisions"][-1]["by"]["label"] == "Téléphone d'Joueur 1"
    assert calls.read("GET", f"/api/v1/games/{game}/audit", club=club)["ok"]
    assert calls.read("POST", f"/api/v1/clubs/{club.id}/evenings/{evening}/audit", {}, club=club)["ok"]
    members = {p["name"] for p in calls.read("GET", f"/api/v1/clubs/{club.id}/players", club=club)["players"]}
    assert {"Ana-Marie", "Ana Marie", "Joueur 1"} <= members and "Ana" not in members


def test_every_spelling_typed_at_a_table_is_written_out(calls: Calls, club: Club, store: Store) -> None:
    first = calls.game(club, ["Straße", "Ben", "Chloé"])["id"]
    second = calls.game(club, ["STRASSE", "Ben", "Chloé"])["id"]  # the same member, typed otherwise
    assert calls.read("GET", f"/api/v1/games/{second}/audit", club=club)["ok"]
    erased = erase(calls, club, store, "straße")
    assert erased["redacted"]["games"] == 2
    for game in (first, second):
        assert names(calls, club, game)[0] == "Joueur 1"
        exported = calls.get(f"/api/v1/games/{game}/export", club=club).get_data(as_text=True)
        assert "strasse" not in exported.casefold() and "straße" not in exported.casefold()


def test_a_new_player_cannot_take_an_erased_members_pseudonym(calls: Calls, club: Club, store: Store,
                                                              problem) -> None:
    calls.game(club, ["Ana", "Ben", "Chloé"])
    erase(calls, club, store, "Ana")
    games = calls.read("GET", f"/api/v1/clubs/{club.id}/games", club=club)["games"]
    body = {"players": ["joueur 1", "Ben", "Chloé"], "rules": "classic", "starting_chips": 60}
    refused = problem(calls.post(f"/api/v1/clubs/{club.id}/games", body, club=club), 409, "name-erased")
    assert "Joueur 1" in refused["detail"]
    french = problem(calls.post(f"/api/v1/clubs/{club.id}/games", body, club=club,
                                headers={"Accept-Language": "fr"}), 409, "name-erased")
    assert "pseudonyme" in french["detail"], french
    assert calls.read("GET", f"/api/v1/clubs/{club.id}/games", club=club)["games"] == games
    assert calls.game(club, ["Ana", "Ben", "Chloé"])["players"][0]["name"] == "Ana"  # a new member, Ana again


def test_a_member_named_as_another_members_id_is_not_erased_on_a_guess(calls: Calls, club: Club, store: Store,
                                                                       problem) -> None:
    calls.game(club, ["Ana", "Ben", "Chloé"])
    ana = store.clubs.member(club.id, "Ana").id
    calls.game(club, [str(ana), "Ben", "Chloé"])  # a member whose name is Ana's id
    url = f"/api/v1/clubs/{club.id}/members/{ana}/erasure"
    refused = problem(calls.post(url, {"reason": "asked"}, club=director_of(store, club),
                                 headers={"Accept-Language": "fr"}), 409, "member-ambiguous")
    assert str(ana) in refused["detail"]
    assert store.clubs.member(club.id, "Ana").name == "Ana" and store.erasures.erasures(club.id) == []
    erase(calls, club, store, "Ana")  # by the other of the two
    assert store.clubs.member(club.id, str(ana)).name == str(ana)


def test_the_clubs_audit_gives_an_erasures_reason_to_its_writers_only(calls: Calls, club: Club,
                                                                      store: Store) -> None:
    calls.game(club, ["Ana", "Ben", "Chloé"])
    erase(calls, club, store, "Ana")
    url = f"/api/v1/clubs/{club.id}/audit"
    assert calls.read("GET", url, club=club)["erasures"]["erasures"][0]["reason"] == "asked"
    viewed = calls.read("GET", url, club=calls.token(club, "viewer"))["erasures"]
    assert "reason" not in viewed["erasures"][0] and viewed["chain"]["ok"]


def test_a_person_an_evening_listed_who_never_sat_is_erased_too(calls: Calls, club: Club, store: Store,
                                                                problem) -> None:
    evening = create(calls, club, players=FOUR, rounds=2, seating=None)["id"]
    decide(calls, club, evening, type="arrival", players=["Zoé"], reason="came after dinner")
    assert problem(calls.get(f"/api/v1/clubs/{club.id}/members/Zoé/data", club=club), 404, "not-found")
    erased = erase(calls, club, store, "zoé")
    assert erased["redacted"]["evenings"] == 1 and erased["pseudonym"] == "Joueur 1"
    shown = calls.get(f"/api/v1/clubs/{club.id}/evenings/{evening}/decisions", club=club).get_data(as_text=True)
    assert "Zoé" not in shown and "Joueur 1" in shown
    assert calls.read("POST", f"/api/v1/clubs/{club.id}/evenings/{evening}/audit", {}, club=club)["ok"]
    # the evenings' other texts are never taken for a person: a word of a decision is not a member
    problem(calls.post(f"/api/v1/clubs/{club.id}/members/players/erasure", {"reason": "asked"},
                       club=director_of(store, club)), 404, "not-found")


def test_an_evening_keeps_its_listed_names_its_facts_and_goes_on(calls: Calls, club: Club, store: Store,
                                                                   problem) -> None:
    six = ["Ana", "Ana Marie", "Ben", "Chloé", "Denis", "Élise"]
    evening = create(calls, club, players=six, rounds=2, seating=None)["id"]  # the planner seats them
    start_round(calls, club, evening)
    erase(calls, club, store, "Ana")  # seated in round 1 and planned in round 2
    shown = calls.read("GET", f"/api/v1/clubs/{club.id}/evenings/{evening}", club=club)
    assert "Ana Marie" in json.dumps(shown, ensure_ascii=False)  # a name on the list that holds hers, kept whole
    assert calls.read("POST", f"/api/v1/clubs/{club.id}/evenings/{evening}/audit", {}, club=club)["ok"]
    second = start_round(calls, club, evening, force=True)["rounds"][1]["tables"]  # the plan seats Joueur 1
    assert "Joueur 1" in [name for table in second for name in table["players"]]

    create(calls, club, players=[*FOUR[:3], "Classic"], rounds=1, seating=None)  # the rules' profile is "classic"
    refused = problem(calls.post(f"/api/v1/clubs/{club.id}/members/Classic/erasure", {"reason": "asked"},
                                 club=director_of(store, club), headers={"Accept-Language": "fr"}), 409,
                      "erasure-refused")
    assert "soirée" in refused["detail"] and len(store.erasures.erasures(club.id)) == 1
