"""The audit of a game's log: every chip that moved, and every reason to doubt the record.

Pure: it reads stored records (``{seq, deal, type, data, v, recorded_at, hash}``) and returns the report the API
serves (SPEC §5, §7): ``{ok, transfers, totals, conservation, chain, head, checkpoints, recomputation, corrections,
settled_by_count, redactions, findings}``

and, when members' receipts are checked (:func:`check_receipts`, :func:`with_receipts`), ``receipts``.

The checks are here: the log against the game's summary, the hash chain, the
conservation of chips, the re-computation by today's engine, the signed
checkpoints and the members' receipts. What they find, and what each event
adds to the report, are :class:`~nj_ledger.findings.Finding` values
(:mod:`nj_ledger.findings`).

The log is read a record at a time (:func:`audit_log`), what grows with it going
out as it is read (:mod:`nj_ledger.report`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .bounds import MAX_DEAL_EVENTS
from .chain import Redactions, verify_chain
from .decide import decide
from .errors import LedgerError
from .events import Event, event_from_dict
from .findings import Finding, count_event, difference, finding, redactions_told, withdrawal_of
from .receipts import verify
from .reducer import fold
from .report import Items, Kept, Summary
from .state import GameState

CheckpointCheck = Callable[[Mapping[str, Any]], bool]
# Events the re-computation keeps while it looks for the table action that produces them: a table action's own
# event is at most seven events into what it produces (the passes a play infers), so a record that differs from
# today's engine always shows within them, however many ledger events a damaged log holds before the next action.
WINDOW = MAX_DEAL_EVENTS


def action_of(event: Event) -> dict[str, Any]:
    """The table action a stored table-action event records."""
    return {"type": event.type, **event.data}


def checkpoints_report(count: int, first_bad_seq: int | None) -> tuple[dict[str, Any], list[Finding]]:
    """The ``checkpoints`` report of ``count`` checkpoints, the first that does not match the log at
    ``first_bad_seq`` (None: all match), and its finding."""
    report = {"ok": first_bad_seq is None, "count": count, "first_bad_seq": first_bad_seq}
    if first_bad_seq is None:
        return report, []
    return report, [finding("error", first_bad_seq, "checkpoint-mismatch", "The record was altered after the "
                            "ledger signed it at event {seq}: it no longer matches what was signed.",
                            seq=first_bad_seq)]


def audit(records: Iterable[Mapping[str, Any]], checkpoints: Sequence[Mapping[str, Any]] = (),
          checkpoint_valid: CheckpointCheck | None = None, *, version: int | None = None,
          head_hash: str | None = None, redacted: Redactions | None = None) -> dict[str, Any]:
    """The audit of a game's stored records; ``version`` and ``head_hash`` are what the game's summary says
    of its log (the ledger acknowledges events up to ``version``). The ``checkpoints`` are held, in seq order,
    to ``checkpoint_valid`` until the first that fails (None: none is checked); ``redacted``: see audit_log."""

    def checked() -> tuple[dict[str, Any], list[Finding]]:
        valid = checkpoint_valid or (lambda _: True)
        return checkpoints_report(len(checkpoints), next((c["seq"] for c in checkpoints if not valid(c)), None))

    kept = Kept()
    return audit_log(records, kept, checked, version=version, head_hash=head_hash, redacted=redacted).whole(kept)


def audit_log(records: Iterable[Mapping[str, Any]], items: Items,
              checkpoints: Callable[[], tuple[dict[str, Any], list[Finding]]], *, version: int | None = None,
              head_hash: str | None = None, redacted: Redactions | None = None) -> Summary:
    """The audit of records read once, in log order: the items go to ``items`` as they are read, the rest is the
    :class:`Summary`. ``checkpoints()``, asked once the records are read, is the check of the signed
    checkpoints (:func:`checkpoints_report`). The records an erasure ``redacted`` are verified through what it
    recorded (:func:`nj_ledger.chain.redaction_holds`) and told (:func:`nj_ledger.findings.redactions_told`)."""
    auditor = _Auditor(items, version)
    passed = auditor.read(records)
    chain = verify_chain(passed, redacted)  # it stops at the first break...
    for _ in passed:  # ...and the auditor reads on to the end
        pass
    summary = auditor.summary(chain, head_hash, *checkpoints())
    summary.report["redactions"], told = redactions_told(redacted or {})
    return Summary(summary.report, [*told, *summary.first], summary.last)


class _Auditor:
    """The state of an audit between two records."""

    def __init__(self, items: Items, version: int | None) -> None:
        self.items, self.version = items, version
        self.last: Any = 0  # the last record's seq, acknowledged or not
        self.kept = 0  # records up to the version (all of them without one)
        self.head: Mapping[str, Any] | None = None  # the last of them
        self.unreadable: Finding | None = None  # the first record that cannot be read: the audit reads no further
        self.state: GameState | None = None
        self.replayed = True  # False from the first event the engine cannot fold
        self.seq = 0  # events read
        self.totals: dict[str, dict[str, int]] = {}
        self.conservation: dict[str, Any] = {"ok": True, "checked": 0, "total": None, "first_bad_seq": None}
        self.by_count: dict[int, bool] = {}  # each deal's settlement that stands: whether a hand was told by count
        self.recomputation = Recomputation()
        self.failed: Exception | None = None  # what stopped the re-computation, told if every event folds

    def read(self, records: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        """The records up to the version, each once the auditor has taken it in."""
        for record in records:
            seq = self.last = record.get("seq")
            if self.version is not None and not (isinstance(seq, int) and seq <= self.version):
                continue  # never acknowledged: the report of the head names them
            self.kept += 1
            self.head = record
            if self.unreadable is None:
                self.take(record)
            yield record

    def take(self, record: Mapping[str, Any]) -> None:
        try:
            if not isinstance(record.get("data"), Mapping):
                raise TypeError("its data is not an object")
            event = event_from_dict(record)
        except (KeyError, TypeError, ValueError) as broken:
            self.unreadable = finding("error", record.get("seq"), "unreadable", "Event cannot be read: {error}.",
                                      error=str(broken))
            return
        self.seq += 1
        if self.replayed:
            self.fold(event, self.seq)
        if self.replayed and self.failed is None:
            try:
                self.recomputation.feed(event)
            except Exception as failure:  # noqa: BLE001 - told at the end, unless a later event cannot be folded
                self.failed = failure

    def fold(self, event: Event, seq: int) -> None:
        transfers: list[dict[str, Any]] = []
        corrections: list[dict[str, Any]] = []
        findings: list[Finding] = []
        try:
            state = self.state
            withdrawal = withdrawal_of(state) if event.type == "undo" else None  # what it withdraws, seen before
            state = self.state = fold(state, event)
            count_event(event, seq, state, transfers, self.totals, corrections, findings, withdrawal)
            if event.type == "deal_ended":
                self.by_count[event.data["number"]] = bool(state.deal is not None and state.deal.counted)
            elif withdrawal is not None and withdrawal["settlement"] is not None:
                self.by_count.pop(withdrawal["settlement"], None)  # an undo withdrew that settlement
        except Exception as broken:  # noqa: BLE001 - a stored event the engine cannot fold or read: report, never crash
            findings.append(finding("error", seq, "unreplayable", "Event {seq} ({type}) cannot be replayed: {error}.",
                                    seq=seq, type=event.type, error=repr(broken)))
            self.replayed = False
            self.items.add(transfers, corrections, findings)
            return
        total = sum(state.balances) + sum(state.boxes)
        conservation = self.conservation
        conservation["checked"] += 1
        conservation["total"] = state.total_chips
        if total != state.total_chips and conservation["ok"]:
            conservation.update(ok=False, first_bad_seq=seq)
            findings.append(finding(
                "error", seq, "not-conserved", "After event {seq} the chips add up to {total}, not {expected}.",
                seq=seq, total=total, expected=state.total_chips,
            ))
        if transfers or corrections or findings:
            self.items.add(transfers, corrections, findings)

    def summary(self, chain: dict[str, Any], head_hash: str | None, checkpoints: dict[str, Any],
                checkpoint_findings: list[Finding]) -> Summary:
        head, first = self.check_head(head_hash)
        if not chain["ok"]:
            first.append(finding(
                "error", chain["first_bad_seq"], "chain-broken",
                "The record was altered after it was written: event {seq} was edited, deleted or moved.",
                seq=chain["first_bad_seq"],
            ))
        if self.unreadable is not None:
            first.append(self.unreadable)
        state, totals = self.state, self.totals
        if state is not None and self.replayed:
            for seat, chips in enumerate(state.balances):
                account = totals.setdefault(f"seat:{seat}", {"in": 0, "out": 0, "net": 0})
                account["balance"] = chips
            for card, chips in state.board().items():
                totals.setdefault(f"box:{card}", {"in": 0, "out": 0, "net": 0})["balance"] = chips
        if not self.replayed:
            recomputation: dict[str, Any] = {"ok": False, "differences": [], "checked": 0}
        elif self.failed is not None:
            raise self.failed
        else:
            recomputation = self.recomputation.finish()
        settled_by_count = [deal for deal, counted in self.by_count.items() if counted]  # not those an undo withdrew
        ok = (chain["ok"] and self.conservation["ok"] and recomputation["ok"] and checkpoints["ok"]
              and self.replayed and head["ok"])
        return Summary(
            {"ok": ok, "events": self.kept, "totals": totals, "conservation": self.conservation,
             "chain": {"ok": chain["ok"], "first_bad_seq": chain["first_bad_seq"], "checked": chain["checked"]},
             "head": head, "checkpoints": checkpoints, "recomputation": recomputation,
             "settled_by_count": settled_by_count},  # the deals settled from a hand told by count (in log order)
            first, [*recomputation["differences"][:20], *checkpoint_findings])

    def check_head(self, head_hash: str | None) -> tuple[dict[str, Any], list[Finding]]:
        """The log against the game's summary (its ``version`` and head hash): the ``head`` report, and its
        findings. Rows past the version were never acknowledged; rows missing before it were removed."""
        version, last = self.version, self.last
        report: dict[str, Any] = {"ok": True, "version": version, "last_seq": last, "first_bad_seq": None}
        if version is None:
            return report, []
        findings: list[Finding] = []
        if last > version:
            report.update(ok=False, first_bad_seq=version + 1)
            findings.append(finding("error", version + 1, "log-extra", "Events {first} to {last} were added to the "
                                    "record afterwards: the ledger never wrote them.",
                                    first=version + 1, last=last, version=version))
        stored_last = self.head["seq"] if self.head is not None else 0
        if stored_last < version:
            report.update(ok=False, first_bad_seq=stored_last + 1)
            findings.append(finding("error", stored_last + 1, "log-cut", "Events were removed from the end of the "
                                    "record: it stops at event {last}, but the ledger wrote up to event {version}.",
                                    version=version,
                                    last=stored_last))
        elif head_hash is not None and self.head is not None and self.head.get("hash") != head_hash:
            report.update(ok=False, first_bad_seq=version)
            findings.append(finding("error", version, "head-differs", "The record's last event ({version}) is "
                                    "not the one the ledger wrote: the record or the game's summary was altered.",
                                    version=version))
        return report, findings


def recompute(events: Iterable[Event]) -> dict[str, Any]:
    """Replay the table actions with today's engine and list where the recorded ledger events differ."""
    recomputation = Recomputation()
    for event in events:
        recomputation.feed(event)
    return recomputation.finish()


