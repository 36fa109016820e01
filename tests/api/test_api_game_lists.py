"""A club's games found again: a title and a day played on a new game, the list newest first, its pages and
filters, and the filters it refuses."""

from __future__ import annotations

from typing import Any

import pytest


def _listed(client: Any, club: Any, query: str = "") -> list[str]:
    answer = client.get(f"/api/v1/clubs/{club.id}/games{query}", headers=club.auth)
    assert answer.status_code == 200, answer.json
    return [game["id"] for game in answer.json["games"]]


def test_a_new_game_keeps_its_title_and_day_in_its_state_its_summary_and_its_export(client, calls, club) -> None:
    game = calls.game(club, title="  Jeudi chez Ana ", date="2026-03-05")
    assert (game["title"], game["date"]) == ("Jeudi chez Ana", "2026-03-05")
    state = calls.state(club, game["id"])
    assert (state["title"], state["date"]) == ("Jeudi chez Ana", "2026-03-05")
    appended = calls.act(club, game["id"], {"type": "deal"}).json
    assert (appended["state"]["title"], appended["state"]["date"]) == ("Jeudi chez Ana", "2026-03-05")
    [summary] = client.get(f"/api/v1/clubs/{club.id}/games", headers=club.auth).json["games"]
    assert (summary["title"], summary["date"]) == ("Jeudi chez Ana", "2026-03-05")
    exported = client.get(f"/api/v1/games/{game['id']}/export", headers=club.auth).json
    assert (exported["title"], exported["date"]) == ("Jeudi chez Ana", "2026-03-05")


def test_without_a_title_or_a_day_a_game_has_no_title_and_is_played_today(calls, club) -> None:
    plain = calls.game(club)
    blank = calls.game(club, title="   ", date=None)
    for game in (plain, blank):
        assert game["title"] is None
        assert game["date"] == plain["date"] and len(game["date"]) == 10


@pytest.mark.parametrize(("body", "field"), [
    ({"title": "x" * 201}, "title"),
    ({"title": 12}, "title"),
    ({"date": "2026-02-30"}, "date"),
    ({"date": "05/03/2026"}, "date"),
    ({"date": 20260305}, "date"),
])
def test_a_bad_title_or_day_is_422_in_english_and_in_french(client, club, problem, body: dict[str, Any],
                                                             field: str) -> None:
    game = {"players": ["Ana", "Ben", "Chloé"], "rules": "classic", "starting_chips": 60, **body}
    english = client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth, json=game)
    found = problem(english, 422, "invalid-request")
    assert field in found["errors"] and found["detail"].startswith(f"{field}: ")
    french = client.post(f"/api/v1/clubs/{club.id}/games", json=game,
                         headers={**club.auth, "Accept-Language": "fr"})
    found_fr = problem(french, 422, "invalid-request")
    assert found_fr["detail"] != found["detail"] and found_fr["detail"].startswith(f"{field}\u00a0: ")
    assert _listed(client, club) == []


def test_games_are_listed_by_the_day_played_then_by_when_they_were_recorded(client, calls, club) -> None:
    old = calls.game(club, title="Old", date="2025-12-31")["id"]
    newer_recorded_earlier = calls.game(club, title="A", date="2026-03-05")["id"]
    newer_recorded_later = calls.game(club, title="B", date="2026-03-05")["id"]
    middle = calls.game(club, title="C", date="2026-01-15")["id"]
    assert _listed(client, club) == [newer_recorded_later, newer_recorded_earlier, middle, old]


def test_pages_follow_one_another_without_a_gap_or_a_repeat(client, calls, club) -> None:
    made = [calls.game(club, title=f"Game {n}", date=f"2026-01-{n + 1:02d}")["id"] for n in range(7)]
    newest_first = made[::-1]
    seen: list[str] = []
    url: str | None = f"/api/v1/clubs/{club.id}/games?limit=3&status=ready"
    pages = 0
    while url:
        answer = client.get(url, headers=club.auth).json
        seen += [game["id"] for game in answer["games"]]
        url = answer["next"]
        pages += 1
        if url:
            assert "status=ready" in url and "limit=3" in url  # the next page keeps the filters
    assert seen == newest_first and pages == 3
    assert _listed(client, club, "?limit=2&offset=5") == newest_first[5:]
    assert _listed(client, club, "?offset=7") == []


