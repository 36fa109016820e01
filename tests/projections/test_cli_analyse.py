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
    club, _ = store.clubs.create_club("Analyse")
    game = import_document(store.games, club.id, json.loads(EXAMPLE.read_text(encoding="utf-8"))).game.id
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


def test_a_deal_settled_by_count_says_its_figures_are_means_over_sampled_deals(database_url: str, store: Store
                                                                               ) -> None:
    club, _ = store.clubs.create_club("Compte")
    document = {"format": "nj-ledger/game", "version": 1, "players": ["A", "B", "C"], "starting_chips": 100,
                "rules": {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}},
                "actions": [{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["AC", "2C"]},
                            {"type": "play", "seat": 1, "cards": ["3D"]}, {"type": "play", "seat": 2, "cards": ["4D"]},
                            {"type": "play", "seat": 0, "cards": ["5C", "6C"]},
                            {"type": "reveal", "seat": 1, "count": 3, "points": 27, "honours": ["QS"]},
                            {"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]}]}
    game = import_document(store.games, club.id, document).game.id
    table = analyse(database_url, game, "--deal", "1")
    assert "Deal 1: searched to the end. Some cards were never seen: means over 8 deals drawn among the 156" in table
    answer = json.loads(_json_part(analyse(database_url, game, "--deal", "1", "--json")))
    assert answer["sampled"] == {"samples": 8, "seed": 0, "deals": 156, "hidden": 3}
