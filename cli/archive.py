"""A club's archive on the command line: ``club export`` writes it, ``archive verify`` checks it with no server
(:mod:`nj_ledger.archive`, docs/ARCHIVE.md)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .app import _an_id, _store, main, sentence
from .clubs import club
from .language import say


@club.command("export")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.option("--output", "-o", type=click.File("w", encoding="utf-8"), default="-", help="File (default: stdout).")
def club_export(club_id: str, output: Any) -> None:
    """Write CLUB's archive: its members, seasons, games, evenings, every hash and the signed heads, the public
    keys, and the server's signature of it all (JSON). `nj-ledger archive verify` checks it with no server."""
    from nj_ledger.application.archive import club_archive

    archive = club_archive(_store(), club_id)
    json.dump(archive, output, ensure_ascii=False)
    output.write("\n")
    if getattr(output, "name", "<stdout>") != "<stdout>":  # written to a file: said where
        click.echo(say("{games} games and {evenings} evenings of {club} written to {file}.",
                       games=len(archive["games"]), evenings=len(archive["evenings"]), club=archive["club"]["name"],
                       file=output.name), err=True)


@main.group()
def archive() -> None:
    """A club's archive, checked with no server."""


@archive.command("verify")
@click.argument("file", type=click.File("rb"))
@click.option("--keys", "keys_file", type=click.File("rb"), default=None,
              help="The public keys to believe (the JSON of GET /api/v1/keys, kept from the club's server); "
                   "without it, the archive's own keys are believed and listed.")
def archive_verify(file: Any, keys_file: Any) -> None:
    """Check a club's archive offline: every chain, every signature, the conservation of chips, every state
    computed again, and its digest. Names the first thing wrong (exit 1)."""
    from nj_ledger.archive import public_keys, verify_archive

    try:
        document = json.load(file)
    except (ValueError, RecursionError) as error:  # cut short, not JSON, nested too deep
        raise click.ClickException(say("{file} is cut short or is not JSON: {error}", file=file.name,
                                       error=error)) from None
    trusted = None
    if keys_file is not None:
        try:
            trusted = public_keys(json.load(keys_file)["keys"])
        except (ValueError, KeyError, TypeError, RecursionError):
            raise click.ClickException(say("{file} is not a list of public keys (GET /api/v1/keys).",
                                           file=keys_file.name)) from None
    report = verify_archive(document, trusted)
    click.echo(say("Keys believed: {keys}.", keys=", ".join(report.keys) or "-"))
    if report.ok:
        click.echo(say("{file}: ok — {games} games ({events} events) and {evenings} evenings hold, signed and "
                       "audited clean.", file=file.name, games=report.games, events=report.events,
                       evenings=report.evenings))
        return
    click.echo(say("{file}: FAILED — the first thing wrong: {code}: {sentence}", file=file.name,
                   code=report.problems[0].code, sentence=sentence(report.problems[0])))
    for problem in report.problems[1:]:
        click.echo(f"  {problem.code}: {sentence(problem)}")
    sys.exit(1)
