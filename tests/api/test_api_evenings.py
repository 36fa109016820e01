"""Club evenings through the API: an evening of 3 tables × 4 rounds played by the simulator with a director's
correction, the tables' tokens kept to their table, confirmation, refusals that change nothing, the season
ladder."""

from __future__ import annotations

import base64
from datetime import date
from typing import Any

import pytest

from nj_ledger.simulator import simulate
from support.http import Calls, Club, assert_problem

PLAYERS = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo", "Inès", "Jules", "Karim", "Léa"]
# 3 tables of 4, 4 rounds, set by the director (no pair of round 1 meets again in round 2).
SEATING = [
    [PLAYERS[0:4], PLAYERS[4:8], PLAYERS[8:12]],
    [[PLAYERS[i] for i in (0, 4, 8, 1)], [PLAYERS[i] for i in (5, 9, 2, 6)], [PLAYERS[i] for i in (10, 3, 7, 11)]],
    [[PLAYERS[i] for i in (0, 5, 10, 3)], [PLAYERS[i] for i in (4, 9, 1, 7)], [PLAYERS[i] for i in (8, 2, 6, 11)]],
    [[PLAYERS[i] for i in (0, 6, 9, 11)], [PLAYERS[i] for i in (4, 2, 10, 1)], [PLAYERS[i] for i in (8, 5, 3, 7)]],
]


def evenings_url(club: Club, *rest: str) -> str:
    return "/".join([f"/api/v1/clubs/{club.id}/evenings", *rest])


def create(calls: Calls, club: Club, **options: Any) -> dict[str, Any]:
    body = {"name": "Jeudi du club", "date": "2026-11-26", "players": PLAYERS, "rounds": 4, "starting_chips": 60,
            "seating": SEATING, **options}
    body = {name: value for name, value in body.items() if value is not None}  # seating=None: the planner draws
    answer = calls.client.post(evenings_url(club), json=body, headers=club.auth)
    assert answer.status_code == 201, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    return dict(answer.json)


def start_round(calls: Calls, club: Club, evening: str, **body: Any) -> dict[str, Any]:
    answer = calls.client.post(evenings_url(club, evening, "rounds"), json=body, headers=club.auth)
    assert answer.status_code == 201, answer.get_json()
    return dict(answer.json)


def play(calls: Calls, auth: dict[str, str], game: str, seed: int, players: int = 4) -> None:
    """Play a simulated game's table actions on an evening's game (same rules and chips, seats by number)."""
    simulated = simulate(seed=seed, profile="classic", players=players, starting_chips=60, deals=3, chatter=0.3)
    answer = calls.client.post(f"/api/v1/games/{game}/actions", json={"actions": simulated.actions}, headers=auth)
    assert answer.status_code == 201, answer.get_json()
    assert answer.json["state"]["status"] == "ended"


def decide(calls: Calls, club: Club, evening: str, **body: Any) -> dict[str, Any]:
    answer = calls.client.post(evenings_url(club, evening, "decisions"), json=body, headers=club.auth)
    assert answer.status_code == 201, answer.get_json()
    return dict(answer.json)


def get(calls: Calls, club: Club, evening: str, *rest: str, query: str = "") -> dict[str, Any]:
    return dict(calls.read("GET", evenings_url(club, evening, *rest) + query, club=club, status=200))


def expected_points(chips: list[int]) -> list[float]:
    """Match points by pairs, worked the long way: 1 for each player finished below, ½ for each tie, over the
    others, × 100."""
    return [100 * sum(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
                      for other, theirs in enumerate(chips) if other != seat) / (len(chips) - 1)
            for seat, mine in enumerate(chips)]


