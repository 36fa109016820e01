"""The `nj-ledger evening` commands: create, show, round, close, on the test databases."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli.commands import main
from nj_ledger.store import Store

PLAYERS = "Ana,Ben,Chloé,Denis,Élise,Fanny,Gaston"


@pytest.fixture
def run(database_url: str):
    runner = CliRunner()

    def invoke(*arguments: str, expect: int = 0):
        result = runner.invoke(main, list(arguments), env={"NJ_LEDGER_DATABASE_URL": database_url},
                               catch_exceptions=False)
        assert result.exit_code == expect, result.output
        return result

    return invoke


def test_an_evening_from_the_command_line(run, store: Store) -> None:
    club, _ = store.clubs.create_club("Club de Vannes")
    made = json.loads(run("evening", "create", club.id, "Jeudi", "--players", PLAYERS, "--rounds", "3",
                          "--date", "2026-11-26", "--base-url", "https://nj.example", "--json").output)
    evening = made["id"]
    assert [t["table"] for t in made["tables"]] == [1, 2] and made["rounds"] == 3
    assert made["links"][0]["url"].startswith(f"https://nj.example/tables/{made['links'][0]['code']}#token=")
    token = store.authenticate(made["links"][1]["secret"])
    assert token is not None and (token.role, token.table) == ("table", 2)

    started = run("evening", "round", club.id, evening).output
    assert "Round 1 started:" in started and "table 2" in started
    refused = run("evening", "round", club.id, evening, expect=1).output
    assert "round-not-finished" in refused
    shown = run("evening", "show", club.id, evening).output
    assert "round 1 (played)" in shown and "round 2 (planned)" in shown and "missing" in shown
    assert "ranking:" in shown
    as_json = json.loads(run("evening", "show", club.id, evening, "--json").output)
    assert as_json["evening"]["current_round"] == 1 and len(as_json["ranking"]["rows"]) == 7
    closed = run("evening", "close", club.id, evening, "--reason", "storm").output
    assert "closed" in closed
    assert "evening-closed" in run("evening", "round", club.id, evening, "--force", expect=1).output
    read = store.evenings.evening(club.id, evening)
    assert [item["by"]["role"] for item in read.entries] == ["operator"] * 3
    assert "invalid-evening-players" in run("evening", "create", club.id, "x", "--players", "Ana,Ben",
                                            "--rounds", "1", expect=1).output
    assert len(store.evenings.list_evenings(club.id)) == 1
