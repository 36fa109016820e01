"""A member's erasure (``POST /clubs/{club}/members/{member}/erasure``, ``nj-ledger members erase``): after games and
an evening, the member's name is found nowhere — not in an answer, a page, an export, a CSV, nor in any text column
of the database — every audit is clean and lists its redactions, every receipt held before still verifies, every
other member's scoreboard row is unchanged; and every refusal changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import MetaData, insert, select, update
from test_api_directors import director_of
from test_api_evenings import create, decide, play, start_round

from cli.commands import main
from nj_ledger.archive import verify_archive
from nj_ledger.chain import event_hash
from nj_ledger.store import Store
from nj_ledger.store.models import EventRecord, RedactionRecord
from nj_ledger.store.redactions import content_digest
from nj_ledger.store.rows import JSONText, json_text
from support.http import Calls, Club

NAME = "Gwenaëlle"  # a name no other text of the club holds, in any case
PLAYERS = [NAME, "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo", "Inès", "Jules", "Karim", "Léa"]


def erased_nowhere(text: str) -> bool:
    return "gwena" not in text.casefold()


@pytest.fixture
def played(calls: Calls, club: Club) -> dict[str, Any]:
    """A club where the member played a game of their own and an evening's round, with a director's correction
    naming them; the receipts the members kept, and the scoreboard, before any erasure."""
    game = calls.game(club, [NAME, "Ben", "Chloé"])["id"]
    play(calls, club.auth, game, seed=5, players=3)
    evening = create(calls, club, players=PLAYERS, rounds=1, seating=[[PLAYERS[0:4], PLAYERS[4:8], PLAYERS[8:12]]])
    tables = start_round(calls, club, evening["id"])["rounds"][0]["tables"]
    for table in tables:
        play(calls, club.auth, table["game"], seed=3 + table["table"])
    decided = decide(calls, club, evening["id"], type="adjustment", player=NAME, amount=5,
                     reason=f"{NAME.lower()} est arrivée en retard")
    games = [game, *(table["game"] for table in tables)]
    receipts = {g: calls.state(club, g)["receipt"] for g in games}
    seated = [game, next(t["game"] for t in tables if t["table"] == 1)]  # table 1 seats PLAYERS[0:4]
    waiting = calls.game(club, ["Ben", NAME, "Léa"])["id"]  # not dealt yet
    return {"game": game, "games": games, "seated": seated, "waiting": waiting, "evening": evening["id"],
            "receipts": receipts, "evening_receipt": decided["receipt"], "scoreboard": scoreboard(calls, club)}


def scoreboard(calls: Calls, club: Club) -> dict[str, dict[str, Any]]:
    rows = calls.read("GET", f"/api/v1/clubs/{club.id}/scoreboard", club=club)["rows"]
    return {row["name"]: row for row in rows}


def answers(calls: Calls, club: Club, played: dict[str, Any]) -> dict[str, str]:
    """Every answer, page, export and CSV that showed the member's name before the erasure, as text."""
    evening, game = played["evening"], played["game"]
    c, e = f"/api/v1/clubs/{club.id}", f"/api/v1/clubs/{club.id}/evenings/{played['evening']}"
    paths = [f"{c}/players", f"{c}/games", f"{c}/scoreboard", f"{c}/scoreboard?format=csv", f"{c}/audit",
             f"{c}/archive", f"{c}/evenings", e, f"{e}/decisions", f"{e}/ranking", f"{e}/ranking?format=csv",
             f"{e}/leaderboard", f"{e}/grid", f"/clubs/{club.id}/evenings/{evening}/results",
             f"/api/v1/games/{game}/sheet", f"/games/{game}/sheet", f"/games/{game}/replay"]
    for g in played["games"]:
        paths += [f"/api/v1/games/{g}", f"/api/v1/games/{g}/events?limit=1000", f"/api/v1/games/{g}/export",
                  f"/api/v1/games/{g}/deals/1/replay", f"/api/v1/games/{g}/audit"]
    shown = {}
    for path in paths:
        answer = calls.get(path, club=club)
        if answer.status_code != 404:  # a page some paths do not have
            assert answer.status_code == 200, (path, answer.status_code, answer.get_data(as_text=True)[:300])
            shown[path] = answer.get_data(as_text=True)
    return shown


def database_text(store: Store, club: Club) -> dict[str, str]:
    """Every row of the database that belongs to the club (it names the club, one of its games or evenings), as
    text, by table: other tests' clubs share the database."""
    ours = {club.id, *(g.id for g in store.games.list_games(club.id, limit=1000)),
            *(e.id for e in store.evenings.list_evenings(club.id, limit=1000))}
    tables = MetaData()
    tables.reflect(store.db.engine)
    found = {}
    with store.db.engine.connect() as connection:
        for name, table in tables.tables.items():
            rows = [str(row) for row in connection.execute(select(table))]
            found[name] = "\n".join(sorted(row for row in rows if any(key in row for key in ours)))
    return found


