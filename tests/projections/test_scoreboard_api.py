"""The scoreboard, player statistics, seasons and club audit endpoints: periods, ties, sorting, CSV and access."""

from __future__ import annotations

import csv
import io
import itertools
from datetime import date, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from nj_ledger import new_game
from nj_ledger.store import Store
from support.http import Calls, Club, assert_problem

from .conftest import Table, record
from .reference import expected_scoreboard

DAY = date(2026, 5, 1)
FIELDS = ["rank", "name", "games", "wins", "deals_played", "deals_won", "net", "net_per_game", "grand_operas",
          "honours_taken", "honour_chips", "betes_paid", "ruins", "rating"]


def new_club(client: FlaskClient, name: str = "Club des Honneurs") -> Club:
    return Calls(client).club(name)


def viewer(client: FlaskClient, club: Club) -> Club:
    return Calls(client).token(club, "viewer")


problem = assert_problem


@pytest.fixture(scope="module")
def filled(app: Any, store: Store) -> Club:
    """A club with games over two months, among five players, one of whom plays once."""
    client = app.test_client()
    club = new_club(client)
    tables = [
        Table(1, ["Ana", "Ben", "Chloé"], day=DAY), Table(2, ["Ben", "Chloé", "Denis"], day=DAY + timedelta(days=3)),
        Table(3, ["Ana", "Denis"], day=DAY + timedelta(days=20)), Table(4, ["Ana", "Ben", "Chloé", "Denis"],
                                                                       day=DAY + timedelta(days=35)),
        Table(5, ["Chloé", "Élise"], day=DAY + timedelta(days=40)), Table(6, ["Ana", "Ben"], day=None),
    ]
    for table in tables:
        record(store, club.id, table)
    return club


def board(client: FlaskClient, club: Club, query: str = "") -> dict[str, Any]:
    answer = client.get(f"/api/v1/clubs/{club.id}/scoreboard{query}", headers=club.auth)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return dict(answer.json)


def test_the_scoreboard_shows_every_figure_best_net_first(client, store, filled) -> None:
    body = board(client, filled)
    assert body["club"] == filled.id and body["from"] is None and body["to"] is None
    assert all(list(row) == sorted(FIELDS) for row in body["rows"])
    expected = expected_scoreboard(store, filled.id)
    assert {row["name"].casefold() for row in body["rows"]} == set(expected)
    for row in body["rows"]:
        want = expected[row["name"].casefold()]
        assert (row["games"], row["net"], row["deals_won"], row["honour_chips"]) == (
            want.games, want.net, want.deals_won, want.honour_chips)
        assert row["wins"] == round(float(want.wins), 3)
        assert row["net_per_game"] == round(want.net / want.games, 2)
        assert row["rating"] == round(want.rating.mu - 3 * want.rating.sigma, 2)
    nets = [row["net"] for row in body["rows"]]
    assert nets == sorted(nets, reverse=True)
    assert body["rows"][0]["rank"] == 1


