"""The help of the commands in the terminal's language, and click's own words kept in the catalog.

click writes its own words through ``gettext.gettext`` ("Usage:", "Error: {message}", "Missing argument"…): with the
catalog bound (:func:`cli.language.bind`) they are French in a French terminal. The help written in the code (a
command's docstring, an option's ``help`` and a string ``show_default``) is English: :class:`SpokenCommand` and
:class:`SpokenGroup` look it up in the catalog where click writes it, each time, so the language is the one of the
run, not of the import. ``python -m api.catalog`` gathers those helps from ``cli/`` (the docstrings of the commands,
cleaned as click cleans them, and every ``help=``) and click's words marked below.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import click

from .language import N_, Nn_, _, french


def helped(text: str | None) -> str | None:
    """A help written in the code, in the terminal's language (looked up cleaned, as the catalog holds it)."""
    if not text:
        return text
    cleaned = inspect.cleandoc(text)
    translated = _(cleaned)
    return text if translated == cleaned else translated


def _spoken_param(param: click.Parameter) -> click.Parameter:
    """A copy of ``param`` whose help (and a default said in words) are in the terminal's language."""
    spoken = copy.copy(param)
    if isinstance(spoken, click.Option):
        spoken.help = helped(spoken.help)
        if isinstance(spoken.show_default, str):
            spoken.show_default = helped(spoken.show_default)
    return spoken


class SpokenFormatter(click.HelpFormatter):
    """Headings as the terminal's language writes them: "Options:", and in French "Options :" (a no-break space
    before the colon)."""

    def write_heading(self, heading: str) -> None:
        colon = "\u00a0:" if french() else ":"
        self.write(f"{'':>{self.current_indent}}{heading}{colon}\n")


class SpokenContext(click.Context):
    formatter_class = SpokenFormatter


class Spoken:
    """What click writes of a command's help, in the terminal's language."""

    context_class: type[click.Context] = SpokenContext

    help: str | None
    short_help: str | None

    def _in_language(self) -> Any:
        spoken = copy.copy(self)
        spoken.help = helped(self.help)
        spoken.short_help = helped(self.short_help)
        return spoken

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:  # click keeps it once made: its help is said again in the language of this run
            option.help = HELP
        return option

    def get_short_help_str(self, limit: int = 45) -> str:
        return super(Spoken, self._in_language()).get_short_help_str(limit)  # type: ignore[misc]

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super(Spoken, self._in_language()).format_help_text(ctx, formatter)  # type: ignore[misc]

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [record for param in self.get_params(ctx)  # type: ignore[attr-defined]
                if not isinstance(param, click.Argument)
                and (record := _spoken_param(param).get_help_record(ctx)) is not None]
        if rows:
            with formatter.section(_("Options")):
                formatter.write_dl(rows)
        if isinstance(self, click.Group):
            self.format_commands(ctx, formatter)


class SpokenCommand(Spoken, click.Command):
    """A command whose help is said in the terminal's language."""


class SpokenGroup(Spoken, click.Group):
    """A group whose help, and its commands' short helps, are said in the terminal's language."""

    command_class = SpokenCommand
    group_class = type  # its groups are of its own class


HELP = N_("Show this message and exit.")  # the help option's, as click writes it in English
# click's own words that the ledger's commands can show (click looks them up through gettext.gettext).
CLICK_WORDS = (
    N_("Usage:"), N_("Options"), N_("Commands"), N_("Positional arguments"), N_("Error: {message}"),
    N_("Try '{command} {option}' for help."), N_("Show the version and exit."),
    N_("Missing argument"), N_("Missing option"), N_("Missing parameter"), N_("Missing {param_type}"),
    N_("Missing parameter: {param_name}"), N_("Missing command."), N_("Invalid value: {message}"),
    N_("Invalid value for {param_hint}: {message}"), N_("No such option {name!r}."), N_("No such command {name!r}."),
    N_("Option {name!r} does not take a value."), N_("Aborted!"), N_("env var: {var}"), N_("default: {default}"),
    N_("required"), N_("{value!r} is not a valid {number_type}."), N_("{value} is not in the range {range}."),
    N_("{name} {filename!r} does not exist."), N_("{name} {filename!r} is a file."),
    N_("{name} {filename!r} is a directory."), N_("Could not open file {filename!r}: {message}"),
    N_("file"), N_("directory"), N_("path"), N_("%(prog)s, version %(version)s"),
)
CLICK_PLURALS = (  # click's ngettext
    Nn_("{value!r} is not {choice}.", "{value!r} is not one of {choices}."),
    Nn_("{value!r} does not match the format {format}.", "{value!r} does not match the formats {formats}."),
    Nn_("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments."),
    Nn_("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})"),
    Nn_("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)"),
)