def test_an_evening_of_three_tables_and_four_rounds_with_a_directors_correction(calls: Calls, club: Club) -> None:
    created = create(calls, club)
    evening = created["id"]
    assert [t["table"] for t in created["tables"]] == [1, 2, 3] and created["counts"]["planned"] == 12
    for link in created["links"]:
        assert link["url"].endswith(f"/tables/{link['code']}#token={link['secret']}")
        assert link["qr_svg"].lstrip().startswith("<svg")
        assert base64.b64decode(link["qr_png"]).startswith(b"\x89PNG")
    tokens = {link["table"]: {"Authorization": f"Bearer {link['secret']}"} for link in created["links"]}
    games: dict[tuple[int, int], str] = {}
    for number in range(1, 5):
        rounds = start_round(calls, club, evening)
        started = rounds["rounds"][number - 1]
        assert started["status"] == "started"
        assert [t["players"] for t in started["tables"]] == SEATING[number - 1]
        for table in started["tables"]:
            games[(number, table["table"])] = table["game"]
            play(calls, tokens[table["table"]], table["game"], seed=number * 10 + table["table"])
    grid = get(calls, club, evening, "grid")
    assert grid["counts"] == {"planned": 0, "missing": 0, "unconfirmed": 0, "counted": 12, "voided": 0}
    # The director's correction: round 3's table 2 voided, its players awarded 50 each, Ana penalised 25.
    voided = games[(3, 2)]
    decide(calls, club, evening, type="void", game=voided, reason="a card was missing from the pack")
    for name in SEATING[2][1]:
        decide(calls, club, evening, type="award", player=name, round=3, score=50, reason="the game was voided")
    version = calls.client.get(evenings_url(club, evening), headers=club.auth).headers["ETag"]
    answer = calls.client.post(evenings_url(club, evening, "decisions"), headers={**club.auth, "If-Match": version},
                               json={"type": "adjustment", "player": "Ana", "amount": -25,
                                     "reason": "slow play, warned twice"})
    assert answer.status_code == 201 and answer.headers["ETag"] == f'"{int(version.strip(chr(34))) + 1}"'
    assert_problem(calls.client.post(evenings_url(club, evening, "decisions"),
                                     headers={**club.auth, "If-Match": version},
                                     json={"type": "adjustment", "player": "Ana", "amount": -25,
                                           "reason": "slow play, warned twice"}), 409, "version-conflict")

    expected = dict.fromkeys(PLAYERS, 0.0)
    for (number, table), game in games.items():
        if game == voided:
            continue
        state = calls.state(club, game)
        chips = [player["chips"] for player in state["players"]]
        for name, points in zip(SEATING[number - 1][table - 1], expected_points(chips), strict=True):
            expected[name] += points
    for name in SEATING[2][1]:
        expected[name] += 50
    expected["Ana"] -= 25
    ranking = get(calls, club, evening, "ranking")
    assert ranking["rule"] == "match_points" and ranking["complete"] and ranking["through_round"] == 4
    assert {row["name"]: row["score"] for row in ranking["rows"]} == pytest.approx(expected, abs=0.006)
    ordered = sorted(PLAYERS, key=lambda name: -round(expected[name], 2))
    assert [round(row["score"], 2) for row in ranking["rows"]] == [round(expected[name], 2) for name in ordered]
    for earlier, later in zip(ranking["rows"], ranking["rows"][1:], strict=False):
        tied = earlier["score"] == later["score"]
        assert earlier["rank"] == later["rank"] if tied else earlier["rank"] < later["rank"]
    assert all(row["games"] == 4 for row in ranking["rows"])
    grid = get(calls, club, evening, "grid")
    assert grid["counts"]["voided"] == 1 and grid["tables"][1]["cells"][2]["mark"] == "voided"

    audit = get(calls, club, evening, "decisions", query="?mends=true")
    assert audit["chain"] == {"ok": True, "first_bad_seq": None}
    assert [d["type"] for d in audit["decisions"]] == ["game_voided"] + ["score_awarded"] * 4 + ["score_adjusted"]
    assert all(d["data"]["reason"] and d["by"]["role"] == "scorer" for d in audit["decisions"])
    csv = calls.client.get(evenings_url(club, evening, "ranking") + "?format=csv", headers=club.auth)
    assert csv.mimetype == "text/csv" and csv.get_data(as_text=True).splitlines()[0].startswith('"rank","name"')

    closed = calls.client.post(evenings_url(club, evening, "close"), json={"reason": "home time"}, headers=club.auth)
    assert closed.status_code == 201 and closed.json["evening"]["status"] == "closed"
    refused = calls.client.post(f"/api/v1/games/{games[(4, 1)]}/actions", json={"actions": [{"type": "undo"}]},
                                headers=tokens[1])
    assert_problem(refused, 403, "evening-closed")
    assert calls.client.get(f"/api/v1/games/{games[(4, 1)]}", headers=tokens[1]).status_code == 200


def test_net_chips_ranking_is_the_chips_won(calls: Calls, club: Club) -> None:
    seating = [[PLAYERS[0:3], PLAYERS[3:6]]]
    evening = create(calls, club, players=PLAYERS[:6], rounds=1, seating=seating, ranking="net_chips")["id"]
    tables = start_round(calls, club, evening)["rounds"][0]["tables"]
    expected = {}
    for table in tables:
        play(calls, club.auth, table["game"], seed=table["table"], players=3)
        for player in calls.state(club, table["game"])["players"]:
            expected[player["name"]] = player["chips"] - 60
    assert {row["name"]: row["score"] for row in get(calls, club, evening, "ranking")["rows"]} == expected


