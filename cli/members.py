"""A club's members' erasure, the server's operator deciding for the club's director:
``members erase CLUB MEMBER --reason TEXT``, ``members erasures CLUB``.

    $ nj-ledger members erase Xy12 "Ana" --reason "asked to be forgotten"
"""

from __future__ import annotations

import json

import click

from .app import _an_id, _store, main
from .language import say


@main.group()
def members() -> None:
    """A club's members: erase one, list the erasures."""


@members.command("erase")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.argument("member", metavar="MEMBER")
@click.option("--reason", required=True, help="Why (their request, the club's rule…): kept in the club's audit.")
@click.option("--json", "as_json", is_flag=True, help="Print the erasure as JSON.")
def members_erase(club_id: str, member: str, reason: str, as_json: bool) -> None:
    """Erase MEMBER of CLUB (a name, any case, or an id): their name leaves everything the club holds for a
    pseudonym; their games, chips and ratings stay; every log stays verifiable. Decided once, recorded."""
    if not reason.strip() or len(reason.strip()) > 500:
        raise click.BadParameter(say("a reason has 1 to 500 characters"), param_hint="--reason")
    from api.erasure_schemas import erasure_view
    from nj_ledger.application import clubs
    from nj_ledger.application.members import erase_member

    store = _store()
    info = erase_member(store, clubs.known_club(store, club_id).id, member, reason, {"role": "operator"})
    if as_json:
        click.echo(json.dumps(erasure_view(info), ensure_ascii=False))
        return
    click.echo(say("Member {member} erased (erasure {number}): they are {pseudonym} now.", member=info.member,
                   number=info.number, pseudonym=info.pseudonym))
    click.echo(say("  redacted: games {games}, their events {events}; evenings {evenings}, their decisions {entries}",
                   **info.redacted))


@members.command("erasures")
@click.argument("club_id", metavar="CLUB", callback=_an_id)
@click.option("--json", "as_json", is_flag=True, help="Print {erasures, chain} as JSON.")
def members_erasures(club_id: str, as_json: bool) -> None:
    """CLUB's erasures, oldest first, held to their chain and signatures."""
    from api.erasure_schemas import erasure_view
    from nj_ledger.application import clubs
    from nj_ledger.application.members import erasures

    store = _store()
    found, chain = erasures(store, clubs.known_club(store, club_id).id)
    if as_json:
        click.echo(json.dumps({"erasures": [erasure_view(info) for info in found], "chain": chain},
                              ensure_ascii=False))
        return
    for info in found:
        click.echo(say("{number:>4}  {recorded_at}  member {member} → {pseudonym}  by {role}  {reason}",
                       number=info.number, recorded_at=info.recorded_at, member=info.member,
                       pseudonym=info.pseudonym, role=info.by.get("role", "?"), reason=info.reason))
    click.echo(say("The erasures' chain holds.") if chain["ok"]
               else say("The erasures' chain fails at erasure {number}.", number=chain["first_bad"]))
