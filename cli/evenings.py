"""Club evenings: ``evening create|show|round|close`` (docs/EVENINGS.md).

    $ nj-ledger evening create CLUB "Soirée du jeudi" --players "Ana,Ben,Chloé,Dan" --rounds 3
"""

from __future__ import annotations

import json
from typing import Any

import click

from nj_ledger.errors import LedgerError

from .app import _an_id, _refusal, _store, main
from .language import _, say, say_n

OPERATOR = {"role": "operator", "label": "command line"}  # who the evening's log says made a decision here


@main.group()
def evening() -> None:
    """Club evenings: open one, show it, start its rounds, close it (docs/EVENINGS.md)."""


def _players(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


def _echo_evening(read: Any) -> None:
    from nj_ledger import evenings as core

    state, info = read.state, read.info
    click.echo(say("{name} ({id}), {day}, {status}: round {round} of {rounds}, {ranking}", name=info.name, id=info.id,
                   day=info.played_on.isoformat(), status=info.status, round=state.current_round, rounds=state.rounds,
                   ranking=state.ranking) + (_(", results confirmed at the table") if state.confirmation else ""))
    if state.worst_pair is not None:
        click.echo(say_n("  seating: a pair meets at most {count} times (bound {bound})",
                         "  seating: a pair meets at most {count} times (bound {bound})", state.worst_pair,
                         bound=state.bound))
    for number, tables in enumerate(state.schedule, 1):
        click.echo(say("  round {number} (played):", number=number) if number <= state.current_round
                   else say("  round {number} (planned):", number=number))
        for table, players in enumerate(tables, 1):
            game = ""
            if number <= state.current_round:
                seated = state.started[number - 1][table - 1]
                game = f"  {seated.game} {core.cell_mark(state, seated.game, read.outcomes.get(seated.game))}"
            click.echo(say("    table {table} [{code}]: {players}{game}", table=table, code=read.codes.get(table, "-"),
                           players=", ".join(players), game=game))


def _echo_ranking(read: Any) -> None:
    from nj_ledger import evenings as core

    click.echo(_("  ranking:"))
    for row in core.ranking(read.state, read.outcomes):
        rank = "-" if row["rank"] is None else str(row["rank"])
        click.echo(say_n("    {rank:>3}  {name:<24} {score:>9}  ({count} games)",
                         "    {rank:>3}  {name:<24} {score:>9}  ({count} games)", row["games"], rank=rank,
                         name=row["name"], score=row["score"]))


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

    from api.evening_json import TOKEN_FRAGMENT, evening_view
    from nj_ledger.application import clubs, evenings

    try:
        smallest, preferred, largest = (int(part) for part in table_rule.split(","))
    except ValueError:
        raise click.BadParameter(_("three numbers: smallest,preferred,largest"), param_hint="--tables") from None
    store = _store()
    clubs.known_club(store, club_id)
    played_on = day.date() if day is not None else datetime.now(UTC).date()
    read, links = _decided(lambda: evenings.create_evening(
        store, club_id, OPERATOR, name=name, played_on=played_on, players=_players(players), rounds=rounds,
        rules=rules, starting_chips=starting_chips, ranking=ranking, confirmation=confirmation, seed=seed,
        tables={"smallest": smallest, "preferred": preferred, "largest": largest}))
    urls = {link.table: f"{base_url.rstrip('/')}/tables/{link.code}#{TOKEN_FRAGMENT}={link.secret}"
            for link in links}
    if as_json:
        click.echo(json.dumps({**evening_view(read), "links": [
            {"table": link.table, "code": link.code, "secret": link.secret, "url": urls[link.table]}
            for link in links]}, ensure_ascii=False))
        return
    _echo_evening(read)
    click.echo(_("  scorer links (shown once, keep them):"))
    for link in links:
        click.echo(say("    table {table} [{code}]: {players}{game}", table=link.table, code=link.code,
                       players=urls[link.table], game=""))


@evening.command("show")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("evening_id", metavar="EVENING", callback=_an_id)
@click.option("--json", "as_json", is_flag=True, help="Print the evening and its ranking as the API shows them.")
def evening_show(club_id: str, evening_id: str, as_json: bool) -> None:
    """EVENING of CLUB: its rounds, tables and games (with the grid's marks), and its ranking."""
    from api.evening_json import evening_view, ranking_view
    from nj_ledger.application import evenings

    read = evenings.evening(_store(), club_id, evening_id)
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

    from nj_ledger.application import evenings

    store = _store()
    read = _decided(lambda: evenings.start_round(store, club_id, evening_id, OPERATOR, force=force,
                                                 now=datetime.now(UTC)))
    number = read.state.current_round
    click.echo(say("Round {number} started:", number=number))
    for seated in read.state.started[-1]:
        click.echo(say("  table {table} [{code}]: game {game}  {players}", table=seated.table,
                       code=read.codes[seated.table], game=seated.game, players=", ".join(seated.players)))


@evening.command("close")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("evening_id", metavar="EVENING", callback=_an_id)
@click.option("--reason", default="", help="Why, for the record.")
def evening_close(club_id: str, evening_id: str, reason: str) -> None:
    """Close EVENING: nothing more is recorded in it; its ranking is final."""
    from nj_ledger.application import evenings

    store = _store()
    read = _decided(lambda: evenings.close(store, club_id, evening_id, reason, OPERATOR))
    click.echo(say("{name} ({id}) closed.", name=read.info.name, id=read.info.id))
    _echo_ranking(read)