def test_a_table_token_reaches_its_tables_games_only(calls: Calls, club: Club) -> None:
    created = create(calls, club)
    evening = created["id"]
    tables = start_round(calls, club, evening)["rounds"][0]["tables"]
    mine, other = tables[0]["game"], tables[1]["game"]
    link = created["links"][0]
    table = {"Authorization": f"Bearer {link['secret']}"}
    client = calls.client
    # its own table: its view by code, its game's state, events and actions
    view = client.get(f"/api/v1/tables/{link['code']}", headers=table)
    assert view.status_code == 200 and view.json["current"]["game"] == mine and view.json["table"] == 1
    assert view.json["next"] == SEATING[1][0]
    assert client.get(f"/api/v1/games/{mine}", headers=table).status_code == 200
    assert client.get(f"/api/v1/games/{mine}/events", headers=table).status_code == 200
    assert client.post(f"/api/v1/games/{mine}/actions", json={"actions": [{"type": "deal"}]},
                       headers=table).status_code == 201
    assert client.get(f"/api/v1/games/{mine}/deals/1/replay", headers=table).status_code == 200
    followed = client.get(f"/api/v1/games/{mine}/stream", headers=table, buffered=False)
    assert followed.status_code == 200 and followed.mimetype == "text/event-stream"
    followed.close()
    followed = client.get(f"/api/v1/tables/{link['code']}/stream", headers=table, buffered=False)
    assert followed.status_code == 200 and followed.mimetype == "text/event-stream"
    followed.close()
    before = calls.state(club, other)["version"]
    # another table's game, the club, the evening's other routes, another table's code: as if they were not there
    for answer in (
        client.get(f"/api/v1/games/{other}", headers=table),
        client.get(f"/api/v1/games/{other}/events", headers=table),
        client.post(f"/api/v1/games/{other}/actions", json={"actions": [{"type": "deal"}]}, headers=table),
        client.get(f"/api/v1/tables/{created['links'][1]['code']}", headers=table),
        client.post(f"/api/v1/tables/{created['links'][1]['code']}/confirmations",
                    json={"game": other, "player": "Élise"}, headers=table),
        client.get(f"/api/v1/clubs/{club.id}", headers=table),
        client.get(f"/api/v1/clubs/{club.id}/games", headers=table),
        client.post(f"/api/v1/clubs/{club.id}/games", json={"players": ["a", "b"], "starting_chips": 60},
                    headers=table),
        client.get(evenings_url(club), headers=table),
        client.get(evenings_url(club, evening), headers=table),
        client.get(evenings_url(club, evening, "grid"), headers=table),
        client.post(evenings_url(club, evening, "decisions"), json={"type": "reveal"}, headers=table),
        client.post(evenings_url(club, evening, "rounds"), json={}, headers=table),
        client.post(f"/api/v1/clubs/{club.id}/tokens", json={"role": "scorer"}, headers=table),
        client.get(f"/api/v1/clubs/{club.id}/scoreboard", headers=table),
        client.get(f"/api/v1/games/{other}/stream", headers=table),
        client.get(f"/api/v1/games/{other}/deals/1/replay", headers=table),
        client.get(f"/api/v1/games/{mine}/audit", headers=table),
        client.get(f"/api/v1/clubs/{club.id}/stream", headers=table),
        client.get(evenings_url(club, evening, "stream"), headers=table),
        client.get(f"/api/v1/tables/{created['links'][1]['code']}/stream", headers=table),
    ):
        assert_problem(answer, 404, "not-found")
    assert calls.state(club, other)["version"] == before
    assert get(calls, club, evening, "decisions")["version"] == 2
    # another club's token does not find the table either
    neighbour = calls.club("Les Voisins")
    assert_problem(client.get(f"/api/v1/tables/{link['code']}", headers=neighbour.auth), 404, "not-found")
    # a new link for the table reaches the same games; the first one keeps working
    again = client.post(evenings_url(club, evening, "tables", "1", "links"), headers=club.auth)
    assert again.status_code == 201 and again.json["code"] == link["code"]
    second = {"Authorization": f"Bearer {again.json['secret']}"}
    assert client.get(f"/api/v1/games/{mine}", headers=second).status_code == 200
    assert client.get(f"/api/v1/games/{mine}", headers=table).status_code == 200
    assert_problem(client.get(f"/api/v1/games/{other}", headers=second), 404)


