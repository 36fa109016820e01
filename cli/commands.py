"""The ``nj-ledger`` command line: run the service, migrate, create clubs, load, move and simulate games.

Settings come from the environment: ``NJ_LEDGER_DATABASE_URL`` (default: a
SQLite file in the instance folder, ``NJ_LEDGER_INSTANCE``) and ``NJ_LEDGER_ADMIN_TOKEN``. The store and the
web app are imported inside the commands, so ``nj-ledger --help`` stays quick.

    $ nj-ledger db upgrade
    $ nj-ledger club create "Club de Quimper"
    $ nj-ledger serve --port 5000
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cli.backup import BACKUPS_ENV, backup_before_upgrade, register_backups
from cli.lan import lan_options, room
from nj_ledger.errors import LedgerError
from nj_ledger.messages import Message

if TYPE_CHECKING:
    from nj_ledger.store import ClubInfo, NewToken, Store, StoreError

DEMO_CLUB = "Demo"
LOCAL_CLUB = "Local"
SIMULATION_CLUB = "Simulations"
DEMO_TOKEN_FILE = "demo-token"  # in the instance folder, beside make run's admin-token


def examples_folder() -> Path:
    """The example games the ledger ships (``examples/`` of the source tree, or of the installed package)."""
    from nj_ledger.store.database import shipped

    return shipped("examples")


def _store() -> Store:
    from nj_ledger.store import Store

    return Store()


def _shown_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _club_or_new(store: Store, name: str) -> tuple[ClubInfo, NewToken | None]:
    """The club with this name, or a new one and its first token."""
    club = store.find_club(name)
    if club is not None:
        return club, None
    return store.create_club(name)


def _club_given_or_new(store: Store, club_id: str | None, name: str) -> tuple[ClubInfo, NewToken | None]:
    """The club ``--club`` names (an error if there is none), or else the club ``name``, made if need be."""
    from nj_ledger.store import NotFound

    if club_id is None:
        return _club_or_new(store, name)
    try:
        return store.club(club_id), None
    except NotFound as missing:
        raise click.ClickException(english(missing.said)) from None


def _echo_token(token: NewToken) -> None:
    click.echo(f"  token: {token.secret}  ({token.role}; shown once, keep it)")


def english(said: Message) -> str:
    """What the core or the store said, in English (imported when needed: the API package loads Flask)."""
    from api.sentences import english as written

    return written(said)


def _refusal(error: LedgerError | StoreError, where: str = "") -> click.ClickException:
    """A refusal of the core or the store as a command-line error: its code, the action, the sentence."""
    action = error.params.get("index")
    at = f" (action {action})" if action is not None else ""
    return click.ClickException(f"{where}{error.code}{at}: {english(error.said)}")


class LedgerCommands(click.Group):
    """The commands, whose refusals of the store (a signing key that may not sign here, a missing club…) and of
    the database (an unknown kind of URL, a file that is not a database) are said in a sentence, never as a
    traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as error:
            from sqlalchemy.exc import ArgumentError, SQLAlchemyError  # not at the top: `--help` stays quick

            from nj_ledger.store import StoreError

            if isinstance(error, StoreError):
                raise _refusal(error) from None
            if isinstance(error, UnicodeEncodeError) and "surrogates" in error.reason:
                # a byte the terminal sent that is not UTF-8: Python kept it as a lone surrogate, no database takes
                raise click.ClickException("A text on the command line is not UTF-8: set the terminal to UTF-8 "
                                           "and type it again.") from None
            if isinstance(error, (SQLAlchemyError, ArgumentError)):
                first = (str(getattr(error, "orig", None) or error).strip().splitlines() or [type(error).__name__])[0]
                hint = " (a new database? `nj-ledger db upgrade` sets it up)" if "table" in first else ""
                raise click.ClickException(f"The database cannot be used: {first}{hint}") from None
            raise


