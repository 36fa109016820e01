"""Finding things from the command line: `games list`, `clubs list`, `club tokens`, and a `demo` that keeps
its token."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.commands import main
from nj_ledger import new_game
from nj_ledger.store import Store
from nj_ledger.store.database import instance_path
from nj_ledger.store.documents import import_document


@pytest.fixture
def run(database_url: str):
    runner = CliRunner()

    def invoke(*arguments: str, expect: int = 0, **env: str):
        result = runner.invoke(main, list(arguments), catch_exceptions=False,
                               env={"NJ_LEDGER_DATABASE_URL": database_url, **env})
        assert result.exit_code == expect, result.output
        return result

    return invoke


def _document(title: str, day: str, players: list[str], actions: list[dict[str, object]] | None = None):
    return {"format": "nj-ledger/game", "version": 1, "title": title, "date": day, "players": players,
            "rules": "classic", "starting_chips": 60, "actions": actions or []}


def test_games_list_shows_a_clubs_games_newest_first_and_filters_them(run, store: Store) -> None:
    club, _ = store.clubs.create_club("Club des listes")
    old = import_document(store.games, club.id, _document("Vieille soirée", "2025-06-01", ["Ana", "Ben"])).game.id
    new = import_document(store.games, club.id, _document("Soirée de MARS", "2026-03-05", ["Ana", "Chloé", "Denis"],
                                                     [{"type": "deal"}])).game.id
    ended = import_document(store.games, club.id, _document("Fin", "2026-01-02", ["Ben", "Chloé"],
                                                      [{"type": "end"}])).game.id

    def ids(*options: str) -> list[str]:
        listed = json.loads(run("games", "list", "--club", club.id, "--json", *options).output)
        return [game["id"] for game in listed["games"]]

    assert ids() == [new, ended, old]
    assert ids("--status", "ended") == [ended] and ids("--status", "playing") == [new]
    assert ids("--player", "chloé") == [new, ended]
    assert ids("--title", "soirée") == [new, old] and ids("--title", "mars") == [new]
    assert ids("--date", "2026-01-02") == [ended]
    assert ids("--limit", "2") == [new, ended] and ids("--limit", "2", "--offset", "2") == [old]
    [first] = json.loads(run("games", "list", "--club", club.id, "--json", "--limit", "1").output)["games"]
    assert (first["title"], first["date"], first["players"], first["status"], first["club"]) == (
        "Soirée de MARS", "2026-03-05", ["Ana", "Chloé", "Denis"], "playing", club.id)
    plain = run("games", "list", "--club", club.id).output.splitlines()
    assert [line.split()[0] for line in plain] == [new, ended, old]
    assert "2026-03-05" in plain[0] and "Ana, Chloé, Denis" in plain[0] and "Soirée de MARS" in plain[0]
    assert run("games", "list", "--club", club.id, "--title", "nothing").output.strip() == "No game matches."
    # without --club: every club's
    other, _ = store.clubs.create_club("Autre club")
    elsewhere = store.games.create_game(other.id, new_game(["Élise", "Fanny"], "classic", 60)).game.id
    everywhere = json.loads(run("games", "list", "--json", "--limit", "10000").output)["games"]
    assert {new, ended, old, elsewhere} <= {game["id"] for game in everywhere}
    days = [game["date"] for game in everywhere]
    assert days == sorted(days, reverse=True)


def test_lists_say_one_deal_and_one_game_in_the_singular(run, store: Store) -> None:
    """A game of one deal reads "1 deal", a club of one game "1 game": the columns stay aligned."""
    club, _ = store.clubs.create_club("Club d'un soir")
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}  # four cards each: a short deal
    hands = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
    played = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], rules, 100), [
        {"type": "deal", "dealer": 2, "hands": hands},
        {"type": "play", "seat": 0, "cards": ["AC", "2C"], "announced": []},
        {"type": "play", "seat": 1, "cards": ["3D"], "announced": []},
        {"type": "play", "seat": 2, "cards": ["4D"], "announced": []},
        {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []},  # Ana goes out: deal 1 is settled
    ]).game.id
    [line] = run("games", "list", "--club", club.id).output.splitlines()
    assert line.startswith(played) and line.endswith("  1 deal   Ana, Ben, Chloé"), line
    [listed] = [row for row in run("clubs", "list").output.splitlines() if row.startswith(club.id)]
    assert listed.endswith(", 1 game)"), listed


def test_games_list_refuses_what_names_nothing(run) -> None:
    assert "There is no club" in run("games", "list", "--club", "nosuchclub", expect=1).output
    assert "Invalid value" in run("games", "list", "--status", "lost", expect=2).output
    assert "Invalid value" in run("games", "list", "--date", "05/03/2026", expect=2).output
    assert "Invalid value" in run("games", "list", "--limit", "0", expect=2).output
    assert "Invalid value" in run("games", "list", "--club", "a b", expect=2).output


def test_clubs_list_names_every_club_with_its_games(run, store: Store) -> None:
    club, _ = store.clubs.create_club("Cercle de Vannes")
    store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 60))
    store.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 60))
    empty, _ = store.clubs.create_club("Cercle vide")
    listed = json.loads(run("clubs", "list", "--json").output)["clubs"]
    by_id = {row["id"]: row for row in listed}
    assert (by_id[club.id]["name"], by_id[club.id]["games"]) == ("Cercle de Vannes", 2)
    assert by_id[empty.id]["games"] == 0 and set(by_id[empty.id]) == {"id", "name", "created_at", "games"}
    made = [row["created_at"] for row in listed]
    assert made == sorted(made)
    plain = run("clubs", "list").output
    assert f"{club.id}  Cercle de Vannes" in plain and "2 games" in plain


def test_club_tokens_lists_every_token_and_never_a_secret(run, store: Store) -> None:
    club, first = store.clubs.create_club("Club des jetons")
    viewer = store.tokens.create_token(club.id, "viewer", "wall screen")
    store.tokens.revoke_token(club.id, viewer.id)
    listed = json.loads(run("club", "tokens", club.id, "--json").output)["tokens"]
    assert [(t["id"], t["role"], t["label"]) for t in listed] == [
        (first.id, "scorer", "first scorer"), (viewer.id, "viewer", "wall screen")]
    assert listed[1]["revoked_at"] is not None and listed[0]["revoked_at"] is None
    plain = run("club", "tokens", club.id).output
    for text in (plain, json.dumps(listed)):
        assert first.secret not in text and viewer.secret not in text
    assert "revoked" in plain and "wall screen" in plain
    assert json.loads(run("tokens", "list", club.id, "--json").output)["tokens"] == listed  # the same list
    assert "There is no club" in run("club", "tokens", "nosuchclub", expect=1).output


def test_demo_keeps_its_token_and_shows_it_again(run, store: Store, tmp_path: Path) -> None:
    kept = instance_path() / "demo-token"  # the test run's own instance folder (tests/conftest.py)
    kept.unlink(missing_ok=True)
    demo_run = ("demo", "--examples", str(tmp_path))  # no example loaded: the demo's own test counts them
    first = run(*demo_run).output
    demo = store.clubs.find_club("Demo")
    assert demo is not None
    secret = kept.read_text(encoding="ascii").strip()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert f"token: {secret}" in first and str(kept) in first and "shown once" not in first
    token = store.authenticate(secret)
    assert token is not None and (token.club_id, token.role) == (demo.id, "scorer")
    count = len(store.tokens.tokens(demo.id, limit=10_000))
    for _ in range(2):
        again = run(*demo_run).output
        assert f"token: {secret}" in again and "new" not in again and "shown once" not in again
        assert len(store.tokens.tokens(demo.id, limit=10_000)) == count
        assert kept.read_text(encoding="ascii").strip() == secret
    # a revoked (or foreign) token is replaced, once
    store.tokens.create_token(demo.id, "scorer", "spare")  # the club's last scorer token cannot be revoked
    count += 1
    store.tokens.revoke_token(demo.id, token.id)
    replaced = run(*demo_run).output
    secret = kept.read_text(encoding="ascii").strip()
    assert f"token: {secret}" in replaced and "new" in replaced
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert len(store.tokens.tokens(demo.id, limit=10_000)) == count + 1
    assert "new" not in run(*demo_run).output
    assert len(store.tokens.tokens(demo.id, limit=10_000)) == count + 1


def test_a_text_the_terminal_did_not_send_as_utf8_is_said_in_a_sentence(run, store: Store) -> None:
    # a Latin-1 terminal's "Soirée": Python reads the byte it cannot decode as a lone surrogate
    for arguments in (("games", "list", "--title", "Soir\udce9e"), ("games", "list", "--player", "\udcff"),
                      ("club", "create", "Soir\udce9e")):
        result = run(*arguments, expect=1)
        assert result.output.startswith("Error: ") and "UTF-8" in result.output, result.output
    assert run("clubs", "list", "--json").output.count("Soir") == 0  # nothing was made