class Recomputation:
    """:func:`recompute` an event at a time: each table action is decided again by today's engine (whatever
    today's bounds of length: a stored log is a fact) once the events it should have produced are read, and
    compared with them; it stops at the first difference.

    It keeps the events from the start of the table action being checked up to the end of what it produces:
    a few events, and :data:`WINDOW` and what one action produces at most in a damaged log.
    """

    def __init__(self) -> None:
        self.read = 0
        self.state: GameState | None = None
        self.position = 0  # events produced by the table actions checked (the first: game_started)
        self.window: deque[Event] = deque()  # the events read from ``position`` on
        self.beyond = 0  # events read past a window grown to WINDOW with no table action in it (not kept)
        self.action: Event | None = None  # the first table action from ``position`` on
        self.action_at = 0  # its index in the log
        self.expected: list[Event] | None = None  # what today's engine makes of it
        self.differences: list[Finding] = []

    def feed(self, event: Event) -> None:
        self.read += 1
        if self.differences:
            return
        if self.read == 1:
            if event.type == "game_started":
                self.state, self.position = fold(None, event), 1
            else:
                self.differences.append(difference(1, "The log does not start with game_started."))
            return
        if self.action is None and event.is_table_action:
            self.action, self.action_at = event, self.position + len(self.window) + self.beyond
        if self.beyond or (self.action is None and len(self.window) >= WINDOW):
            self.beyond += 1  # far from any table action: the difference shows before
        else:
            self.window.append(event)
        self.advance(ended=False)

    def finish(self) -> dict[str, Any]:
        if self.read == 0:
            self.differences.append(difference(1, "The log does not start with game_started."))
        self.advance(ended=True)
        return {"ok": not self.differences, "checked": self.position, "differences": self.differences}

    def advance(self, ended: bool) -> None:
        """Check every table action whose events are all read (all of them once the log ``ended``)."""
        window = self.window
        while not self.differences and self.state is not None:
            if self.expected is None:
                if self.action is None:
                    if ended and window:
                        seq = self.position + 1
                        self.differences.append(difference(seq, "Event {seq} ({type}) was recorded but no table "
                                                           "action produces it.", seq=seq, type=window[0].type))
                    return
                try:
                    self.expected = decide(self.state, action_of(self.action), bounded=False)
                except LedgerError as refusal:
                    seq = self.action_at + 1
                    self.differences.append(difference(seq, "Today's engine refuses the table action at event "
                                                       "{seq}: {refusal}", seq=seq, refusal=refusal.said))
                    return
            expected = self.expected
            if len(window) < len(expected) and not ended and not self.beyond:
                return  # the rest of what it produces is still to be read
            for offset, want in enumerate(expected):
                got = window[offset] if offset < len(window) else None
                if got is None or (want.type, dict(want.data)) != (got.type, dict(got.data)):
                    seq = self.position + offset + 1
                    gives = f"{want.type} {dict(want.data)}"
                    self.differences.append(
                        difference(seq, "Event {seq}: recorded {recorded}, today's engine gives {expected}.",
                                   seq=seq, recorded=f"{got.type} {dict(got.data)}", expected=gives)
                        if got is not None else
                        difference(seq, "Event {seq}: recorded nothing, today's engine gives {expected}.", seq=seq,
                                   expected=gives))
                    break
            for event in expected:
                self.state = fold(self.state, event)
            self.position += len(expected)
            for _ in range(min(len(expected), len(window))):
                window.popleft()
            self.expected = self.action = None
            for index, event in enumerate(window):
                if event.is_table_action:
                    self.action, self.action_at = event, self.position + index
                    break


def check_receipts(
    game: str,
    version: int,
    hash_at: Callable[[int], str | None],
    receipts: Iterable[Mapping[str, Any]],
    public_keys: Mapping[str, bytes],
    names: str = "game",
) -> dict[str, Any]:
    """Check the receipts members hold against a game's log (``names="evening"``: an evening's, by its receipts).

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
        if not isinstance(receipt, Mapping) or receipt.get(names) != game:
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
