"""The audit of a game's log: every chip that moved, and every reason to doubt the record.

Pure: it reads stored records (``{seq, deal, type, data, v, recorded_at, hash}``)
and returns the report the API serves (SPEC §5, §7)::

    {ok, transfers, totals, conservation, chain, head, checkpoints, recomputation, corrections,
     settled_by_count, findings}

and, when members' receipts are checked (:func:`check_receipts`, :func:`with_receipts`), ``receipts``.

The checks are here: the log against the game's summary, the hash chain, the
conservation of chips, the re-computation by today's engine, the signed
checkpoints and the members' receipts. What they find, and what each event
adds to the report, are :class:`~nj_ledger.findings.Finding` values
(:mod:`nj_ledger.findings`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .chain import verify_chain
from .decide import decide
from .errors import LedgerError
from .events import Event, event_from_dict
from .findings import Finding, count_event, difference, finding, withdrawal_of
from .receipts import verify
from .reducer import fold
from .state import GameState

CheckpointCheck = Callable[[Mapping[str, Any]], bool]


def action_of(event: Event) -> dict[str, Any]:
    """The table action a stored table-action event records."""
    return {"type": event.type, **event.data}



def check_head(
    records: Sequence[Mapping[str, Any]], version: int | None, head_hash: str | None,
) -> tuple[list[Mapping[str, Any]], dict[str, Any], list[Finding]]:
    """The log against the game's summary (its ``version`` and head hash): the records up to the version, the
    ``head`` report, and its findings. Rows past the version were never acknowledged; rows missing before it
    were removed."""
    last = records[-1]["seq"] if records else 0
    report: dict[str, Any] = {"ok": True, "version": version, "last_seq": last, "first_bad_seq": None}
    if version is None:
        return list(records), report, []
    findings: list[Finding] = []
    kept = [r for r in records if isinstance(r.get("seq"), int) and r["seq"] <= version]
    if last > version:
        report.update(ok=False, first_bad_seq=version + 1)
        findings.append(finding("error", version + 1, "log-extra", "Events {first} to {last} are stored past the "
                                 "game's version {version}: the ledger never acknowledged them.", first=version + 1,
                                 last=last, version=version))
    stored_last = kept[-1]["seq"] if kept else 0
    if stored_last < version:
        report.update(ok=False, first_bad_seq=stored_last + 1)
        findings.append(finding("error", stored_last + 1, "log-cut", "The game is at version {version} but its "
                                 "log stops at event {last}: events were removed.", version=version,
                                 last=stored_last))
    elif head_hash is not None and kept and kept[-1].get("hash") != head_hash:
        report.update(ok=False, first_bad_seq=version)
        findings.append(finding("error", version, "head-differs", "The game's head hash is not the hash of "
                                 "event {version}: the log or the game's summary was changed.", version=version))
    return kept, report, findings


def audit(
    records: Sequence[Mapping[str, Any]],
    checkpoints: Sequence[Mapping[str, Any]] = (),
    checkpoint_valid: CheckpointCheck | None = None,
    *,
    version: int | None = None,
    head_hash: str | None = None,
) -> dict[str, Any]:
    """The audit of a game's stored records; ``version`` and ``head_hash`` are what the game's summary says
    of its log (the ledger acknowledges events up to ``version``)."""
    records, head, findings = check_head(records, version, head_hash)
    chain = verify_chain(records)
    if not chain["ok"]:
        findings.append(finding(
            "error", chain["first_bad_seq"], "chain-broken",
            "The hash chain breaks at event {seq}: an event was edited, deleted or reordered.",
            seq=chain["first_bad_seq"],
        ))

    events: list[Event] = []
    for record in records:
        try:
            if not isinstance(record.get("data"), Mapping):
                raise TypeError("its data is not an object")
            events.append(event_from_dict(record))
        except (KeyError, TypeError, ValueError) as broken:
            findings.append(finding("error", record.get("seq"), "unreadable", "Event cannot be read: {error}.",
                                     error=str(broken)))
            break

    transfers: list[dict[str, Any]] = []
    totals: dict[str, dict[str, int]] = {}
    conservation: dict[str, Any] = {"ok": True, "checked": 0, "total": None, "first_bad_seq": None}
    corrections: list[dict[str, Any]] = []
    state: GameState | None = None
    replayed = True
    by_count: dict[int, bool] = {}  # each deal's settlement that stands: whether a hand was told by count
    for seq, event in enumerate(events, start=1):
        try:
            withdrawal = withdrawal_of(state) if event.type == "undo" else None  # what it withdraws, seen before
            state = fold(state, event)
            count_event(event, seq, state, transfers, totals, corrections, findings, withdrawal)
            if event.type == "deal_ended":
                by_count[event.data["number"]] = bool(state.deal is not None and state.deal.counted)
            elif withdrawal is not None and withdrawal["settlement"] is not None:
                by_count.pop(withdrawal["settlement"], None)  # an undo withdrew that settlement
        except Exception as broken:  # noqa: BLE001 - a stored event the engine cannot fold or read: report, never crash
            findings.append(finding("error", seq, "unreplayable", "Event {seq} ({type}) cannot be replayed: {error}.",
                                     seq=seq, type=event.type, error=repr(broken)))
            replayed = False
            break
        total = sum(state.balances) + sum(state.boxes)
        conservation["checked"] += 1
        conservation["total"] = state.total_chips
        if total != state.total_chips and conservation["ok"]:
            conservation.update(ok=False, first_bad_seq=seq)
            findings.append(finding(
                "error", seq, "not-conserved", "After event {seq} the chips add up to {total}, not {expected}.",
                seq=seq, total=total, expected=state.total_chips,
            ))
    if state is not None and replayed:
        for seat, chips in enumerate(state.balances):
            account = totals.setdefault(f"seat:{seat}", {"in": 0, "out": 0, "net": 0})
            account["balance"] = chips
        for card, chips in state.board().items():
            totals.setdefault(f"box:{card}", {"in": 0, "out": 0, "net": 0})["balance"] = chips

    recomputation: dict[str, Any] = recompute(events) if replayed else {"ok": False, "differences": [], "checked": 0}
    findings.extend(recomputation["differences"][:20])

    checkpoint_report: dict[str, Any] = {"ok": True, "count": len(checkpoints), "first_bad_seq": None}
    if checkpoint_valid is not None:
        for checkpoint in checkpoints:
            if not checkpoint_valid(checkpoint):
                checkpoint_report.update(ok=False, first_bad_seq=checkpoint["seq"])
                findings.append(finding(
                    "error", checkpoint["seq"], "checkpoint-mismatch",
                    "The signed checkpoint at event {seq} does not match the log: the log was rewritten after it "
                    "was signed.", seq=checkpoint["seq"],
                ))
                break

    settled_by_count = [deal for deal, counted in by_count.items() if counted]  # settlements an undo withdrew: not
    ok = (chain["ok"] and conservation["ok"] and recomputation["ok"] and checkpoint_report["ok"] and replayed
          and head["ok"])
    return {
        "ok": ok,
        "events": len(records),
        "transfers": transfers,
        "totals": totals,
        "conservation": conservation,
        "chain": {"ok": chain["ok"], "first_bad_seq": chain["first_bad_seq"], "checked": chain["checked"]},
        "head": head,
        "checkpoints": checkpoint_report,
        "recomputation": recomputation,
        "corrections": corrections,
        "settled_by_count": settled_by_count,  # the deals settled from a hand told by count (in log order)
        "findings": findings,
    }


def recompute(events: Sequence[Event]) -> dict[str, Any]:
    """Replay the table actions with today's engine and list where the recorded ledger events differ."""
    differences: list[Finding] = []
    if not events or events[0].type != "game_started":
        return {"ok": False, "checked": 0, "differences": [
            difference(1, "The log does not start with game_started.")]}
    state = fold(None, events[0])
    position = 1
    while position < len(events) and not differences:
        action_at = next((i for i in range(position, len(events)) if events[i].is_table_action), None)
        if action_at is None:
            differences.append(difference(position + 1, "Event {seq} ({type}) was recorded but no table action "
                                           "produces it.", seq=position + 1, type=events[position].type))
            break
        try:
            expected = decide(state, action_of(events[action_at]))
        except LedgerError as refusal:
            differences.append(difference(action_at + 1, "Today's engine refuses the table action at event {seq}: "
                                           "{refusal}", seq=action_at + 1, refusal=refusal.said))
            break
        recorded = events[position:position + len(expected)]
        for offset, want in enumerate(expected):
            got = recorded[offset] if offset < len(recorded) else None
            if got is None or (want.type, dict(want.data)) != (got.type, dict(got.data)):
                seq = position + offset + 1
                gives = f"{want.type} {dict(want.data)}"
                differences.append(
                    difference(seq, "Event {seq}: recorded {recorded}, today's engine gives {expected}.", seq=seq,
                                recorded=f"{got.type} {dict(got.data)}", expected=gives) if got is not None else
                    difference(seq, "Event {seq}: recorded nothing, today's engine gives {expected}.", seq=seq,
                                expected=gives))
                break
        for event in expected:
            state = fold(state, event)
        position += len(expected)
    return {"ok": not differences, "checked": position, "differences": differences}


