"""The audit of a game's log: every chip that moved, and every reason to doubt the record.

Pure: it reads stored records (``{seq, deal, type, data, v, recorded_at, hash}``)
and returns the report the API serves (SPEC §5, §7)::

    {ok, transfers, totals, conservation, chain, checkpoints, recomputation, corrections, findings}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .cards import parse_cards
from .chain import verify_chain
from .decide import decide
from .errors import LedgerError
from .events import Event, event_from_dict
from .reducer import fold
from .state import GameState

CheckpointCheck = Callable[[Mapping[str, Any]], bool]


def action_of(event: Event) -> dict[str, Any]:
    """The table action a stored table-action event records."""
    return {"type": event.type, **event.data}


def _finding(severity: str, seq: int | None, message: str, code: str) -> dict[str, Any]:
    return {"severity": severity, "seq": seq, "code": code, "message": message}


def audit(
    records: Sequence[Mapping[str, Any]],
    checkpoints: Sequence[Mapping[str, Any]] = (),
    checkpoint_valid: CheckpointCheck | None = None,
) -> dict[str, Any]:
    findings: list[dict[str, Any]] = []
    chain = verify_chain(records)
    if not chain["ok"]:
        findings.append(_finding(
            "error", chain["first_bad_seq"],
            f"The hash chain breaks at event {chain['first_bad_seq']}: an event was edited, deleted or reordered.",
            "chain-broken",
        ))

    events: list[Event] = []
    for record in records:
        try:
            events.append(event_from_dict(record))
        except (KeyError, TypeError, ValueError) as broken:
            findings.append(_finding("error", record.get("seq"), f"Event cannot be read: {broken}.", "unreadable"))
            break

    transfers: list[dict[str, Any]] = []
    totals: dict[str, dict[str, int]] = {}
    conservation: dict[str, Any] = {"ok": True, "checked": 0, "total": None, "first_bad_seq": None}
    corrections: list[dict[str, Any]] = []
    state: GameState | None = None
    replayed = True
    for seq, event in enumerate(events, start=1):
        try:
            state = fold(state, event)
        except Exception as broken:  # a stored event the engine cannot fold: report, never crash
            findings.append(_finding(
                "error", seq, f"Event {seq} ({event.type}) cannot be replayed: {broken!r}.", "unreplayable"
            ))
            replayed = False
            break
        if event.type == "transfer":
            d = event.data
            transfers.append({"seq": seq, "deal": event.deal, "from": d["from"], "to": d["to"],
                              "amount": d["amount"], "reason": d["reason"]})
            for account, sign in ((d["from"], -1), (d["to"], 1)):
                row = totals.setdefault(account, {"in": 0, "out": 0, "net": 0})
                row["in" if sign > 0 else "out"] += d["amount"]
                row["net"] += sign * d["amount"]
        elif event.type == "undo":
            corrections.append({"seq": seq, "deal": event.deal, "type": "undo", "reason": event.data.get("reason", "")})
            findings.append(_finding(
                "info", seq, f"Deal {event.deal}: an action was withdrawn ({event.data.get('reason') or 'no reason given'}).",
                "undo",
            ))
        elif event.type == "adjust":
            d = event.data
            corrections.append({"seq": seq, "deal": event.deal, "type": "adjust", "from": d["from"], "to": d["to"],
                                "amount": d["amount"], "reason": d.get("reason", "")})
            findings.append(_finding(
                "warning", seq,
                f"{d['amount']} chips moved by agreement from {d['from']} to {d['to']} "
                f"({d.get('reason') or 'no reason given'}).",
                "adjustment",
            ))
        elif event.type == "deal_ended":
            for shortfall in event.data.get("shortfalls", []):
                findings.append(_finding(
                    "warning", seq,
                    f"Deal {event.data['number']}: seat {shortfall['seat']} owed {shortfall['owed']} chips "
                    f"({shortfall['reason']}) and could pay only {shortfall['paid']}.",
                    "shortfall",
                ))
        elif event.type == "play":
            rules = state.rules
            forgotten = [c for c in parse_cards(event.data["cards"])
                         if rules.announceable(c) and c not in event.data.get("announced", [])]
            for uncalled in forgotten:
                lost = [
                    *(["its box stays on the board"] if uncalled in rules.board else []),
                    *(["no hoc chips were paid"] if rules.is_hoc(uncalled) else []),
                ]
                findings.append(_finding(
                    "info", seq, f"{uncalled} was played without being announced: {' and '.join(lost)}.",
                    "not-announced",
                ))
        total = sum(state.balances) + sum(state.boxes)
        conservation["checked"] += 1
        conservation["total"] = state.total_chips
        if total != state.total_chips and conservation["ok"]:
            conservation.update(ok=False, first_bad_seq=seq)
            findings.append(_finding(
                "error", seq, f"After event {seq} the chips add up to {total}, not {state.total_chips}.",
                "not-conserved",
            ))
    if state is not None and replayed:
        for seat, chips in enumerate(state.balances):
            account = totals.setdefault(f"seat:{seat}", {"in": 0, "out": 0, "net": 0})
            account["balance"] = chips
        for card, chips in state.board().items():
            totals.setdefault(f"box:{card}", {"in": 0, "out": 0, "net": 0})["balance"] = chips

    recomputation = recompute(events) if replayed else {"ok": False, "differences": [], "checked": 0}
    for difference in recomputation["differences"][:20]:
        findings.append(_finding("error", difference["seq"], difference["message"], "recomputation-differs"))

    checkpoint_report: dict[str, Any] = {"ok": True, "count": len(checkpoints), "first_bad_seq": None}
    if checkpoint_valid is not None:
        for checkpoint in checkpoints:
            if not checkpoint_valid(checkpoint):
                checkpoint_report.update(ok=False, first_bad_seq=checkpoint["seq"])
                findings.append(_finding(
                    "error", checkpoint["seq"],
                    f"The signed checkpoint at event {checkpoint['seq']} does not match the log: "
                    "the log was rewritten after it was signed.",
                    "checkpoint-mismatch",
                ))
                break

    ok = chain["ok"] and conservation["ok"] and recomputation["ok"] and checkpoint_report["ok"] and replayed
    return {
        "ok": ok,
        "events": len(records),
        "transfers": transfers,
        "totals": totals,
        "conservation": conservation,
        "chain": {"ok": chain["ok"], "first_bad_seq": chain["first_bad_seq"], "checked": chain["checked"]},
        "checkpoints": checkpoint_report,
        "recomputation": recomputation,
        "corrections": corrections,
        "findings": findings,
    }


def recompute(events: Sequence[Event]) -> dict[str, Any]:
    """Replay the table actions with today's engine and list where the recorded ledger events differ."""
    differences: list[dict[str, Any]] = []
    if not events or events[0].type != "game_started":
        return {"ok": False, "checked": 0, "differences": [
            {"seq": 1, "message": "The log does not start with game_started."}]}
    state = fold(None, events[0])
    position = 1
    while position < len(events) and not differences:
        action_at = next((i for i in range(position, len(events)) if events[i].is_table_action), None)
        if action_at is None:
            differences.append({
                "seq": position + 1,
                "message": f"Event {position + 1} ({events[position].type}) was recorded "
                           "but no table action produces it.",
            })
            break
        try:
            expected = decide(state, action_of(events[action_at]))
        except LedgerError as refusal:
            differences.append({
                "seq": action_at + 1,
                "message": f"Today's engine refuses the table action at event {action_at + 1}: {refusal.message}",
            })
            break
        recorded = events[position:position + len(expected)]
        for offset, want in enumerate(expected):
            got = recorded[offset] if offset < len(recorded) else None
            if got is None or (want.type, dict(want.data)) != (got.type, dict(got.data)):
                seq = position + offset + 1
                shown = f"{got.type} {dict(got.data)}" if got is not None else "nothing"
                differences.append({
                    "seq": seq,
                    "message": f"Event {seq}: recorded {shown}, today's engine gives {want.type} {dict(want.data)}.",
                })
                break
        for event in expected:
            state = fold(state, event)
        position += len(expected)
    return {"ok": not differences, "checked": position, "differences": differences}