def test_a_result_counts_once_a_player_of_the_table_confirms_it(calls: Calls, club: Club) -> None:
    seating = [[PLAYERS[0:3], PLAYERS[3:6]]]
    created = create(calls, club, players=PLAYERS[:6], rounds=1, seating=seating, confirmation=True)
    evening, link = created["id"], created["links"][0]
    table = {"Authorization": f"Bearer {link['secret']}"}
    game = start_round(calls, club, evening)["rounds"][0]["tables"][0]["game"]
    confirm = f"/api/v1/tables/{link['code']}/confirmations"
    assert_problem(calls.client.post(confirm, json={"game": game, "player": "Ben"}, headers=table), 422,
                   "game-not-ended")
    play(calls, table, game, seed=5, players=3)
    assert get(calls, club, evening, "grid")["tables"][0]["cells"][0]["mark"] == "unconfirmed"
    assert all(row["score"] == 0 for row in get(calls, club, evening, "ranking")["rows"])
    assert_problem(calls.client.post(confirm, json={"game": game, "player": "Denis"}, headers=table), 422,
                   "not-at-table")
    answer = calls.client.post(confirm, json={"game": game, "player": "ben"}, headers=table)
    assert answer.status_code == 201, answer.get_json()
    assert answer.json["current"]["confirmed_by"] == "Ben" and answer.json["current"]["mark"] == "counted"
    assert_problem(calls.client.post(confirm, json={"game": game, "player": "Ana"}, headers=table), 422,
                   "already-confirmed")
    cell = get(calls, club, evening, "grid")["tables"][0]["cells"][0]
    assert (cell["mark"], cell["confirmed_by"]) == ("counted", "Ben")
    scores = {row["name"]: row["score"] for row in get(calls, club, evening, "ranking")["rows"]}
    chips = [p["chips"] for p in calls.state(club, game)["players"]]
    assert [scores[name] for name in PLAYERS[:3]] == pytest.approx(expected_points(chips), abs=0.006)
    decisions = get(calls, club, evening, "decisions")["decisions"]
    assert decisions[-1]["type"] == "result_confirmed" and decisions[-1]["by"] == {
        "role": "table", "table": 1, "token": decisions[-1]["by"]["token"]}
    # an undo past the game's end changes the result: it waits for a new confirmation
    undone = calls.act(club, game, {"type": "undo", "reason": "wrong card"})
    assert undone.status_code == 201, undone.get_json()
    assert get(calls, club, evening, "grid")["tables"][0]["cells"][0]["mark"] in ("missing", "unconfirmed")


def test_refusals_change_nothing(calls: Calls, club: Club) -> None:
    created = create(calls, club)
    evening = created["id"]
    games_before = calls.client.get(f"/api/v1/clubs/{club.id}/games?limit=500", headers=club.auth).json["games"]
    viewer = calls.token(club, "viewer")
    url = evenings_url(club, evening)
    refused = [
        (calls.client.post(evenings_url(club), json={"name": "x", "players": ["a", "b"], "rounds": 1,
                                                      "starting_chips": 60}, headers=club.auth), 422, None),
        (calls.client.post(evenings_url(club), json={"name": "x", "players": PLAYERS[:6], "rounds": 1,
                                                      "starting_chips": 60, "seating": [[PLAYERS[:3], PLAYERS[:3]]]},
                           headers=club.auth), 422, "invalid-tables"),
        (calls.client.post(evenings_url(club), json={"name": "x", "players": PLAYERS[:6], "rounds": 1,
                                                      "starting_chips": 60, "sizes": [4, 4]}, headers=club.auth),
         422, "invalid-tables"),
        (calls.client.post(evenings_url(club), json={"name": "x", "players": PLAYERS[:6], "rounds": 1,
                                                      "starting_chips": 1,
                                                      "seating": [[PLAYERS[:3], PLAYERS[3:6]]]}, headers=club.auth),
         422, None),
        (calls.client.post(url + "/rounds", json={}, headers=viewer.auth), 403, "forbidden"),
        (calls.client.post(url + "/decisions", json={"type": "void", "game": "nope", "reason": "x"},
                           headers=club.auth), 422, "not-evening-game"),
        (calls.client.post(url + "/decisions", json={"type": "adjustment", "player": "Nobody", "amount": 3,
                                                     "reason": "x"}, headers=club.auth), 422, "unknown-player"),
        (calls.client.post(url + "/decisions", json={"type": "adjustment", "player": "Ana", "amount": 3},
                           headers=club.auth), 422, "invalid-request"),
        (calls.client.post(url + "/decisions", json={"type": "award", "player": "Ana", "round": 1, "score": 3,
                                                     "reason": "x"}, headers=club.auth), 422, "invalid-round"),
        (calls.client.post(url + "/decisions", json={"type": "reveal"}, headers=club.auth), 422, "not-frozen"),
        (calls.client.post(url + "/decisions", json={"type": "arrival", "players": ["Ana"]}, headers=club.auth),
         422, "player-present"),
        (calls.client.post(url + "/confirmations", json={"game": "x", "player": "Ana"}, headers=club.auth), 422,
         "confirmation-off"),
        (calls.client.post(url + "/rounds", json={"tables": [PLAYERS[:4], PLAYERS[4:8]]}, headers=club.auth),
         422, "invalid-tables"),
        (calls.client.get(evenings_url(club, "nope"), headers=club.auth), 404, "not-found"),
        (calls.client.post(url + "/tables/9/links", headers=club.auth), 404, "not-found"),
    ]
    for answer, status, code in refused:
        body = assert_problem(answer, status, code)
        assert body["detail"]
    french = calls.client.post(url + "/decisions", json={"type": "reveal"},
                               headers={**club.auth, "Accept-Language": "fr"})
    assert_problem(french, 422, "not-frozen")
    assert french.json["detail"] != refused[9][0].json["detail"]
    stale = calls.client.post(url + "/decisions", json={"type": "adjustment", "player": "Ana", "amount": 3,
                                                          "reason": "sent twice"},
                              headers={**club.auth, "If-Match": '"0"'})
    assert assert_problem(stale, 409, "version-conflict")["current_version"] == 1
    assert calls.client.get(url, headers=club.auth).headers["ETag"] == '"1"'
    assert get(calls, club, evening, "decisions")["version"] == 1
    assert calls.client.get(f"/api/v1/clubs/{club.id}/games?limit=500", headers=club.auth).json["games"] == \
        games_before
    assert len(calls.client.get(evenings_url(club), headers=club.auth).json["evenings"]) == 1
    # a round refused while the last one is being played, and after the evening closed
    start_round(calls, club, evening)
    assert_problem(calls.client.post(url + "/rounds", json={}, headers=club.auth), 422, "round-not-finished")
    calls.client.post(url + "/close", json={}, headers=club.auth)
    for answer in (calls.client.post(url + "/rounds", json={"force": True}, headers=club.auth),
                   calls.client.post(url + "/decisions", json={"type": "freeze", "through_round": 1},
                                     headers=club.auth),
                   calls.client.post(url + "/close", json={}, headers=club.auth)):
        assert_problem(answer, 422, "evening-closed")
    assert get(calls, club, evening, "decisions")["version"] == 3


