"""Games through the API: creation, state and ETag, lists, appends with If-Match and Idempotency-Key, the log."""

from __future__ import annotations

import threading

from nj_ledger.chain import verify_chain

ADJUST = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2, "reason": "a bet"}


def test_a_new_game_is_201_with_its_state_and_registers_its_players(client, calls, club) -> None:
    answer = client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth,
                         json={"players": ["Ana", "Ben", "Chloé"], "rules": {"profile": "classic", "max_deals": 3},
                               "starting_chips": 60, "dealer": 0})
    assert answer.status_code == 201 and answer.headers["ETag"] == '"1"'
    game = answer.json
    assert answer.headers["Location"].endswith(f"/api/v1/games/{game['id']}")
    assert (game["club"], game["version"], game["status"], game["next_dealer"]) == (club.id, 1, "ready", 0)
    assert game["players"] == [{"seat": 0, "name": "Ana", "chips": 60}, {"seat": 1, "name": "Ben", "chips": 60},
                               {"seat": 2, "name": "Chloé", "chips": 60}]
    assert game["rules"]["max_deals"] == 3 and game["board"] == {"10D": 0, "JC": 0, "QS": 0, "KH": 0, "7D": 0}
    assert game["deal"] is None and game["result"] is None
    members = client.get(f"/api/v1/clubs/{club.id}/players", headers=club.auth).json
    assert [p["name"] for p in members["players"]] == ["Ana", "Ben", "Chloé"] and members["next"] is None


def test_a_refused_game_is_422_with_the_cores_code(client, club, problem) -> None:
    answer = client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth,
                         json={"players": ["Ana", "Ben"], "rules": "whist", "starting_chips": 60})
    problem(answer, 422, "invalid-rules")
    answer = client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth,
                         json={"players": ["Ana", "Ana"], "starting_chips": 60})
    problem(answer, 422, "invalid-players")


def test_the_state_has_an_etag_and_answers_304_when_unchanged(client, calls, club) -> None:
    game = calls.game(club)["id"]
    calls.act(club, game, {"type": "deal"})
    answer = client.get(f"/api/v1/games/{game}", headers=club.auth)
    assert answer.status_code == 200 and answer.headers["ETag"] == '"17"'
    deal = answer.json["deal"]
    assert (deal["number"], deal["dealer"], deal["turn"], deal["expected"], deal["hand_sizes"]) == (1, 2, 0, None,
                                                                                                      [15, 15, 15])
    assert answer.json["board"] == {"10D": 3, "JC": 6, "QS": 9, "KH": 12, "7D": 15}
    again = client.get(f"/api/v1/games/{game}", headers={**club.auth, "If-None-Match": '"17"'})
    assert again.status_code == 304 and again.headers["ETag"] == '"17"'


def test_actions_answer_201_with_the_state_and_the_events_appended(calls, club) -> None:
    game = calls.game(club)["id"]
    answer = calls.act(club, game, {"type": "deal"}, {"type": "play", "seat": 0, "cards": ["8H", "9S"]})
    assert answer.status_code == 201 and answer.headers["ETag"] == '"18"'
    body = answer.json
    assert body["state"]["version"] == 18 and body["state"]["deal"]["expected"] == "10"
    assert [e["seq"] for e in body["events"]] == list(range(2, 19))
    assert [e["type"] for e in body["events"]][:2] == ["deal", "transfer"]
    assert set(body["events"][0]) == {"seq", "deal", "type", "data", "v", "recorded_at", "hash"}


def test_if_match_refuses_a_stale_version_with_409(calls, club, problem) -> None:
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "deal"}, If_Match='"1"').status_code == 201
    stale = calls.act(club, game, {"type": "play", "seat": 0, "cards": ["5H"]}, If_Match='"1"')
    body = problem(stale, 409, "version-conflict")
    assert body["current_version"] == 17 and stale.headers["ETag"] == '"17"'
    assert len(calls.events(club, game)) == 17
    assert calls.act(club, game, {"type": "play", "seat": 0, "cards": ["5H"]}, If_Match="*").status_code == 201


def test_an_idempotent_retry_gets_the_first_response_and_appends_nothing(calls, club, problem) -> None:
    game = calls.game(club)["id"]
    first = calls.act(club, game, ADJUST, Idempotency_Key="chip-1")
    retry = calls.act(club, game, ADJUST, Idempotency_Key="chip-1")
    assert (first.status_code, retry.status_code) == (201, 201)
    assert retry.get_data() == first.get_data() and retry.headers["ETag"] == first.headers["ETag"] == '"3"'
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert len(calls.events(club, game)) == 3
    problem(calls.act(club, game, {**ADJUST, "amount": 3}, Idempotency_Key="chip-1"), 422, "idempotency-mismatch")
    assert len(calls.events(club, game)) == 3
    assert calls.act(club, game, ADJUST, Idempotency_Key="chip-2").status_code == 201
    assert len(calls.events(club, game)) == 5