def test_an_erased_member_is_found_nowhere_and_every_record_still_verifies(
        calls: Calls, club: Club, store: Store, played: dict[str, Any]) -> None:
    before = answers(calls, club, played)
    assert not erased_nowhere(before[f"/api/v1/games/{played['game']}/export"])  # the search finds the name
    member = next(p["id"] for p in calls.read("GET", f"/api/v1/clubs/{club.id}/players", club=club)["players"]
                  if p["name"] == NAME)
    director = director_of(store, club)

    erased = calls.read("POST", f"/api/v1/clubs/{club.id}/members/{NAME.upper()}/erasure",
                        {"reason": "asked to be forgotten"}, club=director, status=201)
    assert (erased["number"], erased["member"], erased["pseudonym"]) == (1, member, "Joueur 1")
    assert erased["by"]["role"] == "director" and erased["reason"] == "asked to be forgotten"
    # each game's start and its end's standings, the waiting game's start; the evening's creation, its round and
    # the correction
    assert erased["redacted"] == {"games": 3, "events": 5, "evenings": 1, "entries": erased["redacted"]["entries"]}
    assert erased["redacted"]["entries"] >= 3
    assert erased_nowhere(json.dumps(erased, ensure_ascii=False))

    # the name is found nowhere: not in an answer, a page, an export, a CSV, nor in the database
    after = answers(calls, club, played)
    assert after.keys() == before.keys()
    assert [path for path, text in after.items() if not erased_nowhere(text)] == []
    assert "Joueur 1" in after[f"/api/v1/games/{played['game']}/export"]
    assert [table for table, text in database_text(store, club).items() if not erased_nowhere(text)] == []

    # every other member's row is what it was; the erased member's figures stay under their pseudonym
    rows = scoreboard(calls, club)
    assert {name: row for name, row in rows.items() if name != "Joueur 1"} == {
        name: row for name, row in played["scoreboard"].items() if name != NAME}
    assert {**rows["Joueur 1"], "name": NAME} == played["scoreboard"][NAME]

    # every audit is clean and lists what was redacted, by which erasure; every receipt held still verifies
    for game in played["games"]:
        audit = calls.read("POST", f"/api/v1/games/{game}/audit", {"receipts": [played["receipts"][game]]},
                           club=club)
        assert audit["ok"] and audit["receipts"]["ok"], audit
        if game not in played["seated"]:
            assert audit["redactions"] == [] and "Joueur 1" not in json.dumps(audit)
            continue
        assert audit["redactions"][0] == {"seq": 1, "erasure": 1} and len(audit["redactions"]) == 2
        assert [f["seq"] for f in audit["findings"] if f["code"] == "redacted"] == [
            item["seq"] for item in audit["redactions"]]
    evening = calls.read("POST", f"/api/v1/clubs/{club.id}/evenings/{played['evening']}/audit",
                         {"receipts": [played["evening_receipt"]]}, club=club)
    assert evening["ok"] and evening["receipts"]["ok"], evening
    assert len(evening["redactions"]) == erased["redacted"]["entries"]
    assert {item["erasure"] for item in evening["redactions"]} == {1}

    # the erasure is in the club's audit, chained and signed, holding no name
    club_audit = calls.read("GET", f"/api/v1/clubs/{club.id}/audit", club=club)
    assert club_audit["erasures"]["chain"] == {"ok": True, "count": 1, "first_bad": None}
    assert [e["pseudonym"] for e in club_audit["erasures"]["erasures"]] == ["Joueur 1"]

    # the club's archive leaves the member out and still verifies offline
    archive = calls.read("GET", f"/api/v1/clubs/{club.id}/archive", club=club)
    assert NAME not in [m["name"] for m in archive["members"]]
    report = verify_archive(archive)
    assert report.ok, report.problems

    # a game goes on: its next event chains after the redacted one, and it audits clean
    assert calls.act(club, played["waiting"], {"type": "deal"}).status_code == 201
    going = calls.read("GET", f"/api/v1/games/{played['waiting']}/audit", club=club)
    assert going["ok"] and going["redactions"] == [{"seq": 1, "erasure": 1}] and going["events"] > 1
    assert [p["name"] for p in calls.state(club, played["waiting"])["players"]] == ["Ben", "Joueur 1", "Léa"]


def test_refusals_change_nothing(calls: Calls, club: Club, store: Store, played: dict[str, Any], problem) -> None:
    url = f"/api/v1/clubs/{club.id}/members/{NAME}/erasure"
    director, viewer, other = director_of(store, club), calls.token(club, "viewer"), calls.club("Le Nain du Vendredi")
    kept = database_text(store, club)
    problem(calls.post(url, {"reason": "asked"}, club=club), 403, "forbidden")  # the scorer's token
    french = problem(calls.post(url, {"reason": "asked"}, club=club, headers={"Accept-Language": "fr"}), 403,
                     "forbidden")
    assert "directeur" in french["detail"], french
    problem(calls.post(url, {"reason": "asked"}, club=viewer), 403, "forbidden")
    problem(calls.post(url, {}, club=director), 422, "invalid-request")
    problem(calls.post(url, {"reason": "   "}, club=director), 422, "invalid-request")
    problem(calls.post(f"/api/v1/clubs/{club.id}/members/Nobody/erasure", {"reason": "asked"}, club=director), 404,
            "not-found")
    problem(calls.post(url, {"reason": "asked"}, club=other), 404, "not-found")
    unused = {"tokens"}  # where the use of a token is noted, to the minute
    assert {t: text for t, text in database_text(store, club).items() if t not in unused} == {
        t: text for t, text in kept.items() if t not in unused}

    calls.read("POST", url, {"reason": "asked"}, club=director, status=201)
    again = problem(calls.post(f"/api/v1/clubs/{club.id}/members/Joueur 1/erasure", {"reason": "asked"},
                               club=director), 409, "already-erased")
    assert "Joueur 1" in again["detail"]
    problem(calls.post(url, {"reason": "asked"}, club=director), 404, "not-found")  # the name is gone


