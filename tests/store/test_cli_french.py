"""The command line in a French terminal (``LANG=fr_FR.UTF-8``): its help, click's own words, its sentences and the
refusals of the core and the store are French, with no English word left (the scanner of the French pages); in
an English or a C terminal, the same commands say what they always said."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from pages.test_french_scan import english_words

from cli.commands import examples_folder, main
from nj_ledger.store import Store

FRENCH = {"LANG": "fr_FR.UTF-8", "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None}
ENGLISH = {"LANG": "C", "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None}
# What the command line shows that is code, not words: metavars and settings (GAME, NJ_LEDGER_PORT), options
# (--players), a refusal's code (deal-in-progress), the commands a group lists at the start of a line.
HELP_CODE = re.compile(r"nj-ledger(?: [a-z-]+)*|\b[A-Z][A-Z_|]+\b|(?<![\w-])--?[a-z][\w-]*|\b[a-z]+(?:-[a-z]+)+\b|"
                       r"^ {2}[a-z][\w-]*(?= )", re.MULTILINE)
Run = Callable[..., Result]


@pytest.fixture
def run(database_url: str) -> Run:
    runner = CliRunner()

    def invoke(*arguments: str, language: dict[str, str | None], expect: int = 0) -> Result:
        result = runner.invoke(main, list(arguments), prog_name="nj-ledger",
                               env={"NJ_LEDGER_DATABASE_URL": database_url, **language})
        assert result.exit_code == expect, result.output
        return result

    return invoke


def commands(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from commands(sub, (*path, name))


def french(text: str) -> set[str]:
    """The English words of ``text`` (none is wanted)."""
    return english_words(HELP_CODE.sub(" ", text))


def test_every_help_is_french_in_a_french_terminal_and_english_otherwise(run: Run) -> None:
    for path in commands(main):
        said = run(*path, "--help", language=FRENCH).output
        assert said.startswith("Utilisation\u00a0: nj-ledger") and "Options\u00a0:" in said, path
        assert "Affiche ce message et quitte." in said and not french(said), (path, french(said))
        english = run(*path, "--help", language=ENGLISH).output
        assert english.startswith("Usage: nj-ledger") and "Show this message and exit." in english, path
        assert english != said
    assert run("--help", language={**ENGLISH, "LANG": "en_GB.UTF-8"}).output == run("--help", language=ENGLISH).output
    assert "Utilisation" in run("--help", language={**ENGLISH, "LC_ALL": "fr_FR.UTF-8"}).output


def test_click_refusals_are_french(run: Run) -> None:
    missing = run("export", language=FRENCH, expect=2).output
    assert "Erreur\u00a0: Argument manquant 'GAME'." in missing
    assert "Pour l'aide\u00a0: «\u00a0nj-ledger export --help\u00a0»" in missing
    invalid = run("games", "list", "--status", "bad", language=FRENCH, expect=2).output
    assert "Valeur invalide pour '--status'" in invalid and not french(invalid)
    assert "Error: Missing argument 'GAME'." in run("export", language=ENGLISH, expect=2).output


def test_club_create_games_list_and_a_store_refusal(run: Run, store: Store) -> None:
    made = run("club", "create", "Club de Quimper", language=FRENCH).output
    assert made.startswith("Club «\u00a0Club de Quimper\u00a0» créé.") and "jeton\u00a0:" in made
    assert not french(made)
    english = run("club", "create", "Club de Brest", language=ENGLISH).output
    assert english.startswith("Club 'Club de Brest' created.\n  id:    ") and "token: " in english
    # The store is shared by the session's tests: only the lines of this test's two clubs are its to judge.
    ids = [re.search(r"^ {2}(?:id|identifiant)\W+(\S+)$", said, re.MULTILINE).group(1)  # type: ignore[union-attr]
           for said in (made, english)]
    listed = "".join(line for line in run("clubs", "list", language=FRENCH).output.splitlines(keepends=True)
                     if line.split(" ", 1)[0] in ids)
    assert listed.count("0 partie)") == 2 and not french(listed)
    assert "0 games)" in run("clubs", "list", language=ENGLISH).output
    refused = run("club", "tokens", "nope", language=FRENCH, expect=1).output
    assert refused == "Erreur\u00a0: not-found\u00a0: Le club 'nope' n'existe pas.\n", refused
    assert run("club", "tokens", "nope", language=ENGLISH, expect=1).output == (
        "Error: not-found: There is no club 'nope'.\n")
    quimper = store.clubs.find_club("Club de Quimper")
    assert quimper is not None
    example = str(examples_folder() / "club-de-quimper.json")
    imported = run("import", example, "--club", quimper.id, language=FRENCH).output
    assert "importée dans «\u00a0Club de Quimper\u00a0»" in imported and not french(imported), imported
    games = run("games", "list", "--club", quimper.id, language=FRENCH).output
    assert " donnes  " in games and not french(games.replace("Nain Jaune", "")), games
    assert " deals  " in run("games", "list", "--club", quimper.id, language=ENGLISH).output


def test_a_core_refusal_and_an_unknown_game(run: Run, store: Store, tmp_path: Path) -> None:
    club = store.clubs.create_club("Refus")[0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"],
                               "rules": "classic", "starting_chips": 60,
                               "actions": [{"type": "deal"}, {"type": "deal"}]}), encoding="utf-8")
    refused = run("import", str(bad), "--club", club.id, language=FRENCH, expect=1).output
    assert refused.startswith("Erreur\u00a0: deal-in-progress (action 1)\u00a0: ") and not french(refused), refused
    assert "deal-in-progress (action 1): " in run("import", str(bad), "--club", club.id, language=ENGLISH,
                                                  expect=1).output
    unknown = run("analyse", "nope", language=FRENCH, expect=1).output
    assert unknown == "Erreur\u00a0: Il n'y a pas de partie 'nope'.\n"
    assert run("analyse", "nope", language=ENGLISH, expect=1).output == "Error: There is no game 'nope'.\n"


def test_the_analysis_of_an_example_game(run: Run, store: Store) -> None:
    club = store.clubs.create_club("Analyse")[0]
    run("import", str(examples_folder() / "club-de-quimper.json"), "--club", club.id, language=ENGLISH)
    game = store.games.list_games(club.id)[0]
    said = run("analyse", game.id, "--deal", "1", "--limit", "20000", language=FRENCH).output
    assert said.startswith("Donne 1\u00a0: ") and "Jetons attendus\u00a0: " in said
    assert not french(said.replace(game.meta["title"], "")), said
    english = run("analyse", game.id, "--deal", "1", "--limit", "20000", language=ENGLISH).output
    assert english.startswith("Deal 1: ") and "Expected chips: " in english
    as_json = run("analyse", game.id, "--deal", "1", "--limit", "20000", "--json", language=FRENCH).stdout
    assert as_json == run("analyse", game.id, "--deal", "1", "--limit", "20000", "--json", language=ENGLISH).stdout
