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
    club, token = _store().clubs.create_club(name)
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
    from nj_ledger.store import iso

    rows: list[dict[str, Any]] = [{"id": club.id, "name": club.name, "created_at": iso(club.created_at),
                                   "games": games} for club, games in _store().clubs.list_clubs()]
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
    found = store.tokens.tokens(store.clubs.club(club_id).id, limit=10_000)
    rows = [{"id": t.id, "role": t.role, "label": t.label, "created_at": iso(t.created_at),
             "last_used_at": t.last_used_at and iso(t.last_used_at), "revoked_at": t.revoked_at and iso(t.revoked_at)}
            for t in found]
    if as_json:
        click.echo(json.dumps({"tokens": rows}, ensure_ascii=False))
        return
    for row in rows:
        state = say("revoked {moment}", moment=row["revoked_at"]) if row["revoked_at"] else say("in use")
        used = row["last_used_at"] or say("never")
        click.echo(say("{id:>5}  {role:<6}  {label:<20}  made {created_at}  last used {used}  {state}",
                       **{**row, "label": row["label"] or "-", "used": used, "state": state}))


@tokens.command("revoke")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("token_id", metavar="TOKEN", type=TOKEN_NUMBER)
def tokens_revoke(club_id: str, token_id: int) -> None:
    """Revoke token TOKEN of CLUB: refused at once by every server."""
    store = _store()
    store.tokens.revoke_token(store.clubs.club(club_id).id, token_id)
    click.echo(say("Token {token} revoked.", token=token_id))


@tokens.command("rotate")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("token_id", metavar="TOKEN", type=TOKEN_NUMBER)
def tokens_rotate(club_id: str, token_id: int) -> None:
    """Replace token TOKEN of CLUB by a new one with its role and label (the old one is revoked)."""
    store = _store()
    new = store.tokens.rotate_token(store.clubs.club(club_id).id, token_id)
    click.echo(say("Token {token} revoked; token {new} replaces it.", token=token_id, new=new.id))
    _echo_token(new)