def test_ties_share_a_rank_and_are_listed_by_name(client, store) -> None:
    club = new_club(client, "Ex aequo")
    store.games.create_game(club.id, new_game(["Chloé", "ana", "Ben"], "classic", 60), [{"type": "end"}])
    record(store, club.id, Table(7, ["Denis", "Élise"], day=DAY))
    rows = board(client, club)["rows"]
    tied = [row for row in rows if row["net"] == 0]
    assert [(row["rank"], row["name"], row["wins"]) for row in tied] == [
        (tied[0]["rank"], "ana", 0.333), (tied[0]["rank"], "Ben", 0.333), (tied[0]["rank"], "Chloé", 0.333)]
    ranks = [row["rank"] for row in rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
    for position, row in enumerate(rows, start=1):  # a rank is the position of the first of its ties
        assert row["rank"] == min(p for p, r in enumerate(rows, start=1) if r["net"] == row["net"])
        assert position >= row["rank"]


@pytest.mark.parametrize("field", ["games", "wins", "deals_played", "net_per_game", "betes_paid", "rating", "name"])
def test_any_field_sorts_up_or_down(client, filled, field) -> None:
    def key(row: dict[str, Any]) -> Any:
        return row[field].casefold() if field == "name" else row[field]

    up = board(client, filled, f"?sort={field}")["rows"]
    down = board(client, filled, f"?sort=-{field}")["rows"]
    assert [key(row) for row in up] == sorted(key(row) for row in up)
    assert [key(row) for row in down] == sorted((key(row) for row in down), reverse=True)
    for rows in (up, down):
        for before, after in itertools.pairwise(rows):
            if key(before) == key(after):
                assert before["rank"] == after["rank"] and before["name"].casefold() < after["name"].casefold()
            else:
                assert after["rank"] == rows.index(after) + 1


def test_rank_sorts_the_default_order_either_way(client, filled) -> None:
    default = board(client, filled)["rows"]
    assert board(client, filled, "?sort=rank")["rows"] == default
    assert board(client, filled, "?sort=-rank")["rows"] == default[::-1]


def test_periods_filter_the_games_by_the_day_they_were_played(client, store, filled) -> None:
    start, end = DAY + timedelta(days=1), DAY + timedelta(days=35)
    body = board(client, filled, f"?from={start}&to={end}")
    assert (body["from"], body["to"]) == (start.isoformat(), end.isoformat())
    expected = expected_scoreboard(store, filled.id, start, end)
    assert {row["name"].casefold(): (row["games"], row["net"]) for row in body["rows"]} == {
        key: (want.games, want.net) for key, want in expected.items()}
    assert board(client, filled, f"?from={DAY + timedelta(days=41)}&to={DAY + timedelta(days=60)}")["rows"] == []
    only_from = board(client, filled, f"?from={DAY + timedelta(days=36)}")["rows"]
    assert {row["name"] for row in only_from} >= {"Chloé", "Élise"}


def test_min_games(client, filled) -> None:
    rows = board(client, filled, "?min_games=2")["rows"]
    assert rows and all(row["games"] >= 2 for row in rows) and "Élise" not in {row["name"] for row in rows}
    assert board(client, filled, "?min_games=1000")["rows"] == []


def test_csv_has_a_header_row_and_the_same_rows(client, filled) -> None:
    answer = client.get(f"/api/v1/clubs/{filled.id}/scoreboard?format=csv&sort=-rating", headers=filled.auth)
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert "attachment" in answer.headers["Content-Disposition"]
    table = list(csv.reader(io.StringIO(answer.get_data(as_text=True))))
    assert table[0] == FIELDS
    rows = board(client, filled, "?sort=-rating")["rows"]
    assert table[1:] == [[str(row[name]) for name in FIELDS] for row in rows]


def test_seasons_name_periods_for_the_scoreboard(client, filled) -> None:
    season = {"name": "Printemps", "from": DAY.isoformat(), "to": (DAY + timedelta(days=30)).isoformat()}
    created = client.post(f"/api/v1/clubs/{filled.id}/seasons", headers=filled.auth, json=season)
    assert created.status_code == 201
    assert created.json == {**season, "qualifying_evenings": 0, "best_evenings": None}  # the evening ladder's
    listed = client.get(f"/api/v1/clubs/{filled.id}/seasons", headers=filled.auth).json["seasons"]
    assert created.json in listed
    by_season = board(client, filled, "?season=printemps")
    by_dates = board(client, filled, f"?from={DAY}&to={DAY + timedelta(days=30)}")
    assert by_season == by_dates
    narrowed = board(client, filled, f"?season=Printemps&from={DAY + timedelta(days=2)}")
    assert (narrowed["from"], narrowed["to"]) == ((DAY + timedelta(days=2)).isoformat(),
                                                  (DAY + timedelta(days=30)).isoformat())
    problem(client.post(f"/api/v1/clubs/{filled.id}/seasons", headers=filled.auth,
                        json={"name": "PRINTEMPS", "from": "2026-01-01", "to": "2026-02-01"}), 409, "season-exists")
    problem(client.post(f"/api/v1/clubs/{filled.id}/seasons", headers=filled.auth,
                        json={"name": "Hiver", "from": "2026-03-01", "to": "2026-02-01"}), 422, "invalid-period")
    problem(client.post(f"/api/v1/clubs/{filled.id}/seasons", headers=filled.auth,
                        json={"name": " ", "from": "2026-01-01", "to": "2026-02-01"}), 422, "invalid-request")
    problem(client.post(f"/api/v1/clubs/{filled.id}/seasons", headers=viewer(client, filled).auth,
                        json={"name": "Été", "from": "2026-06-01", "to": "2026-08-31"}), 403, "forbidden")


@pytest.mark.parametrize(("query", "code"), [
    ("?sort=colour", "invalid-request"), ("?sort=--net", "invalid-request"), ("?min_games=-1", "invalid-request"),
    ("?min_games=many", "invalid-request"), ("?from=2026-13-01", "invalid-request"), ("?format=xml", "invalid-request"),
    ("?from=2026-06-02&to=2026-06-01", "invalid-period"), ("?season=nowhere", "unknown-season"),
])
def test_bad_parameters_are_problems_with_a_code(client, filled, query, code) -> None:
    problem(client.get(f"/api/v1/clubs/{filled.id}/scoreboard{query}", headers=filled.auth), 422, code)


def test_a_players_stats_and_history(client, store, filled) -> None:
    answer = client.get(f"/api/v1/clubs/{filled.id}/players/ana/stats?limit=2", headers=filled.auth)
    assert answer.status_code == 200
    body = answer.json
    row = next(r for r in board(client, filled)["rows"] if r["name"] == "Ana")
    assert body["player"]["name"] == "Ana"
    assert {k: body["figures"][k] for k in row if k not in ("rank", "name")} == {
        k: v for k, v in row.items() if k not in ("rank", "name")}
    assert len(body["history"]) == 2 and body["next"]
    rest = client.get(body["next"], headers=filled.auth).json
    history = body["history"] + rest["history"]
    assert rest["next"] is None and len(history) == row["games"]
    assert sum(game["net"] for game in history) == row["net"]
    dates = [game["date"] for game in history]
    assert dates == sorted(dates, reverse=True)
    for game in history:
        assert "Ana" in game["players"] and game["players"][game["seat"]] == "Ana"
        assert game["chips_by_deal"][0] + game["net"] == game["chips"]
        assert len(game["chips_by_deal"]) == game["deals_played"] + 1
    by_id = client.get(f"/api/v1/clubs/{filled.id}/players/{body['player']['id']}/stats", headers=filled.auth)
    assert by_id.json["figures"] == body["figures"]
    quiet = client.get(f"/api/v1/clubs/{filled.id}/players/Élise/stats?to={DAY}", headers=filled.auth).json
    assert quiet["figures"]["games"] == 0 and quiet["figures"]["rating"] is None and quiet["history"] == []
    problem(client.get(f"/api/v1/clubs/{filled.id}/players/Nobody/stats", headers=filled.auth), 404, "not-found")
    for who in ("¹", "99999999999999999999"):  # a digit int() refuses; an id no database column holds
        problem(client.get(f"/api/v1/clubs/{filled.id}/players/{who}/stats", headers=filled.auth), 404, "not-found")
    problem(client.get(f"/api/v1/clubs/{filled.id}/players/ana/stats?from=2026-02-02&to=2026-02-01",
                       headers=filled.auth), 422, "invalid-period")


def test_the_club_audit_summarises_every_game(client, filled) -> None:
    answer = client.get(f"/api/v1/clubs/{filled.id}/audit?limit=4", headers=filled.auth)
    assert answer.status_code == 200
    page = answer.json
    assert len(page["games"]) == 4 and page["next"]
    rest = client.get(page["next"], headers=filled.auth).json
    games = page["games"] + rest["games"]
    assert len(games) == 6 and rest["next"] is None
    for line in games:
        assert line["ok"] is True and set(line["counts"]) == {"error", "warning", "info"}
        assert len(line["findings"]) == min(3, sum(line["counts"].values()))
        full = client.get(f"/api/v1/games/{line['game']}/audit", headers=filled.auth).json
        assert line["ok"] == full["ok"] and sum(line["counts"].values()) == len(full["findings"])
    problem(client.get(f"/api/v1/clubs/{filled.id}/audit?limit=0", headers=filled.auth), 422, "invalid-request")


ROUTES = ["/api/v1/clubs/{club}/scoreboard", "/api/v1/clubs/{club}/scoreboard?format=csv",
          "/api/v1/clubs/{club}/players/Ana/stats", "/api/v1/clubs/{club}/seasons", "/api/v1/clubs/{club}/audit"]


@pytest.mark.parametrize("route", ROUTES)
def test_a_viewer_reads_another_club_finds_nothing_and_no_token_is_401(client, filled, route) -> None:
    path = route.format(club=filled.id)
    assert client.get(path, headers=viewer(client, filled).auth).status_code == 200
    problem(client.get(path), 401, "unauthorized")
    problem(client.get(path, headers={"Authorization": "Bearer not-a-token"}), 401, "unauthorized")
    stranger = new_club(client, "Autre club")
    problem(client.get(path, headers=stranger.auth), 404, "not-found")
    problem(client.post(f"/api/v1/clubs/{filled.id}/seasons", headers=stranger.auth,
                        json={"name": "Été", "from": "2026-06-01", "to": "2026-08-31"}), 404, "not-found")
