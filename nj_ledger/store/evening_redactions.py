"""A member's erasure in the club's evenings (:mod:`.erasures`): each decision that names them, or whose deciding
token's label does, redacted as a game's event is, and refused where an evening's facts would change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..chain import GENESIS
from ..evenings import EveningState, LogEntry, entry_hash, fold_evening
from ..names import Forgetting
from .errors import ErasureRefused
from .models import Evening
from .redactions import content_digest
from .rows import JSONText, json_text


@dataclass(frozen=True)
class EveningLog:
    """An evening of the club as the erasure reads it: its row, its decisions and their fold."""

    row: Evening
    entries: Sequence[LogEntry]
    state: EveningState


def redact_evenings(name: str, forget: Forgetting,
                     evenings: Sequence[EveningLog]) -> list[tuple[dict[str, Any], dict[str, JSONText]]]:
    """The redactions of every decision of the club's evenings whose data, or the label of the token that made it
    (``by``), names the member (the evenings' names written again on the way), each with the decision's new data
    and ``by``; refused (:class:`ErasureRefused`) where an evening's facts would change."""
    found = []
    for evening in evenings:
        previous = GENESIS
        after = []
        for item in evening.entries:
            hashed = item.hashed()
            by = dict(hashed["by"])
            if isinstance(by.get("label"), str):  # the label of the token that made it: nothing else of it
                by["label"] = forget.text(by["label"])
            new = {"data": forget(hashed["data"]), "by": by}
            after.append({**item.shown(), **new})
            if new != {"data": hashed["data"], "by": hashed["by"]}:
                texts = {column: JSONText(json_text(value)) for column, value in new.items()}
                fields = {"log": "evening", "log_id": evening.row.id, "seq": item.seq, "previous": previous,
                          "hash": item.hash, "redacted": entry_hash(previous, {**hashed, **new}),
                          "content": content_digest(texts["data"], texts["by"])}
                found.append((fields, texts))
            previous = str(item.hash)
        _same_evening(evening.row.id, evening.state, after, name, forget)
        evening.row.name = forget(evening.row.name)
    return found


def _same_evening(evening_id: str, before: EveningState, after: list[Any], name: str, forget: Forgetting) -> None:
    """Refuse a redaction that would change an evening's facts, not only its names (a member called like its rules'
    profile): folded again, the evening holds the same rules, rounds, tables, games and figures, its lists of
    players only having the member's name written out."""
    def facts(state: EveningState) -> Any:
        return (state.played_on, state.rules, state.starting_chips, state.ranking, state.confirmation, state.seed,
                state.rounds, state.ends_at, state.table_rule, [len(tables) for tables in state.schedule],
                [[(table.table, table.game, len(table.players)) for table in tables] for tables in state.started],
                sorted(state.voided), [a.get("amount") for a in state.adjustments],
                [a.get("amount") for a in state.awards], state.frozen_through, state.closed, state.version)

    try:
        redacted_state = fold_evening(after)
        same = (facts(before) == facts(redacted_state) and forget(before.players) == redacted_state.players
                and forget(before.present) == redacted_state.present)
    except Exception:  # noqa: BLE001 - a redacted log the fold cannot read: refused as one that would change
        same = False
    if not same:
        raise ErasureRefused(evening_id, name, evening=True)
