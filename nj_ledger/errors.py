"""Errors of the core: each carries a :class:`~nj_ledger.messages.Message` — a stable ``code``, an English
``template`` and raw ``params``.

Callers branch on the type or the ``code``, never on a sentence: the core writes
none out. The API fills the template in, in the language of the request::

    >>> from nj_ledger.messages import Player
    >>> refusal = RuleViolation("card-not-in-hand", "{player} was not dealt {card}.",
    ...                         player=Player(0, "Ana"), card="QS")
    >>> refusal.code, refusal.params["player"]
    ('card-not-in-hand', Player(seat=0, name='Ana'))
"""

from __future__ import annotations

from typing import Any

from .messages import Message


class LedgerError(Exception):
    """Base of every refusal made by the core."""

    def __init__(self, code: str, template: str, **params: Any) -> None:
        super().__init__(code, template)
        self.code = code
        self.template = template
        self.params = params  # a batch's refusal adds the failing action's ``index``

    @property
    def said(self) -> Message:
        """The refusal as a value."""
        return Message(self.code, self.template, dict(self.params))

    def __str__(self) -> str:  # for logs and tracebacks; what a scorer reads is written by the API
        return f"{self.code}: {self.template} {self.params!r}" if self.params else f"{self.code}: {self.template}"


class InvalidInput(LedgerError):
    """Input that is not well formed: an unknown card, a bad rule option, a malformed action."""


class RuleViolation(LedgerError):
    """A well-formed table action that the rules (or what is known of the deal) forbid."""
