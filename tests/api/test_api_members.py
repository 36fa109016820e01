"""GET /clubs/{club}/members/{member}/data: everything the club holds about one member, for a scorer's token."""

from __future__ import annotations

import json
from pathlib import Path

from test_api_evenings import PLAYERS, create, decide, play, start_round

from nj_ledger.store import Store
from nj_ledger.store.documents import import_document
from support.http import Calls, Club

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json"


def test_a_member_is_given_their_games_figures_evenings_and_the_decisions_naming_them(
        client, calls: Calls, club: Club, store: Store) -> None:
    ended = import_document(store.games, club.id, json.loads(EXAMPLE.read_text(encoding="utf-8"))).game.id
    open_game = calls.game(club, ["Sylvie", "Ana", "Ben"])["id"]
    evening = create(calls, club)["id"]
    game = start_round(calls, club, evening)["rounds"][0]["tables"][0]["game"]
    play(calls, club.auth, game, seed=3)
    decide(calls, club, evening, type="adjustment", player="Ana", amount=5, reason="retard")

    sylvie = calls.read("GET", f"/api/v1/clubs/{club.id}/members/sylvie/data", club=club, status=200)
    assert sylvie["club"] == club.id and sylvie["member"]["name"] == "Sylvie" and sylvie["member"]["created_at"]
    games = {g["game"]: g for g in sylvie["games"]}
    assert set(games) == {ended, open_game}
    assert games[ended]["status"] == "ended" and games[ended]["rank"] is not None and games[ended]["seat"] == 2
    assert games[ended]["players"] == ["Jeanne", "Marcel", "Sylvie", "Thomas"]
    assert (games[open_game]["status"], games[open_game]["rank"], games[open_game]["seat"]) == ("ready", None, 0)
    assert sylvie["figures"]["games"] == 1 and sylvie["evenings"] == [] and sylvie["named_in"] == []
    stats = calls.read("GET", f"/api/v1/clubs/{club.id}/players/Sylvie/stats", club=club, status=200)
    assert sylvie["figures"] == stats["figures"]

    ana = calls.read("GET", f"/api/v1/clubs/{club.id}/members/Ana/data", club=club, status=200)
    assert [night["evening"] for night in ana["evenings"]] == [evening]
    named = [(item["evening"], item["type"]) for item in ana["named_in"]]
    assert (evening, "evening_created") in named and (evening, "score_adjusted") in named
    adjusted = next(item["data"] for item in ana["named_in"] if item["type"] == "score_adjusted")
    assert adjusted["player"] == "Ana"  # what the decision says of the member, whole
    by_id = calls.read("GET", f"/api/v1/clubs/{club.id}/members/{ana['member']['id']}/data", club=club, status=200)
    assert by_id == ana
    assert PLAYERS[0] == "Ana"


def test_only_a_scorer_of_the_club_is_given_a_members_data(client, calls: Calls, club: Club, problem) -> None:
    calls.game(club, ["Ana", "Ben", "Chloé"])
    url = f"/api/v1/clubs/{club.id}/members/Ana/data"
    viewer = calls.token(club, "viewer")
    refused = problem(client.get(url, headers=viewer.auth), 403, "forbidden")
    assert "personal data" in refused["detail"]
    assert client.head(url, headers=viewer.auth).status_code == 403  # a HEAD is the GET it is served by
    french = client.get(url, headers={**viewer.auth, "Accept-Language": "fr"}).json["detail"]
    assert french.startswith("Les données personnelles")
    problem(client.get(url), 401)
    other = calls.club("Le Nain du Vendredi")
    problem(client.get(url, headers=other.auth), 404, "not-found")
    problem(client.get(f"/api/v1/clubs/{club.id}/members/Zoé/data", headers=club.auth), 404, "not-found")


def test_a_member_named_like_another_members_id_gives_the_other_nothing_of_theirs(
        client, calls: Calls, club: Club, store: Store) -> None:
    zoe = calls.read("POST", f"/api/v1/clubs/{club.id}/players", {"name": "Zoé"}, club=club, status=201)
    named = str(zoe["id"])
    ended = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    ended["players"] = [named, "Marcel", "Sylvie", "Thomas"]
    import_document(store.games, club.id, ended)
    data = calls.read("GET", f"/api/v1/clubs/{club.id}/members/Zoé/data", club=club, status=200)
    assert data["member"]["name"] == "Zoé" and data["figures"]["games"] == 0 and data["games"] == []
