"""Reads of a whole log -- the audit, a club's audit, the export -- hold little memory and only a few at once.

Before games were bounded, one audit of a game of 120,017 events built its answer whole (74.8 MB traced for a
game of 50,001 events); six at once took a server to 1.36 GB. The audit is now written out as the log is read,
through temporary files that stay in memory while small, and a process reads two whole logs at once at most:
one more is answered 503 ``busy`` at once, with ``Retry-After``.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from flask import Flask

from api import audits
from api.audits import GATE, WHOLE_LOG_READS, audited_page
from api.context import store as app_store
from api.i18n import translate_audit
from api.problems import dump_json
from api.replay import AuditSchema, ReceiptsAuditSchema
from nj_ledger.bounds import MAX_GAME_EVENTS
from nj_ledger.decide import new_game
from nj_ledger.store import Store
from nj_ledger.store.checkpoints import audit_game, checkpoints
from support.apps import serving
from support.http import Calls, Club, assert_problem
from support.scale import scaled, sized

from .tampering import Table

LARGEST = MAX_GAME_EVENTS + 1  # adjustments before the first deal up to the bound, and the game's end
AUDIT_MEMORY = 8 * 2**20  # bytes an audit of a game may take at its peak (traced), whatever its length
FR = {"Accept-Language": "fr-FR,fr;q=0.9"}


def adjustments(count: int) -> list[dict[str, Any]]:
    there = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1, "reason": "a chip under the table"}
    return [there if index % 2 == 0 else {**there, "from": "seat:1", "to": "seat:0"} for index in range(count)]


def long_game(store: Store, events: int = LARGEST, club: Club | None = None) -> tuple[Club, str]:
    """A game of ``events`` events (odd: adjustments before any deal, then its end), written through the store
    5,000 adjustments at a time; in a club of its own unless ``club`` is given."""
    if club is None:
        info, token = store.clubs.create_club("Le Nain du Jeudi")
        club = Club(info.id, token.secret)
    game = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60)).game.id
    count = (events - 3) // 2
    for start in range(0, count, 5_000):
        store.games.append(club.id, game, adjustments(min(5_000, count - start)))
    assert store.games.append(club.id, game, [{"type": "end", "reason": "time to go home"}]).game.version == events
    return club, game


def store_of(app: Flask) -> Store:
    """The store of ``app`` (its app context left at once: requests made in it would share its ``g``)."""
    with app.app_context():
        return app_store()


def answered(calls: Calls, method: str, path: str, body: Any = None, **named: Any) -> tuple[int, bytes]:
    """An answer's status and body, read a chunk at a time as a server sends it."""
    answer = calls.send(method, path, body, buffered=False, **named)
    try:
        return answer.status_code, b"".join(answer.response)
    finally:
        answer.close()


def sent(calls: Calls, path: str, **named: Any) -> tuple[int, int]:
    """An answer's status and length, each chunk dropped once counted, as a server drops what it has sent."""
    answer = calls.get(path, buffered=False, **named)
    try:
        return answer.status_code, sum(len(chunk) for chunk in answer.response)
    finally:
        answer.close()


def schema_dump(app: Flask, club: str, game: str, receipts: list[dict[str, Any]] | None = None,
                headers: dict[str, str] | None = None) -> Any:
    """The audit as the route answered it when it was made whole: the report, written out, dumped by its schema."""
    schema = AuditSchema() if receipts is None else ReceiptsAuditSchema()
    with app.test_request_context(headers=headers or {}):
        report = translate_audit(audit_game(app_store().keys, club, game, receipts))
        return orjson.loads(dump_json(schema.dump(report)))


def receipts_of(table: Table) -> list[dict[str, Any]]:
    """Receipts a member kept (the checkpoints' own), one of another game and one that lies."""
    stored = checkpoints(table.store.db, table.club.id, table.game)
    kept = [{"game": table.game, "version": c["seq"], "head": c["head_hash"], "at": c["at"], "key": c["key_id"],
             "signature": c["signature"]} for c in stored if c["key_id"]]
    return [*kept[:4], {**kept[-1], "version": kept[-1]["version"] + 40},
            {**kept[0], "game": "another-game"}]


@contextmanager
def places_taken(app: Flask) -> Iterator[None]:
    """Every whole-log read of ``app``'s process taken, as by as many long audits under way."""
    places = app.extensions[GATE].places
    for _ in range(WHOLE_LOG_READS):
        assert places.acquire(blocking=False)
    try:
        yield
    finally:
        for _ in range(WHOLE_LOG_READS):
            places.release()