def test_the_big_screen_leaderboard_freezes_and_reveals(calls: Calls, club: Club) -> None:
    seating = [[PLAYERS[0:3]], [PLAYERS[0:3]]]
    evening = create(calls, club, players=PLAYERS[:3], rounds=2, seating=seating)["id"]
    first = start_round(calls, club, evening)["rounds"][0]["tables"][0]["game"]
    play(calls, club.auth, first, seed=1, players=3)
    decide(calls, club, evening, type="freeze", through_round=1)
    second = start_round(calls, club, evening)["rounds"][1]["tables"][0]["game"]
    play(calls, club.auth, second, seed=2, players=3)
    board = get(calls, club, evening, "leaderboard")
    full = get(calls, club, evening, "ranking")
    assert board["frozen"] and board["through_round"] == 1 and full["through_round"] == 2
    assert board["rows"] == get(calls, club, evening, "ranking", query="?through_round=1")["rows"]
    decide(calls, club, evening, type="reveal")
    assert get(calls, club, evening, "leaderboard")["rows"] == full["rows"]


def closed_evening(calls: Calls, club: Club, day: str, scores: dict[str, int]) -> str:
    """A closed evening of one table whose game ends at once (every player tied: 50 each), then adjusted so that
    each player's score is the one given."""
    names = list(scores)
    evening = create(calls, club, name=f"Soirée {day}", date=day, players=names, rounds=1, seating=[[names]])["id"]
    game = start_round(calls, club, evening)["rounds"][0]["tables"][0]["game"]
    assert calls.act(club, game, {"type": "end", "reason": "closing"}).status_code == 201
    for name, score in scores.items():
        decide(calls, club, evening, type="adjustment", player=name, amount=score - 50, reason="set for the test")
    assert calls.client.post(evenings_url(club, evening, "close"), json={}, headers=club.auth).status_code == 201
    return evening


