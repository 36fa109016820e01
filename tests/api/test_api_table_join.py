"""A club evening's table joined by its code alone (POST /tables/{code}/join): a new token that reaches that table
and nothing of the club, the same refusal for a code never made and for a closed evening's, the tries counted per
client address (429 with Retry-After), misses and joins apart and tries sent at once held to the limits, the code
typed loosely; the 8-character codes, the 6-character ones still joined; a table's tokens bounded (409, the
director's links still made); where a table's players sit in the round just drawn."""

from __future__ import annotations

import itertools
import string
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import func, select, update
from test_api_evenings import SEATING, create, evenings_url, start_round

from nj_ledger.store import Store
from nj_ledger.store.evening_tables import CODE_ALPHABET, CODE_LENGTH
from nj_ledger.store.models import EveningTable, TableToken
from support.apps import new_app
from support.http import Calls, Club, assert_problem

_addresses = itertools.count(1)


def address() -> dict[str, Any]:
    """A client address of its own for a test: the joins are counted per address for the app's whole life."""
    return {"REMOTE_ADDR": f"198.51.100.{next(_addresses)}"}


def join(calls: Calls, code: str, client_address: dict[str, Any], **headers: str) -> Any:
    return calls.client.post(f"/api/v1/tables/{code}/join", environ_base=client_address, headers=headers)


def unknown_code(known: set[str]) -> str:
    for letters in itertools.product(CODE_ALPHABET, repeat=CODE_LENGTH):
        code = "".join(letters)
        if code not in known:
            return code
    raise AssertionError("every code is taken")


def test_a_code_joins_its_table_with_a_token_that_reaches_that_table_and_nothing_of_the_club(
        calls: Calls, club: Club) -> None:
    created = create(calls, club)
    evening = created["id"]
    tables = start_round(calls, club, evening)["rounds"][0]["tables"]
    mine, other = tables[0]["game"], tables[1]["game"]
    codes = [link["code"] for link in created["links"]]
    assert all(len(code) == CODE_LENGTH == 8 and set(code) <= set(CODE_ALPHABET) for code in codes)
    code = codes[0]
    client = calls.client

    answer = join(calls, code, address())  # no Authorization header at all
    assert answer.status_code == 201, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    joined = answer.json
    assert (joined["table"], joined["code"], joined["evening"], joined["status"]) == (1, code, evening, "open")
    assert joined["current"]["game"] == mine and joined["current"]["players"] == SEATING[0][0]
    assert joined["next"] == SEATING[1][0] and joined["moves"] is None
    token = joined["token"]
    assert token not in {link["secret"] for link in created["links"]} and len(token) >= 40
    table = {"Authorization": f"Bearer {token}"}
    # the token reaches the table: its view, its game, its actions, its confirmations' route
    assert client.get(f"/api/v1/tables/{code}", headers=table).json["current"]["game"] == mine
    assert client.get(f"/api/v1/games/{mine}", headers=table).status_code == 200
    assert client.post(f"/api/v1/games/{mine}/actions", json={"actions": [{"type": "deal"}]},
                       headers=table).status_code == 201
    # and nothing else: the club's routes, the evening's, another table's, as if they were not there
    before = calls.state(club, other)["version"]
    for refused in (
        client.get(f"/api/v1/clubs/{club.id}", headers=table),
        client.get(f"/api/v1/clubs/{club.id}/games", headers=table),
        client.get(f"/api/v1/clubs/{club.id}/players", headers=table),
        client.post(f"/api/v1/clubs/{club.id}/tokens", json={"role": "scorer"}, headers=table),
        client.get(evenings_url(club, evening), headers=table),
        client.post(evenings_url(club, evening, "rounds"), json={}, headers=table),
        client.post(evenings_url(club, evening, "tables", "1", "links"), headers=table),
        client.get(f"/api/v1/games/{other}", headers=table),
        client.post(f"/api/v1/games/{other}/actions", json={"actions": [{"type": "deal"}]}, headers=table),
        client.get(f"/api/v1/tables/{codes[1]}", headers=table),
    ):
        assert_problem(refused, 404, "not-found")
    assert calls.state(club, other)["version"] == before
    # each join makes a token of its own; the table's QR link keeps working
    again = join(calls, code, address()).json["token"]
    assert again != token
    for secret in (again, token, created["links"][0]["secret"]):
        assert client.get(f"/api/v1/games/{mine}", headers={"Authorization": f"Bearer {secret}"}).status_code == 200


