"""The nj-ledger command line, through click's CliRunner, on the test databases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.commands import examples_folder, main
from nj_ledger.audit import audit
from nj_ledger.store import Store
from nj_ledger.store.migrate import head_revision, is_current
from support.apps import new_app

DOCUMENT = {"format": "nj-ledger/game", "version": 1, "title": "Essai", "players": ["Ana", "Ben", "Chloé"],
            "rules": "classic", "starting_chips": 60,
            "actions": [{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["3C", "4D"]}]}


@pytest.fixture
def run(database_url: str):
    runner = CliRunner()

    def invoke(*arguments: str, expect: int = 0, **env: str):
        result = runner.invoke(main, list(arguments), env={"NJ_LEDGER_DATABASE_URL": database_url, **env},
                               catch_exceptions=False)
        assert result.exit_code == expect, result.output
        return result

    return invoke


def test_db_upgrade_reports_the_revision(run) -> None:
    assert f"is at revision {head_revision()}" in run("db", "upgrade").output


def test_club_create_prints_an_id_and_a_scorer_token(run, store: Store) -> None:
    plain = run("club", "create", "Club de Quimper").output
    assert "id:" in plain and "token:" in plain
    made = json.loads(run("club", "create", "Club de Brest", "--json").output)
    assert set(made) == {"id", "name", "token"} and made["name"] == "Club de Brest"
    token = store.authenticate(made["token"])
    assert token is not None and (token.club_id, token.role) == (made["id"], "scorer")
    run("club", "create", "   ", expect=2)


def test_demo_loads_every_example_once(run, store: Store) -> None:
    first = run("demo").output
    examples = sorted(examples_folder().glob("*.json"))
    assert f"{len(examples)} games loaded, 0 already there" in first
    assert f"0 games loaded, {len(examples)} already there" in run("demo").output
    demo = store.clubs.find_club("Demo")
    assert demo is not None
    games = store.games.list_games(demo.id, limit=100)
    assert len(games) == len(examples)
    assert all(audit(store.games.records(demo.id, game.id))["ok"] for game in games)


def test_import_then_export_gives_back_the_actions(run, store: Store, tmp_path: Path) -> None:
    club = store.clubs.create_club("Import")[0]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    output = run("import", str(path), "--club", club.id).output
    game_id = output.split()[1]
    assert "imported into 'Import'" in output and store.games.game(club.id, game_id).version == 18
    exported = json.loads(run("export", game_id).output)
    assert exported["title"] == "Essai"
    assert exported["actions"] == [{"type": "deal", "dealer": 2}, {**DOCUMENT["actions"][1], "announced": []}]
    written = tmp_path / "out.json"
    run("export", game_id, "--output", str(written))
    assert json.loads(written.read_text(encoding="utf-8")) == exported
    assert "token:" in run("import", str(path)).output  # the "Local" club, made on first use


def test_import_and_export_refusals_are_clear(run, store: Store, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**DOCUMENT, "actions": [{"type": "deal"}, {"type": "deal"}]}), encoding="utf-8")
    club = store.clubs.create_club("Refus")[0]
    result = run("import", str(bad), "--club", club.id, expect=1)
    assert "deal-in-progress (action 1)" in result.output
    assert store.games.list_games(club.id) == []
    assert "There is no club" in run("import", str(bad), "--club", "nope", expect=1).output
    assert "There is no game" in run("export", "nope", expect=1).output
    broken = tmp_path / "broken.njn"
    broken.write_text('[Players "Ana; Ben"]\n[StartingChips "40"]\nDeal 1 dealer 1\n0: 5H 5H\n', encoding="utf-8")
    result = run("import", str(broken), "--club", club.id, expect=1)
    assert "Line 4, column 7" in result.output and store.games.list_games(club.id) == []


def test_a_demo_game_exported_as_njn_is_readable_and_imports_as_the_same_game(
        run, store: Store, tmp_path: Path) -> None:
    run("demo")
    demo = store.clubs.find_club("Demo")
    assert demo is not None
    for game in store.games.list_games(demo.id, limit=100):
        text = run("export", game.id, "--format", "njn").output
        assert text.startswith('[Club "Demo"]') and "[Players " in text and "Deal 1 dealer" in text
        assert "J'arrête" in text  # the calls are written as comments a person can follow
        record = tmp_path / f"{game.id}.njn"
        record.write_text(text, encoding="utf-8")
        club = store.clubs.create_club(f"Relecture {game.id}")[0]
        run("import", str(record), "--club", club.id)
        (again,) = store.games.list_games(club.id)
        original = [(r["type"], r["deal"], r["data"]) for r in store.games.records(demo.id, game.id)]
        assert [(r["type"], r["deal"], r["data"]) for r in store.games.records(club.id, again.id)] == original


def test_simulate_stores_legal_games_through_the_append_path(run, store: Store) -> None:
    club = store.clubs.create_club("Simulations du jeudi")[0]
    output = run("simulate", "--games", "3", "--players", "4", "--seed", "7", "--deals", "2",
                 "--club", club.id).output
    assert "3 games" in output and club.id in output
    games = store.games.list_games(club.id)
    assert len(games) == 3 and {tuple(g.players) for g in games} == {("Ana", "Ben", "Chloé", "Denis")}
    assert all(audit(store.games.records(club.id, g.id))["ok"] for g in games)
    assert "--profile" in run("simulate", "--profile", "bridge", expect=2).output


def test_serve_migrates_an_embedded_database_then_serves_the_app(tmp_path: Path, monkeypatch) -> None:
    served = {}

    def run_workers(config, host, port, threads, workers, connections) -> None:  # asked while it serves: its
        app = new_app(**config)  # metrics' folder is the server's, and removed once it has stopped
        served.update(health=app.test_client().get("/api/v1/health").json, host=host, port=port, threads=threads,
                      workers=workers)

    monkeypatch.setattr("api.serving._run_workers", run_workers)
    url = f"sqlite:///{tmp_path / 'instance' / 'fresh.sqlite'}"
    result = CliRunner().invoke(main, ["serve", "--port", "5999"], env={"NJ_LEDGER_DATABASE_URL": url})
    assert result.exit_code == 0, result.output
    assert is_current(url) and (served["host"], served["port"]) == ("127.0.0.1", 5999)
    assert (served["workers"], served["threads"]) == (1, 8)
    assert served["health"] == {"status": "ok"}