def test_the_season_ladder_keeps_the_best_evenings_of_qualified_players(calls: Calls, club: Club) -> None:
    season = calls.client.post(f"/api/v1/clubs/{club.id}/seasons", json={
        "name": "Hiver", "from": "2027-01-01", "to": "2027-03-31", "qualifying_evenings": 3, "best_evenings": 2},
        headers=club.auth)
    assert season.status_code == 201 and season.json["best_evenings"] == 2
    closed_evening(calls, club, "2027-01-07", {"Ana": 80, "Ben": 40, "Chloé": 60})
    closed_evening(calls, club, "2027-01-14", {"Ana": 10, "Ben": 90, "Chloé": 70, "Denis": 100})
    closed_evening(calls, club, "2027-01-21", {"Ana": 70, "Ben": 20, "Denis": 100})
    closed_evening(calls, club, "2027-04-02", {"Ana": 100, "Ben": 100, "Chloé": 100})  # after the season
    open_one = create(calls, club, name="open", date="2027-01-28", players=["Ana", "Ben", "Chloé"], rounds=1,
                      seating=[[["Ana", "Ben", "Chloé"]]])["id"]
    ladder = calls.client.get(f"/api/v1/clubs/{club.id}/seasons/hiver/ladder", headers=club.auth)
    assert ladder.status_code == 200, ladder.get_json()
    # Ana 80 + 70 (10 dropped) = 150; Ben 90 + 40 (20 dropped) = 130; Chloé has 2 evenings of 3, Denis 2 of 3.
    assert [(r["rank"], r["name"], r["total"], r["evenings"], r["kept"]) for r in ladder.json["rows"]] == [
        (1, "Ana", 150, 3, 2), (2, "Ben", 130, 3, 2), (None, "Denis", 200, 2, 2), (None, "Chloé", 130, 2, 2)]
    assert len(ladder.json["evenings"]) == 3 and open_one not in [e["id"] for e in ladder.json["evenings"]]
    csv = calls.client.get(f"/api/v1/clubs/{club.id}/seasons/Hiver/ladder?format=csv", headers=club.auth)
    assert csv.get_data(as_text=True).splitlines()[1] == '1,"Ana",3,2,150,"yes"'
    history = calls.client.get(f"/api/v1/clubs/{club.id}/players/ana/evenings?season=Hiver", headers=club.auth)
    assert history.status_code == 200 and history.json["player"] == "Ana"
    assert [(n["date"], n["score"], n["rank"]) for n in history.json["evenings"]] == [
        ("2027-01-28", 0, None), ("2027-01-21", 70, 2), ("2027-01-14", 10, 4), ("2027-01-07", 80, 1)]
    assert history.json["evenings"][0]["players"] == 0  # the open evening: no round played, nobody ranked yet
    assert calls.client.get(f"/api/v1/clubs/{club.id}/players/ana/evenings?format=csv",
                            headers=club.auth).mimetype == "text/csv"
    assert_problem(calls.client.get(f"/api/v1/clubs/{club.id}/seasons/none/ladder", headers=club.auth), 404)
    assert date.fromisoformat(ladder.json["from"]) == date(2027, 1, 1)
    # the season keeps every evening now, and two are enough to qualify
    changed = calls.client.patch(f"/api/v1/clubs/{club.id}/seasons/Hiver", headers=club.auth,
                                 json={"best_evenings": None, "qualifying_evenings": 2})
    assert changed.status_code == 200 and (changed.json["best_evenings"], changed.json["qualifying_evenings"]) == (
        None, 2)
    rows = calls.client.get(f"/api/v1/clubs/{club.id}/seasons/hiver/ladder", headers=club.auth).json["rows"]
    assert [(r["rank"], r["name"], r["total"]) for r in rows] == [
        (1, "Denis", 200), (2, "Ana", 160), (3, "Ben", 150), (4, "Chloé", 130)]
    viewer = calls.token(club, "viewer")
    assert_problem(calls.client.patch(f"/api/v1/clubs/{club.id}/seasons/Hiver", headers=viewer.auth,
                                      json={"best_evenings": 1}), 403, "forbidden")
    assert_problem(calls.client.patch(f"/api/v1/clubs/{club.id}/seasons/none", headers=club.auth,
                                      json={"best_evenings": 1}), 404, "not-found")


def seated(rounds: list[dict[str, Any]]) -> list[list[list[str]]]:
    return [[table["players"] for table in r["tables"]] for r in rounds]


def test_the_planner_draws_the_seats_and_an_arrival_or_a_departure_replans_the_rounds_not_played(
        calls: Calls, club: Club) -> None:
    nine = create(calls, club, players=PLAYERS[:9], rounds=4, seating=None,
                  tables={"smallest": 3, "preferred": 3, "largest": 3}, seed=3)
    assert (nine["worst_pair"], nine["bound"]) == (1, 1)  # 9 players, tables of 3, 4 rounds: every pair once
    created = create(calls, club, rounds=3, seating=None, seed=7)
    evening = created["id"]
    # 12 players at 3 tables of 4: a table of round 2 takes two players from one table of round 1 (pigeonhole)
    assert (created["worst_pair"], created["bound"]) == (2, 2)
    threes = create(calls, club, rounds=3, seating=None, tables={"smallest": 3, "preferred": 3, "largest": 3})
    assert (threes["worst_pair"], threes["bound"]) == (1, 1)  # at 4 tables of 3: no pair twice
    again = create(calls, club, rounds=3, seating=None, seed=7)
    assert seated(get(calls, club, again["id"], "rounds")["rounds"]) == \
        seated(get(calls, club, evening, "rounds")["rounds"])  # the same seed, the same plan
    first = start_round(calls, club, evening)["rounds"][0]
    for table in first["tables"]:
        play(calls, club.auth, table["game"], seed=table["table"])
    played = seated([first])[0]

    decided = decide(calls, club, evening, type="arrival", players=["Manon"], reason="came after dinner")
    assert decided["decision"]["type"] == "presence_changed" and decided["decision"]["data"]["arrived"] == ["Manon"]
    decide(calls, club, evening, type="departure", players=["Léa", "Karim"], reason="last train")
    rounds = get(calls, club, evening, "rounds")["rounds"]
    assert seated(rounds)[0] == played and [r["status"] for r in rounds] == ["started", "planned", "planned"]
    present = set(PLAYERS) - {"Léa", "Karim"} | {"Manon"}
    for tables in seated(rounds)[1:]:
        assert sorted(name for table in tables for name in table) == sorted(present)
        assert all(3 <= len(table) <= 8 for table in tables)
    view = get(calls, club, evening)
    assert {p["name"]: p["present"] for p in view["players"]}["Léa"] is False
    assert view["worst_pair"] >= view["bound"] >= 1
    second = start_round(calls, club, evening)["rounds"][1]
    assert seated([second])[0] == seated(rounds)[1]
    for table in second["tables"]:
        assert calls.state(club, table["game"])["players"][0]["name"] == table["players"][0]
    ranking = {row["name"]: row for row in get(calls, club, evening, "ranking")["rows"]}
    assert ranking["Léa"]["games"] == 1 and not ranking["Léa"]["present"] and ranking["Manon"]["games"] == 0
    # a withdrawal also replans what is left, and takes the player out of the ranking
    for table in second["tables"]:
        play(calls, club.auth, table["game"], seed=20 + table["table"], players=len(table["players"]))
    decide(calls, club, evening, type="withdrawal", player="Hugo", reason="left without a word")
    last = seated(get(calls, club, evening, "rounds")["rounds"])[2]
    assert "Hugo" not in [name for table in last for name in table]
    rows = get(calls, club, evening, "ranking")["rows"]
    assert rows[-1]["name"] == "Hugo" and rows[-1]["rank"] is None


