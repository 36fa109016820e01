"""Games in and out: ``demo`` (the example games), ``games list``, ``import`` and ``export``.

    $ nj-ledger import game.njn --club 3f2a…
    $ nj-ledger export 9c1e… --format njn
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from nj_ledger.errors import LedgerError

from .app import (
    DEMO_CLUB,
    DEMO_TOKEN_FILE,
    LOCAL_CLUB,
    _an_id,
    _club_given_or_new,
    _club_or_new,
    _echo_token,
    _refusal,
    _store,
    examples_folder,
    main,
)
from .language import say, say_n

if TYPE_CHECKING:
    from nj_ledger.store import NewToken, Store


@main.command()
@click.option("--examples", "folder", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=examples_folder, show_default="the example games shipped with the ledger",
              help="Folder of game documents (*.json).")
def demo(folder: Path) -> None:
    """Load the example games into the club "Demo" (created if missing); running it again adds nothing.

    Prints the demo club's scorer token, kept in the instance folder's `demo-token` (mode 0600): every run shows the
    same one, and makes another only when it no longer signs in to the club (revoked, another database)."""
    from nj_ledger.application import exchange
    from nj_ledger.store import StoreError
    from nj_ledger.store.documents import document_digest

    store = _store()
    club, made = _club_or_new(store, DEMO_CLUB)
    secret, where, new = _demo_token(store, club.id, made)
    files = sorted(folder.glob("*.json"))
    loaded = skipped = 0
    with click.progressbar(files, label=say("Loading examples"), item_show_func=lambda p: p.name if p else None) as bar:
        for path in bar:
            document = json.loads(path.read_text(encoding="utf-8"))
            if store.games.find_game(club.id, document_digest(document)) is not None:
                skipped += 1
                continue
            try:
                exchange.imported(store, club.id, document)
            except (LedgerError, StoreError) as error:
                raise _refusal(error, f"{path.name}: ") from None
            loaded += 1
    click.echo(say_n("Club {name!r}: {count} games loaded, {skipped} already there.",  # English: any count
                     "Club {name!r}: {count} games loaded, {skipped} already there.", loaded, name=club.name,
                     skipped=skipped))
    click.echo(say("  id:    {id}", id=club.id))
    click.echo(say("  token: {secret}  (scorer; new, kept in {where})", secret=secret, where=where) if new
               else say("  token: {secret}  (scorer; kept in {where})", secret=secret, where=where))


def _demo_token(store: Store, club_id: str, made: NewToken | None) -> tuple[str, Path, bool]:
    """The demo club's scorer token, kept in the instance folder (``demo-token``, readable by its owner only) so
    that every run of ``demo`` shows the same one: the one kept there while it still signs in to this club, else
    ``made`` (the new club's first token) or a new one. Returns the secret, the file, and whether it is new."""
    from nj_ledger.store.database import instance_path
    from nj_ledger.store.keys import write_private

    path = instance_path() / DEMO_TOKEN_FILE
    try:
        kept = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        kept = ""
    found = store.authenticate(kept) if kept else None
    if found is not None and found.club_id == club_id and found.role == "scorer":
        return kept, path, False
    token = made or store.tokens.create_token(club_id, "scorer", "demo")
    write_private(path, token.secret)
    return token.secret, path, True


@main.group()
def games() -> None:
    """Games: find them again."""


GAME_STATUSES = ("ready", "playing", "revealing", "ended")


@games.command("list")
@click.option("--club", "club_id", callback=_an_id, help="Only this club's games (default: every club's).")
@click.option("--status", type=click.Choice(GAME_STATUSES), help="Only games with this status.")
@click.option("--player", help="Only games this player sat in (any case).")
@click.option("--title", help="Only games whose title holds this text (any case).")
@click.option("--date", "day", type=click.DateTime(["%Y-%m-%d"]), help="Only games played on this day (YYYY-MM-DD).")
@click.option("--limit", type=click.IntRange(1, 10_000), default=20, show_default=True, help="How many at most.")
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True, help="How many newest to skip.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {games: [...]}, each game as GET /api/v1/clubs/{club}/games lists it.")
def games_list(club_id: str | None, status: str | None, player: str | None, title: str | None, day: Any,
               limit: int, offset: int, as_json: bool) -> None:
    """Games, newest first (by the day played, then by when each was recorded): id, day, status, rules, deals,
    players and title; the id is what `export`, the pages' addresses and the API take."""
    from api.views import summary_view
    from nj_ledger.application import GameFilter, list_games

    store = _store()
    if club_id is not None:
        store.clubs.club(club_id)  # an unknown club is said, not listed as empty
    played = day.date() if day is not None else None
    filters = GameFilter(status=status, player=player or None, title=title or None, played_from=played,
                         played_to=played)
    rows = [summary_view(game) for game in list_games(store, club_id, filters, limit, offset).items]
    if as_json:
        click.echo(json.dumps({"games": rows}, ensure_ascii=False))
        return
    if not rows:
        click.echo(say("No game matches."))
    for row in rows:
        deals = say_n("{count:>3} deal ", "{count:>3} deals", row["deals_played"])  # padded: players stay aligned
        click.echo(f"{row['id']}  {row['date']}  {row['status']:<9}  {row['profile']:<17}  "
                   f"{deals}  {', '.join(row['players'])}"
                   + (f"  \u2014 {row['title']}" if row["title"] else ""))


