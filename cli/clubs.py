"""The clubs and their tokens: ``club create``, ``club tokens``, ``clubs list``, ``tokens list|revoke|rotate``.

    $ nj-ledger club create "Club de Quimper"
"""

from __future__ import annotations

import json
from typing import Any

import click

from .app import TOKEN_NUMBER, _an_id, _echo_token, _store, main
from .language import say, say_n


@main.group()
def club() -> None:
    """Clubs."""


@club.command("create")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print {id, name, token} as JSON.")
def club_create(name: str, as_json: bool) -> None:
    """Create a club; prints its id and a scorer token."""
    if not name.strip() or len(name.strip()) > 120:
        raise click.BadParameter(say("a club's name has 1 to 120 characters"), param_hint="NAME")
    from nj_ledger.application import clubs

    club, token = clubs.create_club(_store(), name)
    if as_json:
        click.echo(json.dumps({"id": club.id, "name": club.name, "token": token.secret}, ensure_ascii=False))
        return
    click.echo(say("Club {name!r} created.", name=club.name))
    click.echo(say("  id:    {id}", id=club.id))
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
    from nj_ledger.application import clubs
    from nj_ledger.store import iso

    rows: list[dict[str, Any]] = [{"id": club.id, "name": club.name, "created_at": iso(club.created_at),
                                   "games": games} for club, games in clubs.every_club(_store())]
    if as_json:
        click.echo(json.dumps({"clubs": rows}, ensure_ascii=False))
        return
    if not rows:
        click.echo(say("No club yet: `nj-ledger club create NAME` makes one."))
    for row in rows:
        games = say_n("{count} game", "{count} games", row["games"])
        click.echo(say("{id}  {name}  (made {created_at}, {games})", **{**row, "games": games}))



@main.group()
def tokens() -> None:
    """A club's tokens: list, create, revoke, rotate."""


@tokens.command("list")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.option("--json", "as_json", is_flag=True, help="Print the tokens as JSON.")
def tokens_list(club_id: str, as_json: bool) -> None:
    """CLUB's tokens: id, role, label, made, last used (to the minute), revoked. Never a secret."""
    _print_tokens(club_id, as_json)


def _print_tokens(club_id: str, as_json: bool) -> None:
    from api.views import token_view
    from nj_ledger.application import clubs

    rows = [token_view(token) for token in clubs.every_token(_store(), club_id)]
    if as_json:
        click.echo(json.dumps({"tokens": rows}, ensure_ascii=False))
        return
    for row in rows:
        state = say("revoked {moment}", moment=row["revoked_at"]) if row["revoked_at"] else say("in use")
        used = row["last_used_at"] or say("never")
        click.echo(say("{id:>5}  {role:<8}  {label:<20}  made {created_at}  last used {used}  {state}",
                       **{**row, "label": row["label"] or "-", "used": used, "state": state}))


@tokens.command("create")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.option("--role", type=click.Choice(["director", "scorer", "viewer"]), default="scorer", show_default=True,
              help="director: what a scorer may do, and the decisions only the club's director takes.")
@click.option("--label", default="", help="Whose token it is (\"Jeanne's phone\").")
def tokens_create(club_id: str, role: str, label: str) -> None:
    """A new token of CLUB, its secret shown once: the server's operator makes the club's director's."""
    from nj_ledger.application import clubs

    store = _store()
    made = clubs.new_token(store, clubs.known_club(store, club_id).id, role, label[:120])
    click.echo(say("Token {token} made.", token=made.id))
    _echo_token(made)


@tokens.command("revoke")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("token_id", metavar="TOKEN", type=TOKEN_NUMBER)
def tokens_revoke(club_id: str, token_id: int) -> None:
    """Revoke token TOKEN of CLUB: refused at once by every server."""
    from nj_ledger.application import clubs

    store = _store()
    clubs.revoke_token(store, clubs.known_club(store, club_id).id, token_id)
    click.echo(say("Token {token} revoked.", token=token_id))


@tokens.command("rotate")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("token_id", metavar="TOKEN", type=TOKEN_NUMBER)
def tokens_rotate(club_id: str, token_id: int) -> None:
    """Replace token TOKEN of CLUB by a new one with its role and label (the old one is revoked)."""
    from nj_ledger.application import clubs

    store = _store()
    new = clubs.rotate_token(store, clubs.known_club(store, club_id).id, token_id)
    click.echo(say("Token {token} revoked; token {new} replaces it.", token=token_id, new=new.id))
    _echo_token(new)