def test_an_idempotent_refusal_is_remembered_too(calls, club, problem) -> None:
    game = calls.game(club)["id"]
    play = {"type": "play", "seat": 0, "cards": ["5H"]}
    first = calls.act(club, game, play, Idempotency_Key="early")
    problem(first, 422, "no-deal-in-progress")
    calls.act(club, game, {"type": "deal"})
    retry = calls.act(club, game, play, Idempotency_Key="early")
    assert retry.status_code == 422 and retry.get_data() == first.get_data()
    assert len(calls.events(club, game)) == 17


def test_idempotency_keys_are_scoped_to_a_club(calls, club) -> None:
    neighbour = calls.club("Les Voisins")
    ours, theirs = calls.game(club)["id"], calls.game(neighbour)["id"]
    assert calls.act(club, ours, ADJUST, Idempotency_Key="same").status_code == 201
    answer = calls.act(neighbour, theirs, ADJUST, Idempotency_Key="same")
    assert answer.status_code == 201 and "Idempotent-Replayed" not in answer.headers


def test_the_log_is_paged_with_hashes(client, calls, club) -> None:
    game = calls.game(club)["id"]
    calls.act(club, game, {"type": "deal"})
    pages, url = [], f"/api/v1/games/{game}/events?limit=5"
    while url:
        answer = client.get(url, headers=club.auth)
        assert answer.status_code == 200 and answer.json["version"] == 17
        pages.append(answer.json["events"])
        url = answer.json["next"]
    assert [len(page) for page in pages] == [5, 5, 5, 2]
    records = [record for page in pages for record in page]
    assert [r["seq"] for r in records] == list(range(1, 18)) and verify_chain(records)["ok"]
    tail = client.get(f"/api/v1/games/{game}/events?after=15", headers=club.auth).json
    assert [r["seq"] for r in tail["events"]] == [16, 17] and tail["next"] is None


def test_a_clubs_games_are_listed_filtered_and_paged(client, calls, club) -> None:
    ended = calls.game(club, ["Ana", "Ben"])["id"]
    calls.act(club, ended, {"type": "end"})
    playing = calls.game(club, ["Chloé", "Denis", "Ana"])["id"]
    calls.act(club, playing, {"type": "deal"})

    def listed(query: str) -> list[str]:
        answer = client.get(f"/api/v1/clubs/{club.id}/games{query}", headers=club.auth)
        assert answer.status_code == 200, answer.json
        return [g["id"] for g in answer.json["games"]]

    assert listed("") == [playing, ended]
    assert listed("?status=ended") == [ended] and listed("?status=playing") == [playing]
    assert listed("?player=ana") == [playing, ended] and listed("?player=Denis") == [playing]
    first = client.get(f"/api/v1/clubs/{club.id}/games?limit=1", headers=club.auth).json
    assert [g["id"] for g in first["games"]] == [playing]
    second = client.get(first["next"], headers=club.auth).json
    assert [g["id"] for g in second["games"]] == [ended] and second["next"] is None
    summary = first["games"][0]
    assert (summary["players"], summary["status"], summary["version"], summary["profile"]) == (
        ["Chloé", "Denis", "Ana"], "playing", 17, "classic")
    today = summary["date"]
    assert listed(f"?date={today}") == [playing, ended]
    assert listed(f"?from={today}&to={today}") == [playing, ended] and listed("?to=2001-01-01") == []


def test_a_club_and_its_members(client, club, problem) -> None:
    answer = client.post(f"/api/v1/clubs/{club.id}/players", json={"name": "Élise"}, headers=club.auth)
    assert answer.status_code == 201 and answer.json["name"] == "Élise"
    problem(client.post(f"/api/v1/clubs/{club.id}/players", json={"name": "élise"}, headers=club.auth),
            409, "player-exists")
    problem(client.post(f"/api/v1/clubs/{club.id}/players", json={"name": "  "}, headers=club.auth),
            422, "invalid-request")
    about = client.get(f"/api/v1/clubs/{club.id}", headers=club.auth).json
    assert (about["id"], about["name"], about["players"], about["games"]) == (club.id, "Le Nain du Jeudi", 1, 0)


def test_concurrent_scorers_on_one_game_one_wins_the_others_get_409(app, calls, club) -> None:
    game = calls.game(club)["id"]
    start = threading.Barrier(6)
    statuses: list[int] = []

    def scorer() -> None:
        client = app.test_client()
        start.wait()
        answer = client.post(f"/api/v1/games/{game}/actions", json={"actions": [ADJUST]},
                             headers={**club.auth, "If-Match": '"1"'})
        statuses.append(answer.status_code)

    threads = [threading.Thread(target=scorer) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] + [409] * 5
    assert [r["seq"] for r in calls.events(club, game)] == [1, 2, 3]


def test_concurrent_scorers_without_if_match_are_all_stored_in_turn(app, calls, club) -> None:
    game = calls.game(club)["id"]
    statuses: list[int] = []

    def scorer() -> None:
        client = app.test_client()
        for _ in range(3):
            answer = client.post(f"/api/v1/games/{game}/actions", json={"actions": [ADJUST]}, headers=club.auth)
            statuses.append(answer.status_code)

    threads = [threading.Thread(target=scorer) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [201] * 15
    records = calls.events(club, game)
    assert [r["seq"] for r in records] == list(range(1, 32)) and verify_chain(records)["ok"]