def check_receipts(
    game: str,
    version: int,
    hash_at: Callable[[int], str | None],
    receipts: Iterable[Mapping[str, Any]],
    public_keys: Mapping[str, bytes],
) -> dict[str, Any]:
    """Check the receipts members hold against a game's log.

    ``version`` is the log's end as the ledger shows it, ``hash_at(seq)`` the
    stored hash of event ``seq`` (None when there is none). A receipt of another
    game is skipped. Each receipt is either validly signed and matching the log,
    or a finding: signed but past the log's end (the log was cut back), signed
    but naming another head at its version (the log was rewritten), or not
    validly signed. ``first_bad_seq`` is the first event the findings put in
    doubt: the first one cut away, or the version of the earliest receipt the
    log contradicts.
    """
    checked = skipped = 0
    findings: list[Finding] = []
    doubted: list[int] = []
    vouched: list[int] = []  # versions that matching receipts vouch for
    contradicted: list[Mapping[str, Any]] = []
    for receipt in receipts:
        if not isinstance(receipt, Mapping) or receipt.get("game") != game:
            skipped += 1
            continue
        checked += 1
        if not verify(receipt, public_keys):
            seq = receipt.get("version") if type(receipt.get("version")) is int else None
            findings.append(
                finding("error", seq, "receipt-bad-signature", "The receipt for version {version} is not validly "
                         "signed by a key of this ledger: it proves nothing.", version=seq) if seq is not None else
                finding("error", None, "receipt-bad-signature", "A receipt is not validly signed by a key of this "
                         "ledger: it proves nothing."))
            continue
        at = receipt["version"]
        if at > version:
            doubted.append(version + 1)
            findings.append(finding("error", at, "receipt-past-end",
                                     "A receipt signed at {at} acknowledges version {version}, but the log ends "
                                     "at version {end}: events {first} to {version} were removed.",
                                     at=receipt["at"], version=at, end=version, first=version + 1))
        elif hash_at(at) != receipt["head"]:
            contradicted.append(receipt)
        else:
            vouched.append(at)
    for receipt in contradicted:
        at = receipt["version"]
        intact = max((v for v in vouched if v < at), default=0)
        doubted.append(at)
        findings.append(
            finding("error", at, "receipt-head-differs", "A receipt signed at {at} gives another head hash for "
                     "version {version} than the log: events {first} to {version} were rewritten (another receipt "
                     "vouches for the events before).", at=receipt["at"], version=at, first=intact + 1) if intact
            else finding("error", at, "receipt-head-differs", "A receipt signed at {at} gives another head hash for "
                          "version {version} than the log: events up to {version} were rewritten.",
                          at=receipt["at"], version=at))
    findings.sort(key=lambda f: (f.seq is None, f.seq or 0))
    return {"ok": not findings, "checked": checked, "skipped": skipped,
            "first_bad_seq": min(doubted) if doubted else None, "findings": findings}


def with_receipts(report: Mapping[str, Any], receipts: Mapping[str, Any]) -> dict[str, Any]:
    """An audit ``report`` with the check of members' ``receipts`` (:func:`check_receipts`) added to it."""
    shown = {name: receipts[name] for name in ("ok", "checked", "skipped", "first_bad_seq")}
    return {**report, "ok": report["ok"] and receipts["ok"],
            "receipts": {**shown, "findings": receipts["findings"]},
            "findings": [*report["findings"], *receipts["findings"]]}
