"""Errors of the core: each carries a stable ``code`` and a sentence a scorer understands.

Callers branch on the type or the ``code``, never on the sentence. ``params``
holds the values the sentence was built from, so other layers can translate it.
"""

from __future__ import annotations

from typing import Any


class LedgerError(Exception):
    """Base of every refusal made by the core."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
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
