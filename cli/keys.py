"""Keys, receipts and the admin token: ``admin-token``, ``keys list|generate|rotate``, ``heads export|check``.

    $ nj-ledger keys rotate
    $ nj-ledger heads export CLUB -o heads.json
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .app import _an_id, _store, main, sentence
from .language import _, say, say_n


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
        rows = [{**key.view(), "follows": key.predecessor, "genuine": key.genuine} for key in store.keys.all_keys()]
        if as_json:
            click.echo(json.dumps({"keys": rows}))
            return
        for row in rows:
            follows = say("follows {key}", key=row["follows"]) if row["follows"] else _("the first")
            mark = "" if row["genuine"] else _("  (NOT GENUINE: its id is not its key's)")
            click.echo(say("{id}  {public_key}  since {created}  {follows}{mark}", **{**row, "follows": follows,
                                                                                     "mark": mark}))
        return
    found = [key.view() for key in store.keys.signing_keys()]
    if as_json:
        click.echo(json.dumps({"keys": found}))
        return
    if not found:
        click.echo(_("No key has signed here yet: the first write takes the configured key into use."))
    for number, key in enumerate(found, start=1):
        state = _("signs now") if number == len(found) else _("retired, still verifies")
        click.echo(say("{id}  {algorithm}  {public_key}  since {created}  ({state})", **{**key, "state": state}))


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
        raise click.BadParameter(_("only with --adopt: a plain rotation follows the key signing now"),
                                 param_hint="--after")
    key = _store().keys.rotate_signing_key(adopt=adopt, after=after)
    click.echo(say("Key {key} signs from now on (public key {public_key}). Restart the servers to use it.",
                   key=key.id, public_key=key.public_key))


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

    document, left_out = sign_heads(_store().keys, club_id)
    json.dump(document, output, ensure_ascii=False, indent=1)
    output.write("\n")
    for game in left_out:
        click.echo(say("{game} (version {version}) left out: {why}.", **game), err=True)
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
        raise click.ClickException(say("{file} is not a receipts file: {error}", file=file.name, error=error)) from None
    from nj_ledger.receipts import well_formed

    listed = document.get("receipts") if isinstance(document, dict) else document
    receipts = [receipt for receipt in listed if well_formed(receipt) and "game" in receipt] if isinstance(
        listed, list) else []  # a game's receipts: an evening's or an archive's are not a game's head
    if not receipts:
        raise click.ClickException(say("{file} holds no receipt.", file=file.name))
    store = _store()
    by_game: dict[str, list[dict[str, Any]]] = {}
    for receipt in receipts:
        by_game.setdefault(receipt["game"], []).append(receipt)
    failed = 0
    for game, held in by_game.items():
        club_id = store.games.owner(game)
        try:
            if club_id is None:
                raise NotFound("There is no game {game!r}.", game=game)
            report = audit_game(store.keys, club_id, game, held)
        except NotFound:
            failed += 1
            click.echo(say_n("{game}: MISSING — the database has no such game, yet {count} receipt(s) name it.",
                             "{game}: MISSING — the database has no such game, yet {count} receipt(s) name it.",
                             len(held), game=game))
            continue
        if report["ok"]:
            click.echo(say_n("{game}: ok — {count} receipt(s) match, audit clean ({events} events).",
                             "{game}: ok — {count} receipt(s) match, audit clean ({events} events).",
                             report["receipts"]["checked"], game=game, events=report["events"]))
            continue
        failed += 1
        click.echo(say("{game}: FAILED", game=game))
        for finding in report["findings"]:
            if finding.severity == "error":
                where = f"  #{finding.seq} "
                click.echo(say("{where}{code}{at}: {sentence}", where=where, code=finding.code, at="",
                               sentence=sentence(finding.said)))
    click.echo(say_n("{count} of {total} games hold to their receipts.", "{count} of {total} games hold to their "
                     "receipts.", len(by_game) - failed, total=len(by_game)))
    if failed:
        sys.exit(1)

