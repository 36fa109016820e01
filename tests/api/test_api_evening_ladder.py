"""The season ladder and a player's evenings through the API read who has a result from the evening's ranking:
a player the ranking ranks has an evening there, with the same score and rank; one it leaves unranked (no result,
or withdrawn) has none."""

from __future__ import annotations

from test_api_evenings import PLAYERS, create, decide, evenings_url, get, play, start_round

from support.http import Calls, Club

SIX = PLAYERS[:6]


def test_the_ladder_and_a_players_evenings_agree_with_the_ranking(calls: Calls, club: Club) -> None:
    season = calls.client.post(f"/api/v1/clubs/{club.id}/seasons", json={
        "name": "Printemps", "from": "2027-04-01", "to": "2027-06-30"}, headers=club.auth)
    assert season.status_code == 201, season.get_json()
    evening = create(calls, club, date="2027-04-08", players=SIX, rounds=1, seating=[[SIX[0:3], SIX[3:6]]])["id"]
    tables = start_round(calls, club, evening)["rounds"][0]["tables"]
    play(calls, club.auth, tables[0]["game"], seed=3, players=3)  # Ana, Ben, Chloé: a game counted
    decide(calls, club, evening, type="void", game=tables[1]["game"], reason="cards missing")  # Denis, Élise, Fanny
    decide(calls, club, evening, type="adjustment", player="Denis", amount=5, reason="helped set up")
    decide(calls, club, evening, type="adjustment", player="Denis", amount=-5, reason="entered twice")
    decide(calls, club, evening, type="award", player="Élise", round=1, score=40, reason="her table was voided")
    decide(calls, club, evening, type="withdrawal", player="Ana", reason="went home")  # after a game counted
    assert calls.client.post(evenings_url(club, evening, "close"), json={}, headers=club.auth).status_code == 201

    rows = {row["name"]: row for row in get(calls, club, evening, "ranking")["rows"]}
    # Denis's adjustments cancel out: a result the director gave, ranked with 0; Fanny's game was voided: no result
    assert rows["Denis"]["rank"] is not None and rows["Denis"]["score"] == 0 and rows["Denis"]["games"] == 0
    assert rows["Élise"]["rank"] is not None and rows["Élise"]["score"] == 40
    assert rows["Fanny"]["rank"] is None and not rows["Fanny"]["withdrawn"]
    assert rows["Ana"]["rank"] is None and rows["Ana"]["withdrawn"] and rows["Ana"]["games"] == 1
    ranked = {name: (row["score"], row["rank"]) for name, row in rows.items() if row["rank"] is not None}
    assert set(ranked) == {"Ben", "Chloé", "Denis", "Élise"}

    ladder = calls.client.get(f"/api/v1/clubs/{club.id}/seasons/printemps/ladder", headers=club.auth)
    assert ladder.status_code == 200, ladder.get_json()
    assert {row["name"]: (row["history"][0]["score"], row["history"][0]["rank"])
            for row in ladder.json["rows"]} == ranked
    assert all(row["evenings"] == 1 and row["total"] == ranked[row["name"]][0] for row in ladder.json["rows"])

    for name, row in rows.items():
        history = calls.client.get(f"/api/v1/clubs/{club.id}/players/{name}/evenings", headers=club.auth)
        assert history.status_code == 200, history.get_json()
        [night] = history.json["evenings"]
        assert (night["rank"], night["score"], night["games"], night["players"]) == (
            row["rank"], row["score"], row["games"], len(ranked))
