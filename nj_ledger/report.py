"""The audit's report as the log is read: what grows with the log goes out as it comes, the rest at the end.

A viewer or a share link may ask for the audit of any game, so what an audit
holds must not grow with the log. :func:`nj_ledger.audit.audit_log` reads the
log a record at a time and gives what grows with it -- each event's transfers,
corrections and findings -- to an :class:`Items` as it is read: :class:`Kept`
keeps them in lists (the report :func:`nj_ledger.audit.audit` returns), the API
writes them out (:mod:`api.audits`). The rest of the report, as small for the
longest game as for the shortest, is the :class:`Summary`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .findings import Finding


class Items(Protocol):
    """Where the audit puts what grows with the log, an event at a time, in log order."""

    def add(self, transfers: list[dict[str, Any]], corrections: list[dict[str, Any]],
            findings: list[Finding]) -> None:
        """One event's transfers, corrections (an undo's, an adjustment's) and findings."""


@dataclass
class Kept:
    """The audit's items kept in lists (:func:`~nj_ledger.audit.audit` returns them)."""

    transfers: list[dict[str, Any]] = field(default_factory=list)
    corrections: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def add(self, transfers: list[dict[str, Any]], corrections: list[dict[str, Any]],
            findings: list[Finding]) -> None:
        self.transfers += transfers
        self.corrections += corrections
        self.findings += findings


@dataclass
class Summary:
    """An audit without its items: ``report`` holds every field but ``transfers``, ``corrections`` and
    ``findings``; the findings of the events come between ``first`` (the log against the game's summary, the
    chain, an unreadable event) and ``last`` (the re-computation, the checkpoints)."""

    report: dict[str, Any]
    first: list[Finding]
    last: list[Finding]

    def whole(self, items: Kept) -> dict[str, Any]:
        """The whole report, with the items kept."""
        report = self.report
        return {"ok": report["ok"], "events": report["events"], "transfers": items.transfers,
                "totals": report["totals"], "conservation": report["conservation"], "chain": report["chain"],
                "head": report["head"], "checkpoints": report["checkpoints"],
                "recomputation": report["recomputation"], "corrections": items.corrections,
                "settled_by_count": report["settled_by_count"], "redactions": report.get("redactions", []),
                **({"receipts": report["receipts"]} if "receipts" in report else {}),
                "findings": [*self.first, *items.findings, *self.last]}