def test_each_filter_and_the_filters_together(client, calls, club) -> None:
    march = calls.game(club, ["Ana", "Ben", "Chloé"], title="Soirée de mars", date="2026-03-05")["id"]
    percent = calls.game(club, ["Ana", "Denis"], title="100% nain", date="2026-02-01")["id"]
    underscore = calls.game(club, ["Élise", "Ben"], title="nain_jaune", date="2026-01-10")["id"]
    untitled = calls.game(club, ["Chloé", "Denis"], date="2026-01-10")["id"]
    calls.act(club, percent, {"type": "end"})
    calls.act(club, march, {"type": "deal"})
    # title: a part of it, whatever its case; % and _ are letters like the others
    assert _listed(client, club, "?title=soirée") == [march] and _listed(client, club, "?title=SOIRÉE") == [march]
    assert _listed(client, club, "?title=DE%20MARS") == [march]
    assert _listed(client, club, "?title=nain") == [percent, underscore]
    assert _listed(client, club, "?title=%25") == [percent]
    assert _listed(client, club, "?title=a_n") == [] and _listed(client, club, "?title=N_J") == [underscore]
    assert _listed(client, club, "?title=nothing") == []
    # status, player (any case), day, days
    assert _listed(client, club, "?status=ended") == [percent]
    assert _listed(client, club, "?status=playing") == [march]
    assert _listed(client, club, "?status=ready") == [untitled, underscore]
    assert _listed(client, club, "?player=denis") == [percent, untitled]
    assert _listed(client, club, "?date=2026-01-10") == [untitled, underscore]  # the later recorded first
    assert _listed(client, club, "?from=2026-02-01") == [march, percent]
    assert _listed(client, club, "?from=2026-01-11&to=2026-03-04") == [percent]
    # together
    assert _listed(client, club, "?player=Ben&title=nain") == [underscore]
    assert _listed(client, club, "?player=Ben&date=2026-01-10&status=ready") == [underscore]
    assert _listed(client, club, "?player=Ana&status=ready") == []


@pytest.mark.parametrize(("query", "field"), [
    ("status=lost", "status"),
    ("date=2026-13-01", "date"),
    ("from=yesterday", "from"),
    ("title=", "title"),
    ("title=" + "x" * 201, "title"),
    ("title=%00", "title"),
    ("player=", "player"),
    ("limit=0", "limit"),
    ("limit=501", "limit"),
    ("offset=-1", "offset"),
])
def test_a_bad_filter_is_422_with_a_sentence_in_english_and_french(client, club, problem, query: str,
                                                                    field: str) -> None:
    english = problem(client.get(f"/api/v1/clubs/{club.id}/games?{query}", headers=club.auth),
                      422, "invalid-request")
    assert field in english["errors"] and field in english["detail"]
    french = problem(client.get(f"/api/v1/clubs/{club.id}/games?{query}",
                                headers={**club.auth, "Accept-Language": "fr"}), 422, "invalid-request")
    assert field in french["detail"] and french["detail"] != english["detail"]


def test_the_openapi_document_shows_the_title_and_the_day(client) -> None:
    spec = client.get("/api/v1/openapi.json").json
    schemas = spec["components"]["schemas"]
    new_game = schemas["NewGame"]["properties"]
    assert new_game["title"]["maxLength"] == 200 and new_game["date"]["format"] == "date"
    assert {"title", "date"} <= set(schemas["GameState"]["properties"])
    listing = spec["paths"]["/api/v1/clubs/{club}/games"]["get"]
    assert "title" in {parameter["name"] for parameter in listing["parameters"]}