def test_no_round_starts_after_the_end_time(calls: Calls, club: Club) -> None:
    seating = [[PLAYERS[0:3]]]
    past = create(calls, club, players=PLAYERS[:3], rounds=1, seating=seating, ends_at="2020-01-01T20:00")
    assert past["ends_at"] == "2020-01-01T20:00:00+00:00" and past["time_up"]
    assert_problem(calls.client.post(evenings_url(club, past["id"], "rounds"), json={}, headers=club.auth), 422,
                   "evening-time-up")
    later = create(calls, club, players=PLAYERS[:3], rounds=1, seating=seating, ends_at="2999-01-01T23:00+01:00")
    assert later["ends_at"] == "2999-01-01T22:00:00+00:00" and not later["time_up"]
    start_round(calls, club, later["id"])
    for wrong in ("tonight", "2026-13-01T20:00"):
        answer = calls.client.post(evenings_url(club), json={"name": "x", "players": PLAYERS[:3], "rounds": 1,
                                                             "starting_chips": 60, "seating": seating,
                                                             "ends_at": wrong}, headers=club.auth)
        assert_problem(answer, 422, "invalid-request")


def test_an_evenings_results_are_shared_read_only(calls: Calls, club: Club) -> None:
    seating = [[PLAYERS[0:3]]]
    evening = create(calls, club, players=PLAYERS[:3], rounds=1, seating=seating)["id"]
    other = create(calls, club, players=PLAYERS[:3], rounds=1, seating=seating)["id"]
    game = start_round(calls, club, evening)["rounds"][0]["tables"][0]["game"]
    play(calls, club.auth, game, seed=3, players=3)
    made = calls.client.post(f"/api/v1/clubs/{club.id}/shares", json={"evening": evening, "label": "le panneau"},
                             headers=club.auth)
    assert made.status_code == 201, made.get_json()
    assert (made.json["resource"], made.json["evening"], made.json["game"]) == ("evening", evening, None)
    assert made.json["url"] == f"/clubs/{club.id}/evenings/{evening}/results#share={made.json['secret']}"
    shared = {"Authorization": f"Bearer {made.json['secret']}"}
    for path in ("", "/rounds", "/ranking", "/ranking?format=csv", "/leaderboard"):
        answer = calls.client.get(evenings_url(club, evening) + path, headers=shared)
        assert answer.status_code == 200, (path, answer.get_json())
    assert calls.client.get(evenings_url(club, evening, "ranking"), headers=shared).json == \
        get(calls, club, evening, "ranking")
    for answer in (calls.client.get(evenings_url(club, evening, "grid"), headers=shared),
                   calls.client.get(evenings_url(club, evening, "decisions"), headers=shared),
                   calls.client.get(evenings_url(club, other), headers=shared),
                   calls.client.get(f"/api/v1/games/{game}", headers=shared),
                   calls.client.get(evenings_url(club), headers=shared)):
        assert_problem(answer, 404, "not-found")
    assert_problem(calls.client.post(evenings_url(club, evening, "close"), json={}, headers=shared), 403, "forbidden")
    listed = calls.client.get(f"/api/v1/clubs/{club.id}/shares?evening={evening}", headers=club.auth).json
    assert [(s["resource"], s["evening"]) for s in listed["shares"]] == [("evening", evening)]
    neighbour = calls.club("Les Voisins")
    assert_problem(calls.client.post(f"/api/v1/clubs/{neighbour.id}/shares", json={"evening": evening},
                                     headers=neighbour.auth), 404, "not-found")
    assert_problem(calls.client.post(f"/api/v1/clubs/{club.id}/shares", json={"evening": evening, "game": game},
                                     headers=club.auth), 422, "invalid-request")


