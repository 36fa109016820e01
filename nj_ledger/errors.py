"""Errors of the core: each carries a stable ``code`` and a sentence a scorer understands.

Callers branch on the type or the ``code``, never on the sentence. The sentence
is written as a ``template`` with ``{placeholders}`` filled from ``params``, so
other layers can translate the template and fill it in again::

    >>> refusal = RuleViolation("card-not-in-hand", "{player} was not dealt {card}.", player="Ana (seat 0)", card="QS")
    >>> refusal.message
    'Ana (seat 0) was not dealt QS.'
    >>> refusal.template, refusal.params["card"]
    ('{player} was not dealt {card}.', 'QS')
"""

from __future__ import annotations

from typing import Any


class LedgerError(Exception):
    """Base of every refusal made by the core."""

    def __init__(self, code: str, template: str, **params: Any) -> None:
        try:
            message = template.format_map(params) if params else template
        except (KeyError, IndexError, ValueError):  # a sentence already written out, braces and all
            message = template
        super().__init__(message)
        self.code = code
        self.template = template
        self.message = message
        self.params = params

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "detail": self.message}


class InvalidInput(LedgerError):
    """Input that is not well formed: an unknown card, a bad rule option, a malformed action."""


class RuleViolation(LedgerError):
    """A well-formed table action that the rules (or what is known of the deal) forbid."""
