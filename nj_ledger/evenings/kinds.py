"""The kinds of a director's decision on an evening, as values: one frozen value per kind (:data:`DECISION_KINDS`),
which :func:`nj_ledger.evenings.decisions.parse_decision` makes from the JSON the director sends and
:func:`nj_ledger.evenings.decisions.decide` hands to the decider of its kind.

    >>> Award("Ana", 2, 60, "played on").round
    2
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields


@dataclass(frozen=True, slots=True)
class Arrival:
    """Players arriving (the rounds not yet started planned again)."""

    players: tuple[str, ...]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Departure:
    """Players leaving (the rounds not yet started planned again)."""

    players: tuple[str, ...]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A mend: ``amount`` added to a player's score (negative: a penalty)."""

    player: str
    amount: int
    reason: str  # a mend says why


@dataclass(frozen=True, slots=True)
class Void:
    """A mend: a game of the evening voided."""

    game: str
    reason: str  # a mend says why


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A mend: a player withdrawn from the evening."""

    player: str
    reason: str  # a mend says why


@dataclass(frozen=True, slots=True)
class Award:
    """A mend: a score awarded to a player for a round played."""

    player: str
    round: int
    score: int
    reason: str  # a mend says why


@dataclass(frozen=True, slots=True)
class Freeze:
    """The big screen's leaderboard frozen after a round."""

    through_round: int


@dataclass(frozen=True, slots=True)
class Reveal:
    """The frozen leaderboard revealed."""


DirectorDecision = Arrival | Departure | Adjustment | Void | Withdrawal | Award | Freeze | Reveal
KIND_OF: dict[str, type[DirectorDecision]] = {
    "arrival": Arrival, "departure": Departure, "adjustment": Adjustment, "void": Void, "withdrawal": Withdrawal,
    "award": Award, "freeze": Freeze, "reveal": Reveal,
}
DECISION_KINDS = tuple(KIND_OF)  # the kinds of a director's decision, in the order the API lists them
# The fields each kind needs (a mend's reason included), in their order: what a decision without one is refused for
NEEDED: dict[str, tuple[str, ...]] = {
    kind: tuple(field.name for field in fields(made) if field.default is MISSING and field.default_factory is MISSING)
    for kind, made in KIND_OF.items()}
