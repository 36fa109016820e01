"""The big screen of a club evening through the API: the read-only link the director makes for it, and what it
shows beside the leaderboard — the round's seating between rounds, each table's progress during a round — read
with that link's share, refused to another evening's share."""

from __future__ import annotations

import base64

from test_api_evenings import PLAYERS, SEATING, create, decide, evenings_url, get, play, start_round

from support.http import Calls, Club, assert_problem


def screen_link(calls: Calls, club: Club, evening: str, **body: str) -> dict:
    answer = calls.client.post(evenings_url(club, evening, "screen", "links"), json=body, headers=club.auth)
    assert answer.status_code == 201, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    return dict(answer.json)


def screen(calls: Calls, evening_path: str, secret: str) -> dict:
    answer = calls.client.get(evening_path + "/screen", headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 200, answer.get_json()
    assert answer.headers["ETag"] == f'"{answer.json["version"]}"'
    return dict(answer.json)


def test_the_screens_link_is_an_evening_share_with_its_qr_code(calls: Calls, club: Club) -> None:
    evening = create(calls, club, confirmation=True)
    made = screen_link(calls, club, evening["id"], label="la télé du bar")
    assert set(made) == {"share", "evening", "label", "created_at", "secret", "url", "address", "qr_svg", "qr_png"}
    assert made["url"] == f"/clubs/{club.id}/evenings/{evening['id']}/screen#share={made['secret']}"
    assert made["address"].startswith("http://") and made["address"].endswith(made["url"])
    assert made["qr_svg"].lstrip().startswith("<svg")
    assert base64.b64decode(made["qr_png"]).startswith(b"\x89PNG\r\n\x1a\n")
    listed = calls.client.get(f"/api/v1/clubs/{club.id}/shares?evening={evening['id']}", headers=club.auth).json
    assert [(s["id"], s["resource"], s["label"]) for s in listed["shares"]] == [
        (made["share"], "evening", "la télé du bar")]
    assert screen_link(calls, club, evening["id"])["label"] == "big screen"  # no body: the default label

    # Its secret reads the evening's screen and leaderboard, and nothing of the club's beyond them.
    shared = {"Authorization": f"Bearer {made['secret']}"}
    for path in ("/screen", "/leaderboard", "", "/rounds"):
        assert calls.client.get(evenings_url(club, evening["id"]) + path, headers=shared).status_code == 200
    for path in ("/grid", "/decisions"):
        assert_problem(calls.client.get(evenings_url(club, evening["id"]) + path, headers=shared), 404, "not-found")
    assert_problem(calls.client.post(evenings_url(club, evening["id"], "screen", "links"), json={},
                                     headers=shared), 403, "forbidden")

    # Made by a scorer of the evening's club only.
    viewer = calls.token(club, "viewer")
    assert_problem(calls.client.post(evenings_url(club, evening["id"], "screen", "links"), json={},
                                     headers=viewer.auth), 403, "forbidden")
    assert_problem(calls.client.post(evenings_url(club, "no-such-evening", "screen", "links"), json={},
                                     headers=club.auth), 404, "not-found")
    neighbour = calls.club("Les Voisins")
    assert_problem(calls.client.post(f"/api/v1/clubs/{neighbour.id}/evenings/{evening['id']}/screen/links",
                                     json={}, headers=neighbour.auth), 404, "not-found")
    assert_problem(calls.client.post(evenings_url(club, evening["id"], "screen", "links"), json={"label": "x" * 121},
                                     headers=club.auth), 422, "invalid-request")


def test_another_evenings_share_reads_nothing_of_this_screen(calls: Calls, club: Club) -> None:
    evening = create(calls, club)["id"]
    other = create(calls, club)["id"]
    elsewhere = screen_link(calls, club, other)["secret"]
    assert screen(calls, evenings_url(club, other), elsewhere)["evening"] == other
    refused = calls.client.get(evenings_url(club, evening, "screen"), headers={"Authorization": f"Bearer {elsewhere}"})
    assert_problem(refused, 404, "not-found")
    board = calls.client.post(f"/api/v1/clubs/{club.id}/shares", json={"scoreboard": True},
                              headers=club.auth).json["secret"]
    assert_problem(calls.client.get(evenings_url(club, evening, "screen"),
                                    headers={"Authorization": f"Bearer {board}"}), 404, "not-found")
    assert_problem(calls.client.get(evenings_url(club, evening, "screen")), 401, "unauthorized")


def test_the_screen_seats_everyone_between_rounds_and_follows_each_tables_progress(calls: Calls,
                                                                                   club: Club) -> None:
    evening = create(calls, club, confirmation=True)
    path = evenings_url(club, evening["id"])
    secret = screen_link(calls, club, evening["id"])["secret"]
    codes = {t["table"]: t["code"] for t in evening["tables"]}

    # Before the first round: its planned seating, each table with its code and the QR code of its page.
    before = screen(calls, path, secret)
    assert (before["phase"], before["round"], before["round_status"], before["current_round"]) == (
        "seating", 1, "planned", 0)
    assert [t["players"] for t in before["tables"]] == SEATING[0]
    for table in before["tables"]:
        assert table["code"] == codes[table["table"]]
        assert table["page"].startswith("http://") and table["page"].endswith(f"/tables/{table['code']}")
        svg = base64.b64decode(table["qr"].removeprefix("data:image/svg+xml;base64,")).decode()
        assert svg.lstrip().startswith("<svg")
        assert (table["game"], table["mark"], table["progress"], table["deals_played"]) == (None, "planned",
                                                                                          "planned", 0)

    # Round 1 drawn, nothing recorded yet: still the seating, now of the round started, its games made.
    games = [t["game"] for t in start_round(calls, club, evening["id"])["rounds"][0]["tables"]]
    drawn = screen(calls, path, secret)
    assert (drawn["phase"], drawn["round"], drawn["round_status"]) == ("seating", 1, "started")
    assert [t["game"] for t in drawn["tables"]] == games
    assert [t["progress"] for t in drawn["tables"]] == ["waiting"] * 3

    # A deal dealt at table 1: the round is under way; table 2 plays to the end and is confirmed; table 3 voided.
    assert calls.act(club, games[0], {"type": "deal"}).status_code == 201
    playing = screen(calls, path, secret)
    assert (playing["phase"], playing["round"]) == ("playing", 1)
    assert [t["progress"] for t in playing["tables"]] == ["live", "waiting", "waiting"]
    play(calls, club.auth, games[1], seed=5)
    ended = screen(calls, path, secret)["tables"][1]
    assert (ended["progress"], ended["mark"]) == ("unconfirmed", "unconfirmed") and ended["deals_played"] >= 1
    deals = get(calls, club, evening["id"], "grid")["tables"][1]["cells"][0]["deals_played"]
    assert ended["deals_played"] == deals
    confirmed = calls.client.post(f"{path}/confirmations", json={"game": games[1], "player": SEATING[0][1][2]},
                                  headers=club.auth)
    assert confirmed.status_code == 201, confirmed.get_json()
    decide(calls, club, evening["id"], type="void", game=games[2], reason="the table left")
    now = screen(calls, path, secret)
    assert [(t["progress"], t["confirmed_by"]) for t in now["tables"]] == [
        ("live", None), ("confirmed", SEATING[0][1][2]), ("voided", None)]

    # Frozen: the screen says up to which round its leaderboard counts; closed: its last round, phase closed.
    decide(calls, club, evening["id"], type="freeze", through_round=0)
    assert screen(calls, path, secret)["frozen_through"] == 0
    closed = calls.client.post(f"{path}/close", json={}, headers=club.auth)
    assert closed.status_code == 201, closed.get_json()
    final = screen(calls, path, secret)
    assert (final["phase"], final["round"], final["status"], final["frozen_through"]) == ("closed", 1, "closed", None)


def test_the_screen_without_confirmation_says_ended(calls: Calls, club: Club) -> None:
    evening = create(calls, club, players=PLAYERS[:4], rounds=1, seating=[[PLAYERS[:4]]])
    game = start_round(calls, club, evening["id"])["rounds"][0]["tables"][0]["game"]
    play(calls, club.auth, game, seed=8)
    shown = get(calls, club, evening["id"], "screen")
    assert (shown["phase"], shown["confirmation"], shown["tables"][0]["progress"]) == ("playing", False, "ended")


def test_only_the_screens_share_reads_the_tables_codes_a_results_share_reads_them_left_out(
        calls: Calls, club: Club) -> None:
    evening = create(calls, club)
    path = evenings_url(club, evening["id"])
    codes = {t["table"]: t["code"] for t in evening["tables"]}
    made = screen_link(calls, club, evening["id"])
    results = calls.client.post(f"/api/v1/clubs/{club.id}/shares", json={"evening": evening["id"]},
                                headers=club.auth).json
    assert results["screen"] is False
    listed = calls.client.get(f"/api/v1/clubs/{club.id}/shares?evening={evening['id']}", headers=club.auth).json
    assert {s["id"]: s["screen"] for s in listed["shares"]} == {made["share"]: True, results["id"]: False}

    # the screen's share: the codes, pages and QR codes, on the evening and on the screen, as a club token reads them
    for secret in (made["secret"], None):
        headers = {"Authorization": f"Bearer {secret}"} if secret else club.auth
        view = calls.client.get(path, headers=headers).json
        assert {t["table"]: t["code"] for t in view["tables"]} == codes
        assert all(t["page"] == f"/tables/{t['code']}" for t in view["tables"])
        shown = calls.client.get(path + "/screen", headers=headers).json["tables"]
        assert all(t["code"] == codes[t["table"]] and t["page"] and t["qr"] for t in shown)

    # a results share: the same tables and players, every code, page and QR code null
    public = {"Authorization": f"Bearer {results['secret']}"}
    view = calls.client.get(path, headers=public)
    assert view.status_code == 200
    assert [(t["table"], t["code"], t["page"]) for t in view.json["tables"]] == [
        (number, None, None) for number in sorted(codes)]
    shown = screen(calls, path, results["secret"])
    assert [t["players"] for t in shown["tables"]] == SEATING[0]
    assert all((t["code"], t["page"], t["qr"]) == (None, None, None) for t in shown["tables"])
    for body in (view.get_data(as_text=True), str(shown)):
        assert not any(code in body for code in codes.values())

    # revoked, the screen's share reads nothing more
    assert calls.client.delete(f"/api/v1/clubs/{club.id}/shares/{made['share']}", headers=club.auth).status_code == 204
    assert_problem(calls.client.get(path, headers={"Authorization": f"Bearer {made['secret']}"}), 401,
                   "unauthorized")
