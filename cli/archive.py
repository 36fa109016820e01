"""A club's archive on the command line: ``club export`` writes it, ``archive verify`` checks it with no server,
``club import`` brings the club into this server (:mod:`nj_ledger.archive`, docs/ARCHIVE.md)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from nj_ledger.archive import ArchiveReport

from .app import _an_id, _echo_token, _store, main, sentence
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
    from nj_ledger.archive import verify_archive

    document, trusted = _read(file, keys_file)
    _said(verify_archive(document, trusted), file.name)


def _read(file: Any, keys_file: Any) -> tuple[Any, dict[str, bytes] | None]:
    """The archive of ``file`` and the keys of ``keys_file`` (None when not given)."""
    from nj_ledger.archive import public_keys

    try:
        document = json.load(file)
    except (ValueError, RecursionError) as error:  # cut short, not JSON, nested too deep
        raise click.ClickException(say("{file} is cut short or is not JSON: {error}", file=file.name,
                                       error=error)) from None
    if keys_file is None:
        return document, None
    try:
        return document, public_keys(json.load(keys_file)["keys"])
    except (ValueError, KeyError, TypeError, RecursionError):
        raise click.ClickException(say("{file} is not a list of public keys (GET /api/v1/keys).",
                                       file=keys_file.name)) from None


def _said(report: ArchiveReport, name: str) -> None:
    """What the check of an archive found; exit 1 naming the first thing wrong."""
    click.echo(say("Keys believed: {keys}.", keys=", ".join(report.keys) or "-"))
    if report.ok:
        click.echo(say("{file}: ok — {games} games ({events} events) and {evenings} evenings hold, signed and "
                       "audited clean.", file=name, games=report.games, events=report.events,
                       evenings=report.evenings))
        return
    click.echo(say("{file}: FAILED — the first thing wrong: {code}: {sentence}", file=name,
                   code=report.problems[0].code, sentence=sentence(report.problems[0])))
    for problem in report.problems[1:]:
        click.echo(f"  {problem.code}: {sentence(problem)}")
    sys.exit(1)


@club.command("import")
@click.argument("file", type=click.File("rb"))
@click.option("--keys", "keys_file", type=click.File("rb"), default=None,
              help="The public keys to believe (the JSON of GET /api/v1/keys, kept from the club's old server).")
@click.option("--json", "as_json", is_flag=True, help="Print {club, token, games, evenings} as JSON.")
def club_import(file: Any, keys_file: Any, as_json: bool) -> None:
    """Bring a club into this server from its archive (`nj-ledger club export` on the old one): checked as
    `archive verify` checks it (a refused archive stores nothing), then its members, seasons, games and evenings
    recorded again here in one transaction, under a new club id with a director's token."""
    from nj_ledger.application.archive import import_club
    from nj_ledger.archive import ArchiveRefused

    document, trusted = _read(file, keys_file)
    try:
        imported, report = import_club(_store(), document, trusted)
    except ArchiveRefused as refused:
        _said(refused.report, file.name)  # exits 1: nothing was stored
        return
    _said(report, file.name)
    if as_json:
        click.echo(json.dumps({"club": imported.club.id, "token": imported.token.secret, "games": imported.games,
                               "evenings": imported.evenings}, ensure_ascii=False))
        return
    click.echo(say("Club {name!r} imported: {games} games and {evenings} evenings recorded again, {members} "
                   "members, {seasons} seasons.", name=imported.club.name, games=len(imported.games),
                   evenings=len(imported.evenings), members=imported.members, seasons=imported.seasons))
    click.echo(say("  id:    {id}", id=imported.club.id))
    _echo_token(imported.token)
