"""A log changed outside the ledger behind the game's summary: clear refusals, never a server error.

The game's version says which events the ledger acknowledged. An event removed
below it, or a row put past it, is damage no retry can mend: every route
answers a 4xx problem (409 ``log-damaged`` where the state cannot be built or
extended), and the audit names what it found.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import delete, insert, text
from sqlalchemy.exc import DBAPIError

from nj_ledger import new_game
from nj_ledger.store import Store
from nj_ledger.store.models import EventRecord
from support.http import Calls, Club, assert_problem

from .tampering import Table


def read_routes(table: Table) -> list[tuple[str, str, Any]]:
    game = f"/api/v1/games/{table.game}"
    return [("GET", game, None), ("GET", f"{game}/events", None), ("GET", f"{game}/deals/1/replay", None),
            ("GET", f"{game}/deals/3/replay", None), ("GET", f"{game}/audit", None),
            ("GET", f"{game}/export", None), ("GET", f"{game}/export?format=njn", None),
            ("POST", f"{game}/audit", {"receipts": []}), ("GET", f"/api/v1/clubs/{table.club.id}/games", None)]


def answers(table: Table) -> dict[str, Any]:
    table.store.games.cache.clear()
    table.store.games.deal_starts = type(table.store.games.deal_starts)()
    found = {}
    for method, path, body in read_routes(table):
        answer = table.calls.send(method, path, body, club=table.club)
        assert answer.status_code < 500, (method, path, answer.get_data(as_text=True))
        found[f"{method} {path}"] = answer
    return found


def test_a_deleted_last_event_is_a_409_not_a_500(table: Table) -> None:
    records = table.records()
    table.drop_guards("events")
    with table.engine.begin() as connection:
        connection.execute(delete(EventRecord).where(EventRecord.game_id == table.game,
                                                     EventRecord.seq == len(records)))
    found = answers(table)
    body = assert_problem(found[f"GET /api/v1/games/{table.game}"], 409, "log-damaged")
    assert f"before its version {len(records)}" in body["detail"]
    report = found[f"GET /api/v1/games/{table.game}/audit"].json
    assert not report["ok"] and report["head"] == {"ok": False, "version": len(records),
                                                   "last_seq": len(records) - 1, "first_bad_seq": len(records)}
    assert "log-cut" in {f["code"] for f in report["findings"]}
    assert_problem(table.calls.act(table.club, table.game, {"type": "end"}), 409, "log-damaged")
    assert len(table.records()) == len(records) - 1


def test_a_row_put_past_the_version_is_a_409_not_a_503(intruded: tuple[Store, Calls]) -> None:
    store, calls = intruded
    info, token = store.clubs.create_club("Le Nain du Jeudi")
    created = store.games.create_game(info.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60), [{"type": "deal"}])
    table = Table(store, Club(info.id, token.secret), created.game.id, calls)
    version = created.game.version
    last = table.records()[-1]
    with table.engine.begin() as connection:  # no trigger forbids an insert: nothing to drop
        connection.execute(insert(EventRecord), {**{k: last[k] for k in ("deal", "type", "data", "v", "recorded_at")},
                                                 "game_id": table.game, "seq": version + 1, "hash": "f" * 64})
    found = answers(table)
    assert found[f"GET /api/v1/games/{table.game}"].json["version"] == version  # the acknowledged log, as it was
    report = found[f"GET /api/v1/games/{table.game}/audit"].json
    assert not report["ok"] and report["head"]["first_bad_seq"] == version + 1
    assert "log-extra" in {f["code"] for f in report["findings"]}
    play = {"type": "play", "seat": 0, "cards": ["5H"]}
    assert_problem(calls.act(table.club, table.game, play), 409, "log-damaged")  # at once, not 503 after retries
    assert len(table.records()) == version + 1 and table.records()[-1]["hash"] == "f" * 64


CHANGES = {
    "data that is not JSON": ("data", "{not json"),
    "data that is a list": ("data", "[1, 2]"),
    "NaN where null was": ("data", None),  # filled in from the stored text
    "a deal that is not a number": ("deal", "x"),
    "an unknown type": ("type", "shuffle"),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_an_event_changed_into_what_the_ledger_never_writes_is_reported_never_a_500(table: Table,
                                                                                      change: str) -> None:
    column, value = CHANGES[change]
    records = table.records()
    seq = next(r["seq"] for r in records if r["type"] == "deal_ended")
    if change == "NaN where null was":  # orjson writes NaN as null: the text the hash was computed over
        seq = 1
        value = json.dumps(records[0]["data"]).replace('"max_deals": null', '"max_deals": NaN')
        assert "NaN" in value
    table.drop_guards("events")
    try:
        with table.engine.begin() as connection:
            connection.execute(text(f"UPDATE events SET {column} = :value WHERE game_id = :game AND seq = :seq"),
                               {"value": value, "game": table.game, "seq": seq})
    except DBAPIError:
        pytest.skip(f"{table.store.db.dialect} refuses {change} itself")
    found = answers(table)
    report = found[f"GET /api/v1/games/{table.game}/audit"].json
    assert not report["ok"] and report["chain"]["first_bad_seq"] == seq, report["chain"]
    events = found[f"GET /api/v1/games/{table.game}/events"]  # the row shown as it stands, in strict JSON
    assert events.status_code == 200 and json.loads(events.get_data(as_text=True), parse_constant=refuse)


def refuse(constant: str) -> None:
    raise AssertionError(f"{constant} is not JSON")
