"""The audit of a game's log: every chip that moved, and every reason to doubt the record.

Pure: it reads stored records (``{seq, deal, type, data, v, recorded_at, hash}``)
and returns the report the API serves (SPEC §5, §7)::

    {ok, transfers, totals, conservation, chain, head, checkpoints, recomputation, corrections,
     settled_by_count, findings}

and, when members' receipts are checked (:func:`check_receipts`, :func:`with_receipts`), ``receipts``.

Each finding is a :class:`Finding`: its ``severity``, the ``seq`` it is about,
and what it says as a :class:`~nj_ledger.messages.Message` (a code, a template,
raw parameters), written out by the API in the language of the request. The
differences of the re-computation are findings too::

    >>> _finding("error", 4, "not-conserved", "After event {seq} the chips add up to {total}, not {expected}.",
    ...          seq=4, total=99, expected=100).said.params
    {'seq': 4, 'total': 99, 'expected': 100}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .cards import parse_cards
from .chain import verify_chain
from .decide import decide
from .errors import LedgerError
from .events import Event, event_from_dict
from .messages import Listed, Message, Player, phrase
from .receipts import verify
from .reducer import fold
from .state import ENDED, GameState

CheckpointCheck = Callable[[Mapping[str, Any]], bool]


def action_of(event: Event) -> dict[str, Any]:
    """The table action a stored table-action event records."""
    return {"type": event.type, **event.data}


Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Finding:
    """A reason to doubt the record (``error``), or to look at it (``warning``, ``info``)."""

    severity: Severity
    seq: int | None
    said: Message

    @property
    def code(self) -> str:
        return self.said.code


def _finding(severity: Severity, seq: int | None, code: str, template: str, /, **params: Any) -> Finding:
    return Finding(severity, seq, Message(code, template, params))


def _difference(seq: int, template: str, /, **params: Any) -> Finding:
    """Where the re-computation and the record part: an error at ``seq``."""
    return _finding("error", seq, "recomputation-differs", template, **params)


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
        findings.append(_finding("error", version + 1, "log-extra", "Events {first} to {last} are stored past the "
                                 "game's version {version}: the ledger never acknowledged them.", first=version + 1,
                                 last=last, version=version))
    stored_last = kept[-1]["seq"] if kept else 0
    if stored_last < version:
        report.update(ok=False, first_bad_seq=stored_last + 1)
        findings.append(_finding("error", stored_last + 1, "log-cut", "The game is at version {version} but its "
                                 "log stops at event {last}: events were removed.", version=version,
                                 last=stored_last))
    elif head_hash is not None and kept and kept[-1].get("hash") != head_hash:
        report.update(ok=False, first_bad_seq=version)
        findings.append(_finding("error", version, "head-differs", "The game's head hash is not the hash of "
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
        findings.append(_finding(
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
            findings.append(_finding("error", record.get("seq"), "unreadable", "Event cannot be read: {error}.",
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
            withdrawal = _withdrawal(state) if event.type == "undo" else None  # what it withdraws, seen before
            state = fold(state, event)
            _count(event, seq, state, transfers, totals, corrections, findings, withdrawal)
            if event.type == "deal_ended":
                by_count[event.data["number"]] = bool(state.deal is not None and state.deal.counted)
            elif withdrawal is not None and withdrawal["settlement"] is not None:
                by_count.pop(withdrawal["settlement"], None)  # an undo withdrew that settlement
        except Exception as broken:  # noqa: BLE001 - a stored event the engine cannot fold or read: report, never crash
            findings.append(_finding("error", seq, "unreplayable", "Event {seq} ({type}) cannot be replayed: {error}.",
                                     seq=seq, type=event.type, error=repr(broken)))
            replayed = False
            break
        total = sum(state.balances) + sum(state.boxes)
        conservation["checked"] += 1
        conservation["total"] = state.total_chips
        if total != state.total_chips and conservation["ok"]:
            conservation.update(ok=False, first_bad_seq=seq)
            findings.append(_finding(
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
                findings.append(_finding(
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


def _withdrawal(state: GameState | None) -> dict[str, Any] | None:
    """What an undo folded onto ``state`` withdraws: ``{withdrew, settlement, game_end}`` (the table action, the
    number of the deal whose settlement goes with it or None, whether the game's end goes too)."""
    deal = None if state is None else state.deal
    if state is None or deal is None or deal.undo_to is None or deal.undo_action is None:
        return None
    kind, data = deal.undo_action
    return {"withdrew": {"type": kind, **data}, "settlement": deal.number if deal.ended else None,
            "game_end": state.status == ENDED}


def _seat(state: GameState, seat: Any) -> Any:
    """A seat as the audit names it: its player (a seat the game does not have, as it was recorded)."""
    return Player(seat, state.players[seat]) if isinstance(seat, int) and 0 <= seat < state.n else seat


def _account(state: GameState, text: str) -> Any:
    """An account (``seat:1``, ``box:7D``) as the audit names it: the player, or the honour's box."""
    kind, _, key = text.partition(":")
    if kind == "seat" and key.isdigit():
        return _seat(state, int(key))
    if kind == "box":
        return phrase("the {card} box", card=key)
    return text


def _action_said(state: GameState, action: Mapping[str, Any]) -> Message:
    """A withdrawn play, pass or reveal in words: "Ben's play of 9S, 10S"."""
    player = _seat(state, action.get("seat"))
    if action["type"] == "play":
        return phrase("{player}'s play of {cards}", player=player, cards=Listed(tuple(action.get("cards", ()))))
    if action["type"] == "pass":
        return phrase("{player}'s pass", player=player)
    if action.get("cards"):
        return phrase("{player}'s reveal of {cards}", player=player, cards=Listed(tuple(action["cards"])))
    if "count" in action and "points" in action:  # a hand settled by count
        return phrase("{player}'s count of {count} cards making {points} points", player=player,
                      count=action["count"], points=action["points"])
    return phrase("{player}'s reveal", player=player)


def _undo_finding(seq: int, state: GameState, reason: Any, withdrawal: Mapping[str, Any]) -> Finding:
    why = phrase("reason: {reason}", reason=reason) if reason else phrase("no reason given")
    withdrew = withdrawal["withdrew"]
    action = phrase("an action") if withdrew is None else _action_said(state, withdrew)
    deal = withdrawal["settlement"]
    if deal is None:
        return _finding("info", seq, "undo", "Undo at {seq}: withdrew {action} — {why}.", seq=seq,
                        action=action, why=why)
    return _finding(
        "info", seq, "undo",
        "Undo at {seq}: withdrew {action}, the settlement of deal {deal} and the end of the game — {why}."
        if withdrawal["game_end"] else
        "Undo at {seq}: withdrew {action} and the settlement of deal {deal} — {why}.",
        seq=seq, action=action, deal=deal, why=why,
    )


def _count(event: Event, seq: int, state: GameState, transfers: list[dict[str, Any]],
           totals: dict[str, dict[str, int]], corrections: list[dict[str, Any]],
           findings: list[Finding], withdrawal: Mapping[str, Any] | None = None) -> None:
    """What one folded event adds to the audit: its transfer, its correction, its findings (``withdrawal``:
    what an undo withdrew, :func:`_withdrawal` of the state before it)."""
    if event.type == "transfer":
        d = event.data
        transfers.append({"seq": seq, "deal": event.deal, "from": d["from"], "to": d["to"],
                          "amount": d["amount"], "reason": d["reason"]})
        for account, sign in ((d["from"], -1), (d["to"], 1)):
            row = totals.setdefault(account, {"in": 0, "out": 0, "net": 0})
            row["in" if sign > 0 else "out"] += d["amount"]
            row["net"] += sign * d["amount"]
    elif event.type == "undo":
        withdrawal = withdrawal or {"withdrew": None, "settlement": None, "game_end": False}
        corrections.append({"seq": seq, "deal": event.deal, "type": "undo", "reason": event.data.get("reason", ""),
                            **withdrawal})
        findings.append(_undo_finding(seq, state, event.data.get("reason"), withdrawal))
    elif event.type == "adjust":
        d = event.data
        corrections.append({"seq": seq, "deal": event.deal, "type": "adjust", "from": d["from"], "to": d["to"],
                            "amount": d["amount"], "reason": d.get("reason", "")})
        moved = {"amount": d["amount"], "source": _account(state, d["from"]), "target": _account(state, d["to"])}
        findings.append(
            _finding("warning", seq, "adjustment", "{amount} chips moved by agreement from {source} to {target} "
                     "({reason}).", **moved, reason=d["reason"]) if d.get("reason") else
            _finding("warning", seq, "adjustment", "{amount} chips moved by agreement from {source} to {target} "
                     "(no reason given).", **moved)
        )
    elif event.type == "deal_ended":
        counted = state.deal.counted if state.deal is not None else ()
        if counted:  # the cards of these hands were never shown: the table told their count and points
            findings.append(_finding(
                "info", seq, "settled-by-count",
                "Deal {deal} was settled by count for {players}: the cards left were told, not shown.",
                deal=event.data["number"], players=Listed(tuple(Player(c.seat, state.players[c.seat])
                                                                for c in counted)),
            ))
        for shortfall in event.data.get("shortfalls", []):
            findings.append(_finding(
                "warning", seq, "shortfall",
                "Deal {deal}: {player} owed {owed} chips ({transfer_reason}) and could pay only {paid}.",
                deal=event.data["number"], player=_seat(state, shortfall["seat"]), owed=shortfall["owed"],
                transfer_reason=shortfall["reason"], paid=shortfall["paid"],
            ))
    elif event.type == "play":
        rules = state.rules
        forgotten = [c for c in parse_cards(event.data["cards"])
                     if rules.announceable(c) and c not in event.data.get("announced", [])]
        for uncalled in forgotten:  # what was lost depends on what the card is: an honour, a hoc, or both
            boxed, hoc = uncalled in rules.board, rules.is_hoc(uncalled)
            findings.append(_finding(
                "info", seq, "not-announced",
                "{card} was played without being announced: its box stays on the board and no hoc chips were "
                "paid." if boxed and hoc else
                "{card} was played without being announced: its box stays on the board." if boxed else
                "{card} was played without being announced: no hoc chips were paid.",
                card=uncalled,
            ))


def recompute(events: Sequence[Event]) -> dict[str, Any]:
    """Replay the table actions with today's engine and list where the recorded ledger events differ."""
    differences: list[Finding] = []
    if not events or events[0].type != "game_started":
        return {"ok": False, "checked": 0, "differences": [
            _difference(1, "The log does not start with game_started.")]}
    state = fold(None, events[0])
    position = 1
    while position < len(events) and not differences:
        action_at = next((i for i in range(position, len(events)) if events[i].is_table_action), None)
        if action_at is None:
            differences.append(_difference(position + 1, "Event {seq} ({type}) was recorded but no table action "
                                           "produces it.", seq=position + 1, type=events[position].type))
            break
        try:
            expected = decide(state, action_of(events[action_at]))
        except LedgerError as refusal:
            differences.append(_difference(action_at + 1, "Today's engine refuses the table action at event {seq}: "
                                           "{refusal}", seq=action_at + 1, refusal=refusal.said))
            break
        recorded = events[position:position + len(expected)]
        for offset, want in enumerate(expected):
            got = recorded[offset] if offset < len(recorded) else None
            if got is None or (want.type, dict(want.data)) != (got.type, dict(got.data)):
                seq = position + offset + 1
                gives = f"{want.type} {dict(want.data)}"
                differences.append(
                    _difference(seq, "Event {seq}: recorded {recorded}, today's engine gives {expected}.", seq=seq,
                                recorded=f"{got.type} {dict(got.data)}", expected=gives) if got is not None else
                    _difference(seq, "Event {seq}: recorded nothing, today's engine gives {expected}.", seq=seq,
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
                _finding("error", seq, "receipt-bad-signature", "The receipt for version {version} is not validly "
                         "signed by a key of this ledger: it proves nothing.", version=seq) if seq is not None else
                _finding("error", None, "receipt-bad-signature", "A receipt is not validly signed by a key of this "
                         "ledger: it proves nothing."))
            continue
        at = receipt["version"]
        if at > version:
            doubted.append(version + 1)
            findings.append(_finding("error", at, "receipt-past-end",
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
            _finding("error", at, "receipt-head-differs", "A receipt signed at {at} gives another head hash for "
                     "version {version} than the log: events {first} to {version} were rewritten (another receipt "
                     "vouches for the events before).", at=receipt["at"], version=at, first=intact + 1) if intact
            else _finding("error", at, "receipt-head-differs", "A receipt signed at {at} gives another head hash for "
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
