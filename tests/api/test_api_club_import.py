"""`nj-ledger club import FILE`: a club's archive brought into another server — its members, seasons, games and
evenings recorded again there, every game and evening audited clean, the scoreboard what it was; an archive cut
short, altered in one byte or signed by a key not believed is refused and stores nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_api_archive import archived_club
from test_api_directors import director_of

from benchmarks.scratch import migrated_database
from cli.commands import main
from nj_ledger.receipts import Signer
from nj_ledger.store import Store
from support.apps import serving
from support.http import Calls, Club


@pytest.fixture
def elsewhere(backend: str, tmp_path: Path) -> Iterator[str]:
    """Another server's database, empty, at the latest schema."""
    with migrated_database(backend, tmp_path) as url:
        yield url


def imported(url: str, path: Path, *options: str) -> Result:
    return CliRunner().invoke(main, ["club", "import", str(path), *options], env={"NJ_LEDGER_DATABASE_URL": url})


def counts(url: str) -> dict[str, int]:
    """How many rows the tables a club's import writes hold."""
    store = Store(url)
    try:
        with store.db.reading() as session:
            return {table: session.connection().exec_driver_sql(f"SELECT count(*) FROM {table}").scalar_one()
                    for table in ("clubs", "players", "games", "events", "evenings", "evening_log", "seasons",
                                  "tokens", "checkpoints", "seat_results")}
    finally:
        store.close()


def test_an_archive_brings_the_club_into_another_server_audited_clean(
        calls: Calls, club: Club, store: Store, elsewhere: str, tmp_path: Path) -> None:
    archived_club(calls, club, store)  # a club with games, an evening and a season
    director = director_of(store, club)
    calls.read("POST", f"/api/v1/clubs/{club.id}/members/Sylvie/erasure", {"reason": "asked"}, club=director,
               status=201)
    archive = calls.read("GET", f"/api/v1/clubs/{club.id}/archive", club=club)
    path = tmp_path / "club.json"
    path.write_text(json.dumps(archive), encoding="utf-8")
    before = calls.read("GET", f"/api/v1/clubs/{club.id}/scoreboard", club=club)["rows"]

    run = imported(elsewhere, path, "--json")
    assert run.exit_code == 0, run.output
    answer = json.loads(run.output.splitlines()[-1])
    assert set(answer["games"]) == {game["id"] for game in archive["games"]}
    assert set(answer["evenings"]) == {evening["id"] for evening in archive["evenings"]}

    with serving(elsewhere) as app:
        there, moved = Calls(app.test_client()), Club(answer["club"], answer["token"])
        club_audit = there.read("GET", f"/api/v1/clubs/{moved.id}/audit?limit=100", club=moved)
        assert len(club_audit["games"]) == len(archive["games"])
        assert all(game["ok"] for game in club_audit["games"]), club_audit["games"]
        for evening in answer["evenings"].values():
            audit = there.read("POST", f"/api/v1/clubs/{moved.id}/evenings/{evening}/audit", {}, club=moved)
            assert audit["ok"], audit
        after = there.read("GET", f"/api/v1/clubs/{moved.id}/scoreboard", club=moved)["rows"]
        assert after == before  # the same figures, ranks and ratings, names included
        members = {p["name"] for p in there.read("GET", f"/api/v1/clubs/{moved.id}/players", club=moved)["players"]}
        assert {m["name"] for m in archive["members"]} <= members and "Sylvie" not in members
        assert there.read("GET", f"/api/v1/clubs/{moved.id}/seasons", club=moved)["seasons"][0]["name"] == "Hiver"
        for old, new in answer["games"].items():
            source = next(g for g in archive["games"] if g["id"] == old)["document"]
            document = there.read("GET", f"/api/v1/games/{new}/export", club=moved)
            assert document["actions"] == source["actions"] and document["players"] == source["players"]
        # the club goes on there: its director's token writes
        assert there.read("POST", f"/api/v1/clubs/{moved.id}/players", {"name": "Zoé"}, club=moved, status=201)


def test_a_bad_archive_is_refused_and_stores_nothing(calls: Calls, club: Club, store: Store, elsewhere: str,
                                                     tmp_path: Path) -> None:
    archived = archived_club(calls, club, store)
    empty = counts(elsewhere)
    text = json.dumps(archived)
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2], encoding="utf-8")
    assert imported(elsewhere, cut).exit_code != 0

    altered = json.loads(text)
    game = max(altered["games"], key=lambda g: len(g["document"]["events"]))
    game["document"]["events"][5]["data"] = {**game["document"]["events"][5]["data"], "x": 1}
    path = tmp_path / "altered.json"
    path.write_text(json.dumps(altered), encoding="utf-8")
    run = imported(elsewhere, path)
    assert run.exit_code == 1 and "chain-broken" in run.output, run.output

    forged = json.loads(text)
    forged["receipt"] = Signer.generate().sign_archive(forged["club"]["id"], 1, forged["digest"], "2026-11-28T00:00Z")
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    run = imported(elsewhere, path)
    assert run.exit_code == 1 and "archive-unsigned" in run.output, run.output
    assert counts(elsewhere) == empty