def test_a_code_is_typed_in_lower_case_with_spaces_or_dashes_and_an_older_six_character_code_still_joins(
        calls: Calls, club: Club, store: Store) -> None:
    created = create(calls, club)
    code = created["links"][0]["code"]
    for typed in (code.lower(), f"{code[:4]}-{code[4:]}".lower(), f"{code[:4]}%20{code[4:]}"):
        answer = join(calls, typed, address())
        assert answer.status_code == 201, (typed, answer.get_json())
        assert (answer.json["table"], answer.json["code"]) == (1, code)
    # an evening opened before the codes grew to 8 characters: its 6-character codes join as ever
    older = "".join(CODE_ALPHABET[(index * 7) % 32] for index in range(6))
    with store.db.engine.begin() as connection:
        connection.execute(update(EveningTable).where(EveningTable.evening_id == created["id"],
                                                      EveningTable.number == 2).values(code=older))
    answer = join(calls, older.lower(), address())
    assert answer.status_code == 201, answer.get_json()
    assert (answer.json["table"], answer.json["code"]) == (2, older)
    view = calls.client.get(f"/api/v1/tables/{older}", headers={"Authorization": f"Bearer {answer.json['token']}"})
    assert view.status_code == 200 and view.json["table"] == 2


def test_a_code_never_made_and_a_closed_evenings_code_get_the_same_refusal(calls: Calls, club: Club) -> None:
    created = create(calls, club)
    evening, link = created["id"], created["links"][0]
    closed = calls.client.post(evenings_url(club, evening, "close"), json={"reason": "fin"}, headers=club.auth)
    assert closed.status_code == 201, closed.get_json()
    never = unknown_code({link["code"] for link in created["links"]})
    answers = {}
    for code in (link["code"], never, "not a code!", "ABC"):
        answers[code] = assert_problem(join(calls, code, address()), 404, "table-unknown")
    shown = {code: {**body, "detail": body["detail"].replace(repr(code), "CODE")} for code, body in answers.items()}
    assert shown[link["code"]] == shown[never]
    assert answers[never]["detail"] == f"There is no open table {never!r}: check the code printed on the table."
    french = join(calls, never, address(), **{"Accept-Language": "fr"}).get_json()
    assert french["code"] == "table-unknown"
    assert french["detail"] == (f"Aucune table ouverte n'a le code {never!r}\u00a0: vérifiez le code imprimé sur la "
                                "table.")
    # the closed evening's QR link still reads its table, and the evening holds no new token's trace
    assert calls.client.get(f"/api/v1/tables/{link['code']}",
                            headers={"Authorization": f"Bearer {link['secret']}"}).status_code == 200


def test_the_tries_are_counted_per_address_and_past_ten_misses_even_a_right_code_waits(
        calls: Calls, club: Club) -> None:
    created = create(calls, club)
    code = created["links"][0]["code"]
    known = {link["code"] for link in created["links"]}
    guesser, neighbour = address(), address()
    misses = []
    for letter in string.ascii_uppercase[:10]:
        misses.append(join(calls, unknown_code(known | {letter * CODE_LENGTH}), guesser))
    assert [answer.status_code for answer in misses] == [404] * 10
    for answer in (join(calls, unknown_code(known), guesser), join(calls, code, guesser)):
        body = assert_problem(answer, 429, "too-many-joins")
        seconds = int(answer.headers["Retry-After"])
        assert 1 <= seconds <= 60
        assert body["detail"] == (f"Too many tries to join a table came from this address: try again in {seconds} "
                                  "seconds.")
    french = join(calls, code, guesser, **{"Accept-Language": "fr"}).get_json()
    assert french["detail"].startswith("Trop d'essais pour rejoindre une table depuis cette adresse\u00a0:")
    # another address is not held back by the guesser
    assert join(calls, code, neighbour).status_code == 201


