"""What the core and the store say, written out in English as the API and the CLI write it.

The core speaks in values (:class:`~nj_ledger.messages.Message`); a test that checks the sentence a scorer reads
compares ``said(x)`` with it, for a refusal (``LedgerError``, ``StoreError``), an audit's ``Finding``, a text's
``TextProblem``, or a ``Message`` itself.
"""

from __future__ import annotations

from typing import Any

from api.sentences import english
from nj_ledger.messages import Message


def said(value: Any) -> str:
    """The English sentence of a refusal, a finding, a text's problem or a message: exactly what ``.message`` was."""
    message = value if isinstance(value, Message) else value.said
    assert isinstance(message, Message), f"{value!r} says no Message"
    return english(message)
