"""``nj-ledger analyse``: the review of a settled deal's decisions, as a table and as the API's JSON."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cli.commands import main
from nj_ledger.store import Store
from nj_ledger.store.documents import import_document

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json"


def analyse(database_url: str, *arguments: str) -> str:
    result = CliRunner().invoke(main, ["analyse", *arguments], env={"NJ_LEDGER_DATABASE_URL": database_url},
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_example_deal_shows_thomass_blunder(database_url: str, store: Store) -> None:
    club, _ = store.create_club("Analyse")
    game = import_document(store, club.id, json.loads(EXAMPLE.read_text(encoding="utf-8"))).game.id
    table = analyse(database_url, game, "--deal", "1", "--limit", "20000")
    assert "Deal 1: from event" in table
    lines = [line for line in table.splitlines() if "Thomas" in line and "blunder" in line]
    assert len(lines) == 1 and "7C 8H" in lines[0] and " 23 " in lines[0], table
    answer = json.loads(_json_part(analyse(database_url, game, "--deal", "1", "--limit", "20000", "--json")))
    assert answer["status"] == "partial"
    first = answer["decisions"][0]
    assert (first["seat"], first["lost"], first["mark"]) == (3, 23, "blunder")


def _json_part(output: str) -> str:
    return output[output.index("{"):]