def test_sixty_joins_a_minute_from_one_address_and_no_more(calls: Calls, club: Club) -> None:
    code = create(calls, club)["links"][0]["code"]
    room = address()
    assert {join(calls, code, room).status_code for _ in range(60)} == {201}
    refused = join(calls, code, room)
    assert_problem(refused, 429, "too-many-joins")
    assert int(refused.headers["Retry-After"]) >= 1


def test_a_tables_view_says_where_its_players_of_the_round_before_sit_in_the_round_just_drawn(
        calls: Calls, club: Club) -> None:
    created = create(calls, club)
    evening = created["id"]
    codes = {link["table"]: link["code"] for link in created["links"]}
    start_round(calls, club, evening)
    start_round(calls, club, evening, force=True)
    joined = join(calls, codes[1], address()).json
    moves = joined["moves"]
    assert moves["round"] == 2
    # round 1, table 1: Ana, Ben, Chloé, Denis; round 2: Ana and Ben stay, Chloé goes to table 2, Denis to table 3
    assert moves["players"] == [
        {"name": "Ana", "table": 1, "code": codes[1], "stays": True},
        {"name": "Ben", "table": 1, "code": codes[1], "stays": True},
        {"name": "Chloé", "table": 2, "code": codes[2], "stays": False},
        {"name": "Denis", "table": 3, "code": codes[3], "stays": False},
    ]
    # a player who left is told he has no table
    left = calls.client.post(evenings_url(club, evening, "decisions"), json={
        "type": "withdrawal", "player": "Karim", "reason": "malade"}, headers=club.auth)
    assert left.status_code == 201, left.get_json()
    start_round(calls, club, evening, force=True)
    view = calls.client.get(f"/api/v1/tables/{codes[3]}", headers={"Authorization": f"Bearer {joined['token']}"})
    assert view.status_code == 404  # the token of table 1 does not read table 3
    third = join(calls, codes[3], address()).json["moves"]
    assert third["round"] == 3
    assert {p["name"]: p["table"] for p in third["players"]}["Karim"] is None


def test_behind_the_trusted_proxy_each_client_is_counted_by_its_own_address(store: Store) -> None:
    app = new_app(store, PROXIES="127.0.0.1", TABLE_JOIN_MISSES="2/minute")
    calls = Calls(app.test_client())
    code = create(calls, calls.club())["links"][0]["code"]
    proxy = {"REMOTE_ADDR": "127.0.0.1"}

    def through_proxy(code: str, client: str) -> Any:
        return calls.client.post(f"/api/v1/tables/{code}/join", environ_base=proxy,
                                 headers={"X-Forwarded-For": client})

    guesser, player = "203.0.113.7", "203.0.113.8"
    assert [through_proxy("22222222", guesser).status_code for _ in range(2)] == [404, 404]
    assert_problem(through_proxy(code, guesser), 429, "too-many-joins")
    # another client behind the same proxy, and a guesser who writes another address himself, are told apart
    assert through_proxy(code, player).status_code == 201
    assert_problem(through_proxy(code, f"{player}, {guesser}"), 429, "too-many-joins")


def app_calls(store: Store, **settings: Any) -> Calls:
    """An app of its own with the given limits, so that its counts start from nothing."""
    app = new_app(store, **settings)
    return Calls(app.test_client())


def in_parallel(calls: Calls, codes: list[str], client_address: dict[str, Any]) -> list[int]:
    """The statuses of joins sent all at once from one address, each from a thread of its own."""
    start = threading.Barrier(len(codes))

    def one(code: str) -> int:
        client = calls.client.application.test_client()
        start.wait()
        return int(client.post(f"/api/v1/tables/{code}/join", environ_base=client_address).status_code)

    with ThreadPoolExecutor(len(codes)) as pool:
        return list(pool.map(one, codes))


