"""The kinds of a director's decision (``POST …/evenings/{evening}/decisions``), each with the core's function
that decides it from the request's payload (:mod:`nj_ledger.evenings`), in one table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from nj_ledger import evenings as core
from nj_ledger.evenings import EveningState

# A decision of one kind: the evening as it stands and the payload, to the log entry's type and data.
Decide = Callable[[EveningState, Mapping[str, Any]], tuple[str, dict[str, Any]]]


def _arrival(state: EveningState, payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    return core.decide_presence(state, payload["players"], [], payload.get("reason", ""))


def _departure(state: EveningState, payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    return core.decide_presence(state, [], payload["players"], payload.get("reason", ""))


def _mend(kind: str) -> Decide:
    """A mend of the core's ``kind`` (adjusted, voided, withdrawn, awarded), with its reason."""
    def decide(state: EveningState, payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        return core.decide_mend(state, kind, payload)
    return decide


def _freeze(state: EveningState, payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    return core.decide_freeze(state, payload["through_round"])


def _reveal(state: EveningState, _payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    return core.decide_freeze(state, None)


MEND_OF = {"adjustment": core.ADJUSTED, "void": core.VOIDED, "withdrawal": core.WITHDRAWN, "award": core.AWARDED}
DECIDE: dict[str, Decide] = {
    "arrival": _arrival, "departure": _departure,
    **{kind: _mend(mend) for kind, mend in MEND_OF.items()},
    "freeze": _freeze, "reveal": _reveal,
}
DECISION_TYPES = tuple(DECIDE)  # in the order the OpenAPI document lists them