def test_players_without_a_result_are_unranked_after_those_who_played(calls: Calls, club: Club) -> None:
    seating = [[PLAYERS[0:3], PLAYERS[3:6]]]
    evening = create(calls, club, players=PLAYERS[:6], rounds=1, seating=seating)["id"]
    rows = get(calls, club, evening, "ranking")["rows"]
    assert [(row["rank"], row["name"]) for row in rows] == [(None, name) for name in PLAYERS[:6]]
    tables = start_round(calls, club, evening)["rounds"][0]["tables"]
    play(calls, club.auth, tables[1]["game"], seed=4, players=3)  # table 2 ends; table 1 is still playing
    ranking = get(calls, club, evening, "ranking")
    assert [row["rank"] is not None for row in ranking["rows"]] == [True] * 3 + [False] * 3
    assert {row["name"] for row in ranking["rows"][:3]} == set(PLAYERS[3:6])
    assert [row["name"] for row in ranking["rows"][3:]] == PLAYERS[0:3] and ranking["rows"][0]["rank"] == 1
    assert get(calls, club, evening, "leaderboard")["rows"] == ranking["rows"]
    csv = calls.client.get(evenings_url(club, evening, "ranking") + "?format=csv", headers=club.auth)
    assert csv.get_data(as_text=True).splitlines()[4].startswith('"","Ana",0,0,"",0,"",')  # no rank, no average


def test_a_mend_is_signed_by_the_directors_name_and_published_with_its_reason(calls: Calls, club: Club) -> None:
    seating = [[PLAYERS[0:3]], [PLAYERS[0:3]]]
    evening = create(calls, club, players=PLAYERS[:3], rounds=2, seating=seating)["id"]
    first = start_round(calls, club, evening, signed_by="Marie")["rounds"][0]["tables"][0]["game"]
    play(calls, club.auth, first, seed=1, players=3)
    made = decide(calls, club, evening, type="adjustment", player="Ben", amount=-3, reason="slow play",
                  signed_by="  Marie Dupont ")
    assert made["decision"]["by"]["signed_by"] == "Marie Dupont" and made["decision"]["by"]["role"] == "scorer"
    decide(calls, club, evening, type="freeze", through_round=1, signed_by="Marie Dupont")
    second = start_round(calls, club, evening, force=True)["rounds"][1]["tables"][0]["game"]
    decide(calls, club, evening, type="void", game=second, reason="a card was missing")  # not signed
    log = get(calls, club, evening, "decisions")["decisions"]
    assert [d["by"].get("signed_by") for d in log] == [None, "Marie", "Marie Dupont", "Marie Dupont", None, None]
    ranking = get(calls, club, evening, "ranking")
    assert [(m["type"], m["round"], m["player"], m["amount"], m["reason"], m["signed_by"]) for m in ranking["mends"]] \
        == [("score_adjusted", 1, "Ben", -3, "slow play", "Marie Dupont"),
            ("game_voided", 2, None, None, "a card was missing", None)]
    assert ranking["mends"][1]["players"] == PLAYERS[:3] and ranking["mends"][1]["table"] == 1
    # the big screen, frozen after round 1, shows the mends of round 1 only
    assert [m["type"] for m in get(calls, club, evening, "leaderboard")["mends"]] == ["score_adjusted"]
    # the published results (an evening's share) read the same mends, which the share may not read in the log
    shared = calls.client.post(f"/api/v1/clubs/{club.id}/shares", json={"evening": evening}, headers=club.auth)
    secret = {"Authorization": f"Bearer {shared.json['secret']}"}
    assert calls.client.get(evenings_url(club, evening, "ranking"), headers=secret).json["mends"] == ranking["mends"]
    closed = calls.client.post(evenings_url(club, evening, "close"), json={"reason": "late", "signed_by": "Paul"},
                               headers=club.auth)
    assert closed.status_code == 201 and closed.json["decision"]["by"]["signed_by"] == "Paul"
    # a blank or too long name is refused, and nothing is recorded
    other = create(calls, club, players=PLAYERS[:3], rounds=1, seating=[[PLAYERS[0:3]]])["id"]
    for name in ("   ", "x" * 81):
        answer = calls.client.post(evenings_url(club, other, "decisions"), headers=club.auth,
                                   json={"type": "adjustment", "player": "Ana", "amount": 1, "reason": "r",
                                         "signed_by": name})
        assert assert_problem(answer, 422, "invalid-request")["detail"]
    assert get(calls, club, other, "decisions")["version"] == 1