def _an_id(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A club's or a game's id as typed: letters and digits (anything else names nothing here)."""
    if value is not None and not (value.isascii() and value.isalnum() and len(value) <= 64):
        raise click.BadParameter("an id has letters and digits only", ctx=ctx, param=param)
    return value


TOKEN_NUMBER = click.IntRange(1, 2**31 - 1)


@click.group(cls=LedgerCommands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nj-ledger")
def main() -> None:
    """Nain Jaune Ledger: record, replay and audit games of Nain Jaune."""


register_backups(main)  # nj-ledger backup FILE|FOLDER, nj-ledger restore FILE (cli/backup.py)

# --- the service -------------------------------------------------------------------------------
@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, envvar="NJ_LEDGER_HOST", show_envvar=True,
              help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535), envvar="NJ_LEDGER_PORT",
              show_envvar=True, help="Port to listen on.")
@click.option("--threads", default=None, type=click.IntRange(1, 64), show_default="8 in one process, 1 per worker",
              envvar="NJ_LEDGER_THREADS", show_envvar=True,
              help="Threads in each worker for the requests that are not streams.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), envvar="NJ_LEDGER_WORKERS",
              show_envvar=True,
              help="granian's worker processes (one per core); streams run on each worker's event loop.")
@lan_options  # --lan, --https, --https-port: phones on a room's network (cli/lan.py)
def serve(host: str, port: int, threads: int | None, workers: int, lan: bool, https: bool, https_port: int) -> None:
    """Serve the API and the pages (an embedded SQLite database is migrated on start).

    Each option may come from the environment instead (a service's settings file: deploy/nj-ledger.env)."""
    from api.auth import WeakAdminToken, check_admin_token
    from api.config import ADMIN_TOKEN_ENV, METRICS_FROM_ENV, PROXIES_ENV
    from api.proxies import AddressSettingError, networks, trusted_proxies
    from api.serving import PortInUse, check_ports_free
    from api.serving import serve as serve_app
    from nj_ledger.store import Store, default_database_url, recorder_for
    from nj_ledger.store.migrate import is_current, upgrade

    try:
        check_admin_token(os.environ.get(ADMIN_TOKEN_ENV))
        trusted_proxies(os.environ.get(PROXIES_ENV))
        networks(os.environ.get(METRICS_FROM_ENV), METRICS_FROM_ENV)
    except (WeakAdminToken, AddressSettingError) as refused:
        raise click.ClickException(str(refused)) from None
    where = room(lan, https, https_port, host, port)  # with --lan: the room's network's addresses (cli/lan.py)
    try:
        check_ports_free(where.host, [port] if where.tls is None else [port, where.tls.port])
    except PortInUse as taken:
        raise click.ClickException(str(taken.strerror)) from None
    url = default_database_url()
    if recorder_for(url).embedded:  # migrated here, as `db upgrade` does: a database that holds data backed up first
        folder = os.environ.get(BACKUPS_ENV)
        backup_before_upgrade(url, Path(folder) if folder else None)
        upgrade(url)
    elif not is_current(url):
        raise click.ClickException(f"The database {_shown_url(url)} is not up to date: run `nj-ledger db upgrade`.")
    store = Store(url)
    try:
        signer = store.signer()  # said now, not at the first write: the key must be the one that signed here
    finally:
        store.close()
    click.echo(f"Nain Jaune Ledger on {where.local}/  (API docs: {where.local}/api/v1/docs)")
    click.echo(f"Database: {_shown_url(url)}" + (f", {workers} workers" if workers > 1 else "")
               + f"; receipts signed with key {signer.id}")
    where.announce()
    serve_app({"DATABASE_URL": url, **where.config}, where.host, port, threads, workers, where.tls)


@main.group()
def db() -> None:
    """The database schema."""


@db.command("upgrade")
@click.option("--backup-to", "backups", type=click.Path(path_type=Path), envvar=BACKUPS_ENV,
              show_envvar=True, help="Where the backup of a database that holds data goes before it is migrated "
                                     "(default: backups/ in the instance folder).")
@click.option("--no-backup", is_flag=True, help="Migrate a database that holds data without a backup first (you "
                                                "made one yourself).")
def db_upgrade(backups: Path | None, no_backup: bool) -> None:
    """Create or migrate the database to the latest schema; a database that holds data is backed up first."""
    from sqlalchemy.exc import SQLAlchemyError

    from nj_ledger.store import default_database_url
    from nj_ledger.store.migrate import current_revision, upgrade

    url = default_database_url()
    made = None if no_backup else backup_before_upgrade(url, backups)
    try:
        upgrade(url)
    except SQLAlchemyError as error:
        if made is None:
            raise
        raise click.ClickException(f"The migration failed: {error}. The backup made before it is {made}: install "
                                   f"the release you had and run `nj-ledger restore {made}`.") from None
    click.echo(f"Database {_shown_url(url)} is at revision {current_revision(url)}.")


# --- clubs -------------------------------------------------------------------------------------
@main.group()
def club() -> None:
    """Clubs."""


@club.command("create")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print {id, name, token} as JSON.")
def club_create(name: str, as_json: bool) -> None:
    """Create a club; prints its id and a scorer token."""
    if not name.strip() or len(name.strip()) > 120:
        raise click.BadParameter("a club's name has 1 to 120 characters", param_hint="NAME")
    club, token = _store().create_club(name)
    if as_json:
        click.echo(json.dumps({"id": club.id, "name": club.name, "token": token.secret}, ensure_ascii=False))
        return
    click.echo(f"Club {club.name!r} created.")
    click.echo(f"  id:    {club.id}")
    _echo_token(token)


@club.command("tokens")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.option("--json", "as_json", is_flag=True, help="Print {tokens: [{id, role, label, created_at, "
                                                        "last_used_at, revoked_at}]} as JSON.")
def club_tokens(club_id: str, as_json: bool) -> None:
    """CLUB's tokens: id, role, label, made, last used (to the minute), revoked. Never a secret."""
    _print_tokens(club_id, as_json)


@main.group()
def clubs() -> None:
    """Every club of the database."""


@clubs.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print {clubs: [{id, name, created_at, games}]} as JSON.")
def clubs_list(as_json: bool) -> None:
    """Every club, oldest first: id, name, when it was made, how many games it has."""
    from nj_ledger.store import iso

    rows = [{"id": club.id, "name": club.name, "created_at": iso(club.created_at), "games": games}
            for club, games in _store().list_clubs()]
    if as_json:
        click.echo(json.dumps({"clubs": rows}, ensure_ascii=False))
        return
    if not rows:
        click.echo("No club yet: `nj-ledger club create NAME` makes one.")
    for row in rows:
        games = "1 game" if row["games"] == 1 else f"{row['games']} games"
        click.echo(f"{row['id']}  {row['name']}  (made {row['created_at']}, {games})")


# --- games in and out --------------------------------------------------------------------------
@main.command()
@click.option("--examples", "folder", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=examples_folder, show_default="the example games shipped with the ledger",
              help="Folder of game documents (*.json).")
def demo(folder: Path) -> None:
    """Load the example games into the club "Demo" (created if missing); running it again adds nothing.

    Prints the demo club's scorer token, kept in the instance folder's `demo-token` (mode 0600): every run shows the
    same one, and makes another only when it no longer signs in to the club (revoked, another database)."""
    from nj_ledger.store import StoreError
    from nj_ledger.store.documents import document_digest, import_document

    store = _store()
    club, made = _club_or_new(store, DEMO_CLUB)
    secret, where, new = _demo_token(store, club.id, made)
    files = sorted(folder.glob("*.json"))
    loaded = skipped = 0
    with click.progressbar(files, label="Loading examples", item_show_func=lambda p: p.name if p else None) as bar:
        for path in bar:
            document = json.loads(path.read_text(encoding="utf-8"))
            if store.find_game(club.id, document_digest(document)) is not None:
                skipped += 1
                continue
            try:
                import_document(store, club.id, document)
            except (LedgerError, StoreError) as error:
                raise _refusal(error, f"{path.name}: ") from None
            loaded += 1
    click.echo(f"Club {club.name!r}: {loaded} games loaded, {skipped} already there.")
    click.echo(f"  id:    {club.id}")
    click.echo(f"  token: {secret}  (scorer; {'new, ' if new else ''}kept in {where})")


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
    token = made or store.create_token(club_id, "scorer", "demo")
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
    from api.context import summary_view

    store = _store()
    if club_id is not None:
        store.club(club_id)  # an unknown club is said, not listed as empty
    played = day.date() if day is not None else None
    found = store.list_games(club_id, status=status, player=player or None, title=title or None,
                             played_from=played, played_to=played, limit=limit, offset=offset)
    rows = [summary_view(game) for game in found]
    if as_json:
        click.echo(json.dumps({"games": rows}, ensure_ascii=False))
        return
    if not rows:
        click.echo("No game matches.")
    for row in rows:
        deals = "deal " if row["deals_played"] == 1 else "deals"  # padded: the players' column stays aligned
        click.echo(f"{row['id']}  {row['date']}  {row['status']:<9}  {row['profile']:<17}  "
                   f"{row['deals_played']:>3} {deals}  {', '.join(row['players'])}"
                   + (f"  \u2014 {row['title']}" if row["title"] else ""))


@main.command("import")
@click.argument("file", type=click.File("rb"))
@click.option("--club", "club_id", callback=_an_id,
              help=f"Club id (default: the club {LOCAL_CLUB!r}, created if missing).")
@click.option("--format", "fmt", type=click.Choice(["auto", "json", "njn"]), default="auto", show_default=True,
              help="auto: NJN for a .njn file, JSON otherwise.")
def import_(file: Any, club_id: str | None, fmt: str) -> None:
    """Import a game (FILE, or - for standard input) into a club: a JSON game document or an NJN record.

    A JSON file is read as it is imported, so a game of any length fits in memory.
    """
    from nj_ledger.store import StoreError
    from nj_ledger.store.documents import import_document
    from nj_ledger.store.streaming import JSONError, import_file

    store = _store()
    club, token = _club_given_or_new(store, club_id, LOCAL_CLUB)
    try:
        if fmt == "njn" or (fmt == "auto" and str(file.name).lower().endswith(".njn")):
            from nj_ledger.notation import parse_njn

            created: Any = import_document(store, club.id, parse_njn(file.read().decode("utf-8")))
        elif file.seekable():
            created = import_file(store, club.id, file)
        else:  # standard input: read whole
            created = import_document(store, club.id, json.load(file))
    except (json.JSONDecodeError, JSONError, UnicodeDecodeError) as error:
        raise click.ClickException(f"{file.name} is not JSON: {error}") from None
    except (LedgerError, StoreError) as error:
        raise _refusal(error) from None
    click.echo(f"Game {created.game.id} imported into {club.name!r} ({club.id}): "
               f"{created.game.version} events, status {created.game.status}.")
    if token is not None:
        _echo_token(token)


@main.command()
@click.argument("game", callback=_an_id)
@click.option("--format", "fmt", type=click.Choice(["json", "njn"]), default="json", show_default=True)
@click.option("--output", "-o", type=click.File("w", encoding="utf-8"), default="-", help="File (default: stdout).")
def export(game: str, fmt: str, output: Any) -> None:
    """Export a game as a document."""
    from nj_ledger.store.documents import export_document

    store = _store()
    club_id = store.owner(game)
    if club_id is None:
        raise click.ClickException(f"There is no game {game!r}.")
    document = export_document(store, club_id, game)
    if fmt == "njn":
        from nj_ledger.notation import write_njn

        output.write(write_njn(document, {"club": store.club(club_id).name}))
        return
    json.dump(document, output, ensure_ascii=False, indent=2)
    output.write("\n")



@main.command()
@click.argument("game", callback=_an_id)
@click.option("--deal", "deal_number", type=click.IntRange(1), help="Only this deal (default: every settled deal).")
@click.option("--limit", type=click.IntRange(1), default=None,
              help="Positions searched at most for each decision point (default: the ledger's budget).")
@click.option("--json", "as_json", is_flag=True, help="The analysis as the API gives it.")
def analyse(game: str, deal_number: int | None, limit: int | None, as_json: bool) -> None:
    """Each decision of a settled deal, reviewed by the solver: the best move, the chips lost, the mark."""
    from functools import reduce

    from nj_ledger.deal_analysis import DEFAULT_LIMIT, analyse_deal
    from nj_ledger.reducer import fold
    from nj_ledger.store.log import event_of

    store = _store()
    club_id = store.owner(game)
    if club_id is None:
        raise click.ClickException(f"There is no game {game!r}.")
    _, now = store.game_state(club_id, game)
    last = now.deal.number if now.deal is not None else 0
    numbers = [deal_number] if deal_number is not None else list(range(1, last + 1))
    answers = []
    for number in numbers:
        segment = store.deal_segment(club_id, game, number)
        if segment is None:
            raise click.ClickException(f"Game {game!r} has no deal {number}.")
        start, records = segment
        events = [(record["seq"], event_of(record)) for record in records]
        end = reduce(fold, [event for _, event in events], start.copy())
        if end.deal is None or not end.deal.ended:
            if deal_number is not None:
                raise click.ClickException(f"Deal {number} of game {game!r} is not settled yet.")
            continue
        with click.progressbar(length=1, label=f"Deal {number}: decision points", file=sys.stderr) as bar:
            def step(done: int, total: int, bar: Any = bar) -> None:
                bar.length = total
                bar.update(done - bar.pos)

            analysis = analyse_deal(start, events, limit or DEFAULT_LIMIT, progress=step)
        answers.append({"game": game, "deal": number, **analysis})
        if not as_json:
            _print_analysis(number, analysis)
    if as_json:
        click.echo(json.dumps(answers if deal_number is None else answers[0], ensure_ascii=False, indent=2))


def _print_analysis(number: int, analysis: dict[str, Any]) -> None:
    players = analysis["players"]

    def said(action: dict[str, Any]) -> str:
        return " ".join(action["cards"]) if action["type"] == "play" else "pass"

    status = {"done": "searched to the end",
              "partial": f"from event {analysis['from_seq']} on (the earlier positions are past the budget)",
              "too-large": "too large for the budget: no decision reviewed",
              "hands-unknown": "recorded without every hand and no consistent deal could be drawn: not analysed"
              }[analysis["status"]]
    sampled = analysis.get("sampled")
    if sampled is not None:
        among = f"the {sampled['deals']:,}" if sampled["deals"] is not None else "those"
        status += (f". Some cards were never seen: means over {sampled['samples']} deals drawn among {among} "
                   f"consistent with the record (seed {sampled['seed']})")
    marks = analysis["thresholds"]
    click.echo(f"Deal {number}: {status}. Marks: inaccuracy from {marks['inaccuracy']}, mistake "
               f"from {marks['mistake']}, blunder from {marks['blunder']} chips lost.")
    if not analysis["decisions"]:
        return
    click.echo(f"{'seq':>5}  {'player':<12} {'played':<14} {'best':<14} {'lost':>5}  {'mark':<19} on what they saw")
    for d in analysis["decisions"]:
        best = said(d["best"][0]) if d["best"] else ""
        mark = d["mark"] + (" (forced)" if d["forced"] else "")
        fair = d.get("fair")
        seen = f"{fair['mark']}, {fair['lost']} lost ({fair['samples']} deals)" if fair else "-"
        click.echo(f"{d['seq']:>5}  {players[d['seat']]:<12} {said(d['action']):<14} {best:<14} {d['lost']:>5}  "
                   f"{mark:<19} {seen}")
    click.echo("Expected chips: " + " · ".join(
        f"{name} {value}" for name, value in zip(players, analysis["expected"][-1]["values"], strict=True)))

# --- simulation --------------------------------------------------------------------------------
@main.command()
@click.option("--games", "count", type=click.IntRange(1), default=10, show_default=True, help="How many games.")
@click.option("--profile", default="classic", show_default=True, help="Rule profile.")
@click.option("--players", type=click.IntRange(2, 8), help="Players per game (default: varies).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first game.")
@click.option("--deals", type=click.IntRange(1), default=8, show_default=True, help="Deals at most per game.")
@click.option("--info", type=click.Choice(["full", "partial"]), default="full", show_default=True,
              help="Hands given at the deal (full), or revealed at the end (partial).")
@click.option("--club", "club_id", callback=_an_id,
              help=f"Club id (default: the club {SIMULATION_CLUB!r}, created if missing).")
def simulate(count: int, profile: str, players: int | None, seed: int, deals: int, info: str,
             club_id: str | None) -> None:
    """Play random legal games and store them through the same append path as the API."""
    from nj_ledger.rules import resolve_rules
    from nj_ledger.simulator import simulate as play

    try:
        rules = resolve_rules(profile)
    except LedgerError as error:
        raise click.BadParameter(english(error.said), param_hint="--profile") from None
    if players is not None and players not in rules.players:
        raise click.BadParameter(f"{profile} is played by {', '.join(map(str, rules.players))} players",
                                 param_hint="--players")
    store = _store()
    club, token = _club_given_or_new(store, club_id, SIMULATION_CLUB)
    events = 0
    started_at = time.perf_counter()
    with click.progressbar(range(count), label=f"Simulating {profile} games") as bar:
        for number in bar:
            game = play(seed + number, profile, players, info=info, deals=deals)
            created = store.create_game(club.id, game.events[0])
            version = created.game.version
            for batch in game.batches:
                appended = store.append(club.id, created.game.id, batch)
                version = appended.game.version  # type: ignore[union-attr]
            events += version
    seconds = time.perf_counter() - started_at
    click.echo(f"{count} games, {events} events stored in club {club.name!r} ({club.id}) "
               f"in {seconds:.1f} s ({events / seconds:,.0f} events/s).")
    if token is not None:
        _echo_token(token)


# --- the scoreboard's tables -------------------------------------------------------------------
@main.group()
def projections() -> None:
    """The scoreboard's tables, derived from the log."""


@projections.command("rebuild")
@click.option("--club", "club_id", callback=_an_id, help="Only this club (default: every club).")
def projections_rebuild(club_id: str | None) -> None:
    """Rebuild the scoreboard's tables from the log (one transaction; the old tables stay until it commits)."""
    from nj_ledger.store.projections import rebuild_steps

    started_at = time.perf_counter()
    steps = rebuild_steps(_store(), club_id)
    _, total, events = next(steps)
    with click.progressbar(length=total, label="Counting ended games") as bar:
        for done, _, _ in steps:
            bar.update(done - bar.pos)
    seconds = time.perf_counter() - started_at
    click.echo(f"{total} games ({events} events) counted again in {seconds:.1f} s "
               f"({events / max(seconds, 1e-9):,.0f} events/s).")


# --- keys, receipts and tokens -----------------------------------------------------------------
@main.command("admin-token")
def admin_token() -> None:
    """Print a new admin token (32 random bytes, 43 characters) for NJ_LEDGER_ADMIN_TOKEN, one the server
    accepts."""
    import secrets

    from api.auth import WeakAdminToken, check_admin_token

    while True:
        token = secrets.token_urlsafe(32)
        try:
            check_admin_token(token)
        except WeakAdminToken:  # random bytes that happen to spell what a guesser tries first: drawn again
            continue
        click.echo(token)
        return


@main.group()
def keys() -> None:
    """The keys that sign receipts: the private one in NJ_LEDGER_SIGNING_KEY or its file, the public ones in the
    database."""


@keys.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print {keys: [{id, algorithm, public_key, created}]}.")
@click.option("--all", "every", is_flag=True,
              help="Every row of the database's key table, believed or not, with the key each follows.")
def keys_list(as_json: bool, every: bool) -> None:
    """The public keys that check receipts (as GET /api/v1/keys serves them); the last one signs now."""
    store = _store()
    if every:
        rows = [{**key.view(), "follows": key.predecessor, "genuine": key.genuine} for key in store.all_keys()]
        if as_json:
            click.echo(json.dumps({"keys": rows}))
            return
        for row in rows:
            follows = f"follows {row['follows']}" if row["follows"] else "the first"
            mark = "" if row["genuine"] else "  (NOT GENUINE: its id is not its key's)"
            click.echo(f"{row['id']}  {row['public_key']}  since {row['created']}  {follows}{mark}")
        return
    found = [key.view() for key in store.signing_keys()]
    if as_json:
        click.echo(json.dumps({"keys": found}))
        return
    if not found:
        click.echo("No key has signed here yet: the first write takes the configured key into use.")
    for number, key in enumerate(found, start=1):
        state = "signs now" if number == len(found) else "retired, still verifies"
        click.echo(f"{key['id']}  {key['algorithm']}  {key['public_key']}  since {key['created']}  ({state})")


@keys.command("generate")
def keys_generate() -> None:
    """Print a new private key (a 32-byte Ed25519 seed, base64url) for NJ_LEDGER_SIGNING_KEY; nothing is stored."""
    from nj_ledger.receipts import Signer, b64url

    click.echo(b64url(Signer.generate().seed))


@keys.command("rotate")
@click.option("--adopt", is_flag=True,
              help="Take the configured key into use instead of making a new one (after changing "
                   "NJ_LEDGER_SIGNING_KEY or moving a key file in); name the key it follows with --after.")
@click.option("--after", metavar="KEY", help="With --adopt: the key that signed the games (the `key` of a receipt "
                                             "or heads file you hold; `keys list --all` shows them).")
def keys_rotate(adopt: bool, after: str | None) -> None:
    """Sign with a new key from now on; older keys keep verifying what they signed. Restart the servers after."""
    if after and not adopt:
        raise click.BadParameter("only with --adopt: a plain rotation follows the key signing now",
                                 param_hint="--after")
    key = _store().rotate_signing_key(adopt=adopt, after=after)
    click.echo(f"Key {key.id} signs from now on (public key {key.public_key}). Restart the servers to use it.")


@main.group()
def heads() -> None:
    """Signed heads of a club's games, kept away from the server: any later change of a log shows against them."""


@heads.command("export")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.option("--output", "-o", type=click.File("w", encoding="utf-8"), default="-", help="File (default: stdout).")
def heads_export(club_id: str, output: Any) -> None:
    """Write the signed receipt of every game of CLUB as it stands (JSON): print it, mail it, keep it.

    A game whose head the ledger did not sign is left out and named (exit 1): audit it.
    """
    from nj_ledger.store.checkpoints import sign_heads

    document, left_out = sign_heads(_store(), club_id)
    json.dump(document, output, ensure_ascii=False, indent=1)
    output.write("\n")
    for game in left_out:
        click.echo(f"{game['game']} (version {game['version']}) left out: {game['why']}.", err=True)
    if left_out:
        sys.exit(1)


@heads.command("check")
@click.argument("file", type=click.File("rb"))
def heads_check(file: Any) -> None:
    """Audit every game of a heads file (or any JSON list of receipts) against the log: exit 1 if one fails."""
    from nj_ledger.store import NotFound
    from nj_ledger.store.checkpoints import audit_game

    try:
        document = json.load(file)
    except (ValueError, RecursionError) as error:  # not JSON, nested too deep, a number too long to read
        raise click.ClickException(f"{file.name} is not a receipts file: {error}") from None
    from nj_ledger.receipts import well_formed

    listed = document.get("receipts") if isinstance(document, dict) else document
    receipts = [receipt for receipt in listed if well_formed(receipt)] if isinstance(listed, list) else []
    if not receipts:
        raise click.ClickException(f"{file.name} holds no receipt.")
    store = _store()
    by_game: dict[str, list[dict[str, Any]]] = {}
    for receipt in receipts:
        by_game.setdefault(receipt["game"], []).append(receipt)
    failed = 0
    for game, held in by_game.items():
        club_id = store.owner(game)
        try:
            if club_id is None:
                raise NotFound("There is no game {game!r}.", game=game)
            report = audit_game(store, club_id, game, held)
        except NotFound:
            failed += 1
            click.echo(f"{game}: MISSING — the database has no such game, yet {len(held)} receipt(s) name it.")
            continue
        if report["ok"]:
            click.echo(f"{game}: ok — {report['receipts']['checked']} receipt(s) match, audit clean "
                       f"({report['events']} events).")
            continue
        failed += 1
        click.echo(f"{game}: FAILED")
        for finding in report["findings"]:
            if finding.severity == "error":
                click.echo(f"  #{finding.seq} {finding.code}: {english(finding.said)}")
    click.echo(f"{len(by_game) - failed} of {len(by_game)} games hold to their receipts.")
    if failed:
        sys.exit(1)


@main.group()
def tokens() -> None:
    """A club's tokens: list, revoke, rotate."""


@tokens.command("list")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.option("--json", "as_json", is_flag=True, help="Print the tokens as JSON.")
def tokens_list(club_id: str, as_json: bool) -> None:
    """CLUB's tokens: id, role, label, made, last used (to the minute), revoked. Never a secret."""
    _print_tokens(club_id, as_json)


def _print_tokens(club_id: str, as_json: bool) -> None:
    from nj_ledger.store import iso

    store = _store()
    found = store.tokens(store.club(club_id).id, limit=10_000)
    rows = [{"id": t.id, "role": t.role, "label": t.label, "created_at": iso(t.created_at),
             "last_used_at": t.last_used_at and iso(t.last_used_at), "revoked_at": t.revoked_at and iso(t.revoked_at)}
            for t in found]
    if as_json:
        click.echo(json.dumps({"tokens": rows}, ensure_ascii=False))
        return
    for row in rows:
        state = f"revoked {row['revoked_at']}" if row["revoked_at"] else "in use"
        used = row["last_used_at"] or "never"
        click.echo(f"{row['id']:>5}  {row['role']:<6}  {row['label'] or '-':<20}  made {row['created_at']}  "
                   f"last used {used}  {state}")


@tokens.command("revoke")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("token_id", metavar="TOKEN", type=TOKEN_NUMBER)
def tokens_revoke(club_id: str, token_id: int) -> None:
    """Revoke token TOKEN of CLUB: refused at once by every server."""
    store = _store()
    store.revoke_token(store.club(club_id).id, token_id)
    click.echo(f"Token {token_id} revoked.")


@tokens.command("rotate")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("token_id", metavar="TOKEN", type=TOKEN_NUMBER)
def tokens_rotate(club_id: str, token_id: int) -> None:
    """Replace token TOKEN of CLUB by a new one with its role and label (the old one is revoked)."""
    store = _store()
    new = store.rotate_token(store.club(club_id).id, token_id)
    click.echo(f"Token {token_id} revoked; token {new.id} replaces it.")
    _echo_token(new)


# --- club evenings ----------------------------------------------------------------------------
OPERATOR = {"role": "operator", "label": "command line"}  # who the evening's log says made a decision here


@main.group()
def evening() -> None:
    """Club evenings: open one, show it, start its rounds, close it (docs/EVENINGS.md)."""


def _players(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


def _echo_evening(read: Any) -> None:
    from nj_ledger import evenings as core

    state, info = read.state, read.info
    click.echo(f"{info.name} ({info.id}), {info.played_on.isoformat()}, {info.status}: round {state.current_round} "
               f"of {state.rounds}, {state.ranking}" + (", results confirmed at the table" if state.confirmation
                                                        else ""))
    if state.worst_pair is not None:
        click.echo(f"  seating: a pair meets at most {state.worst_pair} times (bound {state.bound})")
    for number, tables in enumerate(state.schedule, 1):
        kind = "played" if number <= state.current_round else "planned"
        click.echo(f"  round {number} ({kind}):")
        for table, players in enumerate(tables, 1):
            game = ""
            if number <= state.current_round:
                seated = state.started[number - 1][table - 1]
                game = f"  {seated.game} {core.cell_mark(state, seated.game, read.outcomes.get(seated.game))}"
            click.echo(f"    table {table} [{read.codes.get(table, '-')}]: {', '.join(players)}{game}")


def _echo_ranking(read: Any) -> None:
    from nj_ledger import evenings as core

    click.echo("  ranking:")
    for row in core.ranking(read.state, read.outcomes):
        rank = "-" if row["rank"] is None else str(row["rank"])
        click.echo(f"    {rank:>3}  {row['name']:<24} {row['score']:>9}  ({row['games']} games)")


def _decided(action: Any) -> Any:
    """Run a decision of the core or the store; a refusal said as a command-line error."""
    try:
        return action()
    except LedgerError as refusal:
        raise _refusal(refusal) from None


@evening.command("create")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("name")
@click.option("--players", "players", required=True, help="The players present, separated by commas.")
@click.option("--rounds", type=click.IntRange(1, 30), required=True, help="Rounds planned.")
@click.option("--chips", "starting_chips", type=click.IntRange(1), default=60, show_default=True,
              help="Starting chips of every game.")
@click.option("--rules", default="classic", show_default=True, help="The profile every table plays.")
@click.option("--date", "day", type=click.DateTime(["%Y-%m-%d"]), help="The day played (default: today, UTC).")
@click.option("--ranking", type=click.Choice(("match_points", "net_chips")), default="match_points",
              show_default=True)
@click.option("--confirmation/--no-confirmation", default=False, show_default=True,
              help="A player of the table confirms each result before it counts.")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=0, show_default=True, help="The seating's seed.")
@click.option("--tables", "table_rule", default="3,4,8", show_default=True, metavar="SMALLEST,PREFERRED,LARGEST",
              help="The table sizes the planner may use.")
@click.option("--base-url", default="", help="The server's address, to print full scorer links.")
@click.option("--json", "as_json", is_flag=True, help="Print the evening as POST /api/v1/clubs/{club}/evenings "
                                                      "answers, without the QR codes.")
def evening_create(club_id: str, name: str, players: str, rounds: int, starting_chips: int, rules: str, day: Any,
                   ranking: str, confirmation: bool, seed: int, table_rule: str, base_url: str,
                   as_json: bool) -> None:
    """Open an evening of CLUB called NAME: its seats drawn for every round, a code and a scorer link (a token
    that reaches that table's games only, shown once) for each table."""
    from datetime import UTC, datetime

    from api.evenings import TOKEN_FRAGMENT, evening_view
    from nj_ledger import evenings as core
    from nj_ledger.decide import new_game

    try:
        smallest, preferred, largest = (int(part) for part in table_rule.split(","))
    except ValueError:
        raise click.BadParameter("three numbers: smallest,preferred,largest", param_hint="--tables") from None
    store = _store()
    store.club(club_id)
    played_on = (day.date() if day is not None else datetime.now(UTC).date()).isoformat()

    def create() -> Any:
        created = core.decide_creation(name=name, played_on=played_on, players=_players(players), rounds=rounds,
                                       rules=rules, starting_chips=starting_chips, ranking=ranking,
                                       confirmation=confirmation, seed=seed,
                                       tables={"smallest": smallest, "preferred": preferred, "largest": largest})
        for size in sorted({len(table) for tables in created[1]["plan"] for table in tables}):
            new_game([f"p{seat}" for seat in range(size)], created[1]["rules"], starting_chips)
        return store.create_evening(club_id, created, OPERATOR)

    read, links = _decided(create)
    urls = {link.table: f"{base_url.rstrip('/')}/tables/{link.code}#{TOKEN_FRAGMENT}={link.secret}"
            for link in links}
    if as_json:
        click.echo(json.dumps({**evening_view(read), "links": [
            {"table": link.table, "code": link.code, "secret": link.secret, "url": urls[link.table]}
            for link in links]}, ensure_ascii=False))
        return
    _echo_evening(read)
    click.echo("  scorer links (shown once, keep them):")
    for link in links:
        click.echo(f"    table {link.table} [{link.code}]: {urls[link.table]}")


@evening.command("show")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("evening_id", metavar="EVENING", callback=_an_id)
@click.option("--json", "as_json", is_flag=True, help="Print the evening and its ranking as the API shows them.")
def evening_show(club_id: str, evening_id: str, as_json: bool) -> None:
    """EVENING of CLUB: its rounds, tables and games (with the grid's marks), and its ranking."""
    from api.evenings import evening_view, ranking_view

    read = _store().evening(club_id, evening_id)
    if as_json:
        click.echo(json.dumps({"evening": evening_view(read), "ranking": ranking_view(read, None)},
                              ensure_ascii=False))
        return
    _echo_evening(read)
    _echo_ranking(read)


@evening.command("round")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("evening_id", metavar="EVENING", callback=_an_id)
@click.option("--force", is_flag=True, help="Start it although games of the last round have not ended.")
def evening_round(club_id: str, evening_id: str, force: bool) -> None:
    """Start the next round of EVENING: a game for each table of the plan."""
    from datetime import UTC, datetime

    store = _store()
    read = _decided(lambda: store.start_round(club_id, evening_id, OPERATOR, force=force, now=datetime.now(UTC)))
    number = read.state.current_round
    click.echo(f"Round {number} started:")
    for seated in read.state.started[-1]:
        click.echo(f"  table {seated.table} [{read.codes[seated.table]}]: game {seated.game}  "
                   f"{', '.join(seated.players)}")


@evening.command("close")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("evening_id", metavar="EVENING", callback=_an_id)
@click.option("--reason", default="", help="Why, for the record.")
def evening_close(club_id: str, evening_id: str, reason: str) -> None:
    """Close EVENING: nothing more is recorded in it; its ranking is final."""
    from nj_ledger import evenings as core

    store = _store()
    read = _decided(lambda: store.decide(club_id, evening_id, lambda state, _: core.decide_close(state, reason),
                                         OPERATOR))
    click.echo(f"{read.info.name} ({read.info.id}) closed.")
    _echo_ranking(read)


# --- measured speed --------------------------------------------------------------------------
@main.command()
@click.option("--quick", is_flag=True, help="Small sizes: the whole run takes a couple of minutes.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the report as JSON to this file.")
@click.option("--size", "overrides", multiple=True, metavar="NAME=N",
              help="Override one size (bulk_deals, live_games, live_deals, replay_events, store_events, scoreboard, "
                   "replay_requests, followers, follower_appends, analysis_deals, analysis_budget).")
def bench(quick: bool, json_path: Path | None, overrides: tuple[str, ...]) -> None:
    """Measure the ledger side by side with the eventsourcing library and the raw databases (SPEC §9)."""
    try:
        from benchmarks import peer
        from benchmarks.runner import run, sizes_for, table
    except ImportError as missing:  # the benchmarks ship with the source tree, not with the package
        raise click.ClickException(f"The benchmarks are not installed here: {missing}") from None
    if not peer.available():
        raise click.ClickException(peer.MISSING)
    try:
        sizes = sizes_for(quick, **{name: int(value) for name, _, value in (o.partition("=") for o in overrides)})
    except (TypeError, ValueError) as error:
        raise click.BadParameter(str(error), param_hint="--size") from None
    report = run(sizes, quick=quick, json_path=json_path, echo=lambda line: click.echo(line, err=True))
    click.echo(table(report))
    if json_path is not None:
        click.echo(f"Report written to {json_path}.")