def test_an_erasure_that_fails_half_way_leaves_the_member_as_they_were(
        club: Club, store: Store, played: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    kept = database_text(store, club)

    def fails(*_: Any) -> None:
        raise RuntimeError("the process stops here")

    monkeypatch.setattr("nj_ledger.store.erasures.Erasures._rewrite_copies", staticmethod(fails))
    with pytest.raises(RuntimeError):
        store.erasures.erase(club.id, NAME, "asked", {"role": "operator"})
    assert database_text(store, club) == kept
    assert store.games.game(club.id, played["game"]).players[0] == NAME


def test_the_operator_erases_from_the_command_line(store: Store, club: Club, played: dict[str, Any],
                                                   database_url: str) -> None:
    run = CliRunner().invoke(main, ["members", "erase", club.id, NAME, "--reason", "à sa demande"],
                             env={"NJ_LEDGER_DATABASE_URL": database_url, "LANG": "fr_FR.UTF-8"})
    assert run.exit_code == 0, run.output
    assert "Joueur 1" in run.output and erased_nowhere(run.output)
    listed = CliRunner().invoke(main, ["members", "erasures", club.id, "--json"],
                                env={"NJ_LEDGER_DATABASE_URL": database_url})
    assert json.loads(listed.output)["erasures"][0]["by"] == {"role": "operator"}
    refused = CliRunner().invoke(main, ["members", "erase", club.id, "Joueur 1", "--reason", "again"],
                                 env={"NJ_LEDGER_DATABASE_URL": database_url})
    assert refused.exit_code != 0 and "already" in refused.output
    blank = CliRunner().invoke(main, ["members", "erase", club.id, "Ben", "--reason", " "],
                               env={"NJ_LEDGER_DATABASE_URL": database_url})
    assert blank.exit_code != 0 and store.clubs.member(club.id, "Ben").name == "Ben"


def test_a_redaction_forged_outside_the_ledger_breaks_the_chain(calls: Calls, club: Club, store: Store,
                                                                 played: dict[str, Any]) -> None:
    """Someone who may write the database alters an event and records a redaction for it, to pass the change for
    an erasure's: the redaction belongs to no signed erasure, so the audit believes none of the club's."""
    calls.read("POST", f"/api/v1/clubs/{club.id}/members/{NAME}/erasure", {"reason": "asked"},
               club=director_of(store, club), status=201)
    game = played["game"]
    records = store.games.records(club.id, game)
    target = next(r for r in records if r["type"] == "play")
    altered = {**target, "data": {**target["data"], "announced": ["forged"]}}
    text = JSONText(json_text(altered["data"], sort_keys=True))
    with store.db.engine.begin() as connection:
        connection.execute(insert(RedactionRecord), [{
            "club_id": club.id, "erasure": 1, "log": "game", "log_id": game, "seq": target["seq"],
            "previous": records[target["seq"] - 2]["hash"], "hash": target["hash"],
            "redacted": event_hash(records[target["seq"] - 2]["hash"], altered), "content": content_digest(text)}])
        connection.execute(update(EventRecord).where(EventRecord.game_id == game, EventRecord.seq == target["seq"])
                           .values(data=text))
    audit = calls.read("GET", f"/api/v1/games/{game}/audit", club=club)
    assert not audit["ok"] and audit["chain"]["first_bad_seq"] == 1, audit["chain"]
    assert calls.read("GET", f"/api/v1/clubs/{club.id}/erasures", club=club)["chain"] == {
        "ok": False, "count": 1, "first_bad": 1}


def test_a_name_that_is_also_a_word_of_the_log_is_refused_not_written_out(calls: Calls, club: Club,
                                                                          store: Store, problem) -> None:
    game = calls.game(club, ["Classic", "Ben", "Chloé"])["id"]  # the rules' profile is "classic" too
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    refused = problem(calls.post(f"/api/v1/clubs/{club.id}/members/Classic/erasure", {"reason": "asked"},
                                 club=director_of(store, club), headers={"Accept-Language": "fr"}), 409,
                      "erasure-refused")
    assert "Classic" in refused["detail"]
    assert calls.state(club, game)["players"][0]["name"] == "Classic"
    assert calls.read("GET", f"/api/v1/games/{game}/audit", club=club)["ok"]