@pytest.mark.parametrize("damage", ["none", "cut-back", "events-removed", "rewritten", "extra-rows"])
def test_the_audit_written_as_it_is_read_is_the_audit_its_schema_dumps(table: Table, damage: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The same answer as when it was built whole, in English and in French, with and without receipts, on a
    game intact and on games tampered with (what each part of the report and its findings say); its lists
    written to files past a kilobyte, as a long game's are past their :data:`~api.audits.IN_MEMORY` bytes."""
    monkeypatch.setattr(audits, "IN_MEMORY", 1024)
    receipts = receipts_of(table)
    if damage == "cut-back":
        table.cut(table.signed()[2])
    elif damage == "events-removed":
        table.drop_guards("events")
        with table.engine.begin() as connection:
            connection.exec_driver_sql(f"DELETE FROM events WHERE game_id = '{table.game}' AND seq > 40")
    elif damage == "rewritten":
        table.rewrite_tail(30, lambda action: {**action, "amount": 3} if action["type"] == "adjust" else action)
    elif damage == "extra-rows":
        table.rewrite_tail(60, lambda action: action)
        with table.engine.begin() as connection:
            connection.exec_driver_sql(f"UPDATE games SET version = 50 WHERE id = '{table.game}'")
    app = table.calls.client.application
    for headers in ({}, FR):
        status, body = answered(table.calls, "GET", f"/api/v1/games/{table.game}/audit",
                                headers={**table.club.auth, **headers})
        assert status == 200
        assert orjson.loads(body) == schema_dump(app, table.club.id, table.game, headers=headers)
        status, body = answered(table.calls, "POST", f"/api/v1/games/{table.game}/audit", {"receipts": receipts},
                                headers={**table.club.auth, **headers})
        assert status == 200
        assert orjson.loads(body) == schema_dump(app, table.club.id, table.game, receipts, headers)
    if damage != "none":
        assert orjson.loads(body)["ok"] is False


@scaled
def test_the_audit_of_a_long_game_holds_little_memory_whatever_its_length(fresh_url: str) -> None:
    """Made whole, the audit of the largest game a ledger takes (answered in 9 MB) peaked at 74.8 MB (traced),
    that of a game of 10,001 events at 15 MB; written as it is read, either stays under a few megabytes. (What
    the answer says is held to what its schema dumps by the test above.) Quick: a game of 10,001 events;
    thorough: the largest."""
    events = sized(10_001, LARGEST)
    with serving(fresh_url) as app:
        store = store_of(app)
        club, game = long_game(store, events)
        small_club, small = long_game(store, 101)
        calls = Calls(app.test_client())
        assert answered(calls, "GET", f"/api/v1/games/{small}/audit", headers=small_club.auth)[0] == 200  # warm
        path, headers = f"/api/v1/games/{game}/audit", {**club.auth, **FR}
        gc.collect()
        tracemalloc.start()
        try:
            status, size = sent(calls, path, headers=headers)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert status == 200 and size > events * 180  # 9 MB for the largest game
        assert peak < AUDIT_MEMORY, (peak, size)


def test_past_its_whole_log_reads_a_server_answers_busy_at_once(fresh_url: str) -> None:
    with serving(fresh_url) as app:
        club, game = long_game(store_of(app), 101)
        client = app.test_client()
        paths = [f"/api/v1/games/{game}/audit", f"/api/v1/games/{game}/export", f"/api/v1/games/{game}/export"
                 "?format=njn", f"/api/v1/clubs/{club.id}/audit"]
        with places_taken(app):
            for path in paths:
                answer = client.get(path, headers=club.auth)
                problem = assert_problem(answer, 503, "busy")
                assert answer.headers["Retry-After"] == "5"
                assert problem["detail"] == (f"The server is reading {WHOLE_LOG_READS} whole game logs already: try "
                                             "again in a few seconds.")
            french = assert_problem(client.get(paths[0], headers={**club.auth, **FR}), 503, "busy")
            assert french["detail"].startswith(f"Le serveur lit déjà {WHOLE_LOG_READS} journaux")
            answer = client.post(paths[0], json={"receipts": []}, headers=club.auth)
            assert_problem(answer, 503, "busy")
        for path in paths:  # the places are given back: after a refusal as after an answer
            assert client.get(path, headers=club.auth).status_code == 200
        assert client.get(paths[0], headers=club.auth).status_code == 200


def test_a_page_of_a_clubs_audit_reads_at_most_the_events_of_the_longest_game(fresh_url: str) -> None:
    with serving(fresh_url) as app:
        store = store_of(app)
        club, longest = long_game(store)
        _, shorter = long_game(store, 101, club)  # newer: listed first
        client = app.test_client()
        first = client.get(f"/api/v1/clubs/{club.id}/audit?limit=20", headers=club.auth).json
        assert [line["game"] for line in first["games"]] == [shorter] and first["next"] is not None
        rest = client.get(first["next"], headers=club.auth).json
        assert [line["game"] for line in rest["games"]] == [longest] and rest["next"] is None
        line = rest["games"][0]
        assert line["ok"] and line["counts"] == {"error": 0, "warning": (LARGEST - 3) // 2, "info": 0}
        assert [finding["code"] for finding in line["findings"]] == ["adjustment"] * 3
        games = store.games.list_games(club.id, limit=20)
        assert audited_page(games) == games[:1] and audited_page(games[1:]) == games[1:]