@main.command("import")
@click.argument("file", type=click.File("rb"))
@click.option("--club", "club_id", callback=_an_id,
              help="Club id (default: the club 'Local', created if missing).")
@click.option("--format", "fmt", type=click.Choice(["auto", "json", "njn"]), default="auto", show_default=True,
              help="auto: NJN for a .njn file, JSON otherwise.")
def import_(file: Any, club_id: str | None, fmt: str) -> None:
    """Import a game (FILE, or - for standard input) into a club: a JSON game document or an NJN record.

    A JSON file is read as it is imported, so a game of any length fits in memory.
    """
    from nj_ledger.application import exchange
    from nj_ledger.store import StoreError
    from nj_ledger.store.streaming import JSONError

    store = _store()
    club, token = _club_given_or_new(store, club_id, LOCAL_CLUB)
    try:
        if fmt == "njn" or (fmt == "auto" and str(file.name).lower().endswith(".njn")):
            created: Any = exchange.imported_njn(store, club.id, file.read().decode("utf-8"))
        elif file.seekable():
            created = exchange.imported_file(store, club.id, file)
        else:  # standard input: read whole
            created = exchange.imported(store, club.id, json.load(file))
    except (json.JSONDecodeError, JSONError, UnicodeDecodeError) as error:
        raise click.ClickException(say("{file} is not JSON: {error}", file=file.name, error=error)) from None
    except (LedgerError, StoreError) as error:
        raise _refusal(error) from None
    click.echo(say_n("Game {game} imported into {name!r} ({club}): {count} events, status {status}.",  # any count
                     "Game {game} imported into {name!r} ({club}): {count} events, status {status}.",
                     created.game.version, game=created.game.id, name=club.name, club=club.id,
                     status=created.game.status))
    if token is not None:
        _echo_token(token)


@main.command()
@click.argument("game", callback=_an_id)
@click.option("--format", "fmt", type=click.Choice(["json", "njn"]), default="json", show_default=True)
@click.option("--output", "-o", type=click.File("w", encoding="utf-8"), default="-", help="File (default: stdout).")
def export(game: str, fmt: str, output: Any) -> None:
    """Export a game as a document."""
    from nj_ledger.application import exchange, game_owner

    store = _store()
    club_id = game_owner(store, game)
    if club_id is None:
        raise click.ClickException(say("There is no game {game!r}.", game=game))
    document = exchange.exported(store, club_id, game)
    if fmt == "njn":
        output.write(exchange.njn_record(store, club_id, document))
        return
    json.dump(document, output, ensure_ascii=False, indent=2)
    output.write("\n")

