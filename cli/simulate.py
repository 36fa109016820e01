"""Games played by the machine, the scoreboard's tables, and measured speed: ``simulate``,
``projections rebuild`` and ``bench``.

    $ nj-ledger simulate --games 100 --players 4
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from nj_ledger.errors import LedgerError

from .app import SIMULATION_CLUB, _an_id, _club_given_or_new, _echo_token, _store, main, sentence
from .language import say


@main.command()
@click.option("--games", "count", type=click.IntRange(1), default=10, show_default=True, help="How many games.")
@click.option("--profile", default="classic", show_default=True, help="Rule profile.")
@click.option("--players", type=click.IntRange(2, 8), help="Players per game (default: varies).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first game.")
@click.option("--deals", type=click.IntRange(1), default=8, show_default=True, help="Deals at most per game.")
@click.option("--info", type=click.Choice(["full", "partial"]), default="full", show_default=True,
              help="Hands given at the deal (full), or revealed at the end (partial).")
@click.option("--club", "club_id", callback=_an_id,
              help="Club id (default: the club 'Simulations', created if missing).")
def simulate(count: int, profile: str, players: int | None, seed: int, deals: int, info: str,
             club_id: str | None) -> None:
    """Play random legal games and store them through the same append path as the API."""
    from nj_ledger.rules import resolve_rules
    from nj_ledger.simulator import simulate as play

    try:
        rules = resolve_rules(profile)
    except LedgerError as error:
        raise click.BadParameter(sentence(error.said), param_hint="--profile") from None
    if players is not None and players not in rules.players:
        raise click.BadParameter(say("{profile} is played by {players} players", profile=profile,
                                     players=", ".join(map(str, rules.players))),
                                 param_hint="--players")
    store = _store()
    club, token = _club_given_or_new(store, club_id, SIMULATION_CLUB)
    events = 0
    started_at = time.perf_counter()
    with click.progressbar(range(count), label=say("Simulating {profile} games", profile=profile)) as bar:
        for number in bar:
            game = play(seed + number, profile, players, info=info, deals=deals)
            created = store.games.create_game(club.id, game.events[0])
            version = created.game.version
            for batch in game.batches:
                appended = store.games.append(club.id, created.game.id, batch)
                version = appended.game.version  # type: ignore[union-attr]
            events += version
    seconds = time.perf_counter() - started_at
    click.echo(say("{count} games, {events} events stored in club {name!r} ({club}) in {seconds:.1f} s "
                   "({speed:,.0f} events/s).", count=count, events=events, name=club.name, club=club.id,
                   seconds=seconds, speed=events / seconds))
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
    steps = rebuild_steps(_store().db, club_id)
    _, total, events = next(steps)
    with click.progressbar(length=total, label=say("Counting ended games")) as bar:
        for done, _, _ in steps:
            bar.update(done - bar.pos)
    seconds = time.perf_counter() - started_at
    click.echo(say("{total} games ({events} events) counted again in {seconds:.1f} s ({speed:,.0f} events/s).",
                   total=total, events=events, seconds=seconds, speed=events / max(seconds, 1e-9)))



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
        raise click.ClickException(say("The benchmarks are not installed here: {missing}", missing=missing)) from None
    if not peer.available():
        raise click.ClickException(peer.MISSING)
    try:
        sizes = sizes_for(quick, **{name: int(value) for name, _, value in (o.partition("=") for o in overrides)})
    except (TypeError, ValueError) as error:
        raise click.BadParameter(str(error), param_hint="--size") from None
    report = run(sizes, quick=quick, json_path=json_path, echo=lambda line: click.echo(line, err=True))
    click.echo(table(report))
    if json_path is not None:
        click.echo(say("Report written to {path}.", path=json_path))
