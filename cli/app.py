"""The ``nj-ledger`` group and what its commands share: the store, the clubs they fall back on, ids as typed, and
the refusals of the core, the store and the database said as a command-line error, in the terminal's language.

Settings come from the environment: ``NJ_LEDGER_DATABASE_URL`` (default: a SQLite file in the instance folder,
``NJ_LEDGER_INSTANCE``) and ``NJ_LEDGER_ADMIN_TOKEN``. The store and the web app are imported inside the
commands, so ``nj-ledger --help`` stays quick.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from nj_ledger.errors import LedgerError
from nj_ledger.messages import Message

from .language import refusal, say
from .spoken import SpokenGroup

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
    club = store.clubs.find_club(name)
    if club is not None:
        return club, None
    return store.clubs.create_club(name)


def _club_given_or_new(store: Store, club_id: str | None, name: str) -> tuple[ClubInfo, NewToken | None]:
    """The club ``--club`` names (an error if there is none), or else the club ``name``, made if need be."""
    from nj_ledger.store import NotFound

    if club_id is None:
        return _club_or_new(store, name)
    try:
        return store.clubs.club(club_id), None
    except NotFound as missing:
        raise click.ClickException(sentence(missing.said)) from None


def _echo_token(token: NewToken) -> None:
    click.echo(say("  token: {secret}  ({role}; shown once, keep it)", secret=token.secret, role=token.role))


def sentence(said: Message) -> str:
    """What the core or the store said, in the terminal's language (English unless it asks for French)."""
    return refusal(said)


def _refusal(error: LedgerError | StoreError, where: str = "") -> click.ClickException:
    """A refusal of the core or the store as a command-line error: its code, the action, the sentence."""
    action = error.params.get("index")
    at = say(" (action {action})", action=action) if action is not None else ""
    return click.ClickException(say("{where}{code}{at}: {sentence}", where=where, code=error.code, at=at,
                                    sentence=sentence(error.said)))


class LedgerCommands(SpokenGroup):
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
                raise click.ClickException(say("A text on the command line is not UTF-8: set the terminal to UTF-8 "
                                               "and type it again.")) from None
            if isinstance(error, (SQLAlchemyError, ArgumentError)):
                first = (str(getattr(error, "orig", None) or error).strip().splitlines() or [type(error).__name__])[0]
                hint = say(" (a new database? `nj-ledger db upgrade` sets it up)") if "table" in first else ""
                raise click.ClickException(say("The database cannot be used: {first}{hint}", first=first,
                                               hint=hint)) from None
            raise


def _an_id(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A club's or a game's id as typed: letters and digits (anything else names nothing here)."""
    if value is not None and not (value.isascii() and value.isalnum() and len(value) <= 64):
        raise click.BadParameter(say("an id has letters and digits only"), ctx=ctx, param=param)
    return value


TOKEN_NUMBER = click.IntRange(1, 2**31 - 1)


@click.group(cls=LedgerCommands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nj-ledger")
def main() -> None:
    """Nain Jaune Ledger: record, replay and audit games of Nain Jaune."""