def test_the_misses_and_the_joins_are_counted_apart(store: Store) -> None:
    calls = app_calls(store, TABLE_JOIN_MISSES="4/minute", TABLE_JOINS="4/minute")
    created = create(calls, calls.club())
    code = created["links"][0]["code"]
    never = unknown_code({link["code"] for link in created["links"]})
    room = address()
    # two joins and a miss: one miss counted, three joins; a fourth join still passes, a fifth does not
    assert [join(calls, c, room).status_code for c in (code, code, never, code)] == [201, 201, 404, 201]
    assert_problem(join(calls, code, room), 429, "too-many-joins")
    # the misses have their own count: three more misses from another address pass, then the fifth is refused
    other = address()
    assert [join(calls, never, other).status_code for _ in range(4)] == [404] * 4
    assert_problem(join(calls, never, other), 429, "too-many-joins")


def test_guesses_sent_at_once_are_held_to_the_limit_of_misses(store: Store) -> None:
    calls = app_calls(store, TABLE_JOIN_MISSES="3/minute", TABLE_JOINS="100/minute")
    created = create(calls, calls.club())
    known = {link["code"] for link in created["links"]}
    guesses = [unknown_code(known | {letter * CODE_LENGTH}) for letter in string.ascii_uppercase[:12]]
    statuses = in_parallel(calls, guesses, address())
    assert sorted(statuses) == [404] * 3 + [429] * 9


def test_joins_sent_at_once_are_held_to_the_limit_of_joins(store: Store) -> None:
    calls = app_calls(store, TABLE_JOIN_MISSES="100/minute", TABLE_JOINS="5/minute")
    code = create(calls, calls.club())["links"][0]["code"]
    statuses = in_parallel(calls, [code] * 12, address())
    assert sorted(statuses) == [201] * 5 + [429] * 7


def test_a_table_holds_a_bounded_number_of_tokens_and_the_director_still_makes_links(store: Store) -> None:
    calls = app_calls(store, TABLE_TOKENS_PER_TABLE=4)
    club = calls.club()
    created = create(calls, club)  # each table has one token already: its scorer link
    evening, codes = created["id"], [link["code"] for link in created["links"]]
    room = address()
    assert [join(calls, codes[0], room).status_code for _ in range(3)] == [201] * 3
    full = join(calls, codes[0], room)
    body = assert_problem(full, 409, "table-tokens-exhausted")
    assert body["detail"] == ("Table 1 holds 4 tokens already, the most its code makes: scan the QR code printed on "
                              "the table, or ask the director for a scorer link.")
    french = join(calls, codes[0], room, **{"Accept-Language": "fr"}).get_json()
    assert french["code"] == "table-tokens-exhausted"
    assert french["title"] == "Le code de la table ne donne plus de jeton"
    assert french["detail"] == ("La table 1 a déjà 4 jetons, le plus que son code en donne\u00a0: scannez le QR code "
                                "imprimé sur la table, ou demandez un lien de marque au directeur.")
    with store.db.reading() as session:
        held = session.execute(select(func.count()).select_from(TableToken).where(
            TableToken.evening_id == evening, TableToken.number == 1)).scalar_one()
    assert held == 4
    # the director's page still makes a link for the table; another table still joins; a full table is no miss
    link = calls.client.post(evenings_url(club, evening, "tables", "1", "links"), headers=club.auth)
    assert link.status_code == 201, link.get_json()
    assert calls.client.get(f"/api/v1/tables/{codes[0]}",
                            headers={"Authorization": f"Bearer {link.json['secret']}"}).status_code == 200
    assert join(calls, codes[1], room).status_code == 201
    assert all(join(calls, codes[0], room).status_code == 409 for _ in range(12))
    assert join(calls, codes[2], room).status_code == 201


def test_joins_at_once_never_pass_the_bound_of_a_tables_tokens(store: Store) -> None:
    calls = app_calls(store, TABLE_TOKENS_PER_TABLE=5)
    created = create(calls, calls.club())
    code = created["links"][0]["code"]
    statuses = in_parallel(calls, [code] * 10, address())
    assert sorted(statuses) == [201] * 4 + [409] * 6
    with store.db.reading() as session:
        held = session.execute(select(func.count()).select_from(TableToken).where(
            TableToken.evening_id == created["id"], TableToken.number == 1)).scalar_one()
    assert held == 5
