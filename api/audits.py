"""Whole-log reads: the audit written out as it is made, and how many reads of a whole log a process makes at once.

Why. Anyone a club lets see a game -- a viewer's token, a share link -- may ask
for its audit or its export, and each reads the game's whole log. Before games
were bounded (:data:`nj_ledger.bounds.MAX_GAME_EVENTS`), one audit of a game of
120,017 events took 5 s and its answer was built whole in memory; six at once
took the server to 1.36 GB and ``/api/v1/health`` to 1.1 s. So:

- **The audit is written out as the log is read** (:func:`audit_response`):
  what grows with the log (transfers, corrections, findings) goes, an event at
  a time, to temporary files that stay in memory while small
  (:data:`IN_MEMORY`); the answer is those files read back a chunk at a time,
  within the rest of the report. What the audit holds does not grow with the
  log; the database's snapshot is closed before the first byte is sent, so a
  slow reader holds no transaction.
- **A few at a time** (:class:`WholeLogReads`): a process reads at most
  :data:`WHOLE_LOG_READS` whole logs at once (audits, a club's audit, exports);
  one more is refused at once, 503 ``busy`` with ``Retry-After``, rather than
  wait on a thread that the scorers' appends and the health checks need. The
  reads themselves pause every few rows (:func:`nj_ledger.store.recorder.paced`)
  so that those requests get the interpreter meanwhile.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import IO, Any

import orjson
from flask import Flask, Response, current_app
from marshmallow import fields, validate

from nj_ledger.bounds import MAX_GAME_EVENTS
from nj_ledger.findings import Finding
from nj_ledger.report import Summary
from nj_ledger.store import GameInfo
from nj_ledger.store.checkpoints import audit_game_into

from .context import store
from .dumping import ViewSchema
from .i18n import translate_audit
from .problems import Problem, dump_json
from .receipts import ReceiptsReportSchema

WHOLE_LOG_READS = 2  # whole logs a process reads at once: the others' requests keep threads to run on
RETRY_AFTER_SECONDS = 5  # about what an audit of the longest game takes
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before asking again.", "schema": {"type": "integer"}}}
BUSY = "The server reads a few whole game logs at once (audits, exports) and is reading them all (busy)."
IN_MEMORY = 256 * 1024  # bytes of each list of an audit kept in memory while it is made; the rest goes to a file
CHUNK = 64 * 1024  # bytes of an answer sent at a time
GATE = "nj_ledger.whole_log_reads"
ITEM_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS  # dump_json's, its newline left out
AUDITED_PER_PAGE = MAX_GAME_EVENTS  # events a page of a club's audit reads: one longest game, or many shorter
SEVERITIES = ("error", "warning", "info")


class FindingSchema(ViewSchema):
    severity = fields.String(validate=validate.OneOf(["info", "warning", "error"]))
    seq = fields.Integer(allow_none=True)
    code = fields.String()
    message = fields.String()


class TransferSchema(ViewSchema):
    """One transfer event of the log: every chip that moved."""

    seq = fields.Integer()
    deal = fields.Integer()
    from_ = fields.String(data_key="from", attribute="from", metadata={"description": "seat:N or box:CARD."})
    to = fields.String(metadata={"description": "seat:N or box:CARD."})
    amount = fields.Integer()
    reason = fields.String(metadata={"description": "ante, take, payment, grand_opera, bete, hoc or adjust."})


class CorrectionSchema(ViewSchema):
    """An undo or an adjustment."""

    seq = fields.Integer()
    deal = fields.Integer()
    type = fields.String(validate=validate.OneOf(["undo", "adjust"]))
    reason = fields.String()
    message = fields.String(allow_none=True)
    withdrew = fields.Dict(allow_none=True, metadata={"description": "An undo: the table action it withdrew, as "
                                                                     "sent."})
    settlement = fields.Integer(allow_none=True, metadata={"description": "An undo: the number of the deal whose "
                                                                          "settlement it withdrew, or null."})
    game_end = fields.Boolean(metadata={"description": "An undo: whether the game's end went with it."})
    from_ = fields.String(data_key="from", attribute="from",
                          metadata={"description": "An adjustment: seat:N or box:CARD."})
    to = fields.String(metadata={"description": "An adjustment: seat:N or box:CARD."})
    amount = fields.Integer(metadata={"description": "An adjustment: the chips moved."})


class RedactionSchema(ViewSchema):
    seq = fields.Integer()
    erasure = fields.Integer(metadata={"description": "The number of the club's erasure that redacted it."})


class AuditSchema(ViewSchema):
    ok = fields.Boolean(metadata={"description": "False when any part of the audit fails."})
    events = fields.Integer()
    transfers = fields.List(fields.Nested(TransferSchema))
    totals = fields.Dict(keys=fields.String(), values=fields.Dict())
    conservation = fields.Dict()
    chain = fields.Dict()
    head = fields.Dict(metadata={"description": "The log against the game's version and head hash: "
                                                "{ok, version, last_seq, first_bad_seq}."})
    checkpoints = fields.Dict()
    recomputation = fields.Dict()
    corrections = fields.List(fields.Nested(CorrectionSchema), metadata={"description": (
        "Each undo and adjustment: {seq, deal, type: undo|adjust, reason, message}, `message` the correction in "
        "words with the players' names (the finding's sentence). An undo adds `withdrew` (the table action it "
        "withdrew, as sent), `settlement` (the number of the deal whose settlement it withdrew, or null) and "
        "`game_end` (whether the game's end went with it); an adjustment adds `from`, `to`, `amount`.")})
    settled_by_count = fields.List(fields.Integer(), metadata={
        "description": "The deals settled from a loser's hand told by count (a reveal's count form: cards left, "
                       "points, honours) rather than shown card by card, in log order (a settlement an undo "
                       "withdrew is not listed); each settlement by count also has an info finding "
                       "settled-by-count naming the players, at its place in the log."})
    redactions = fields.List(fields.Nested(RedactionSchema), metadata={
        "description": "The events whose content a member's erasure redacted (their name replaced by a pseudonym), "
                       "in log order: each one's hash is the one written, verified through what the erasure "
                       "recorded (the hash before it, its own, its content's link as redacted); each also has an "
                       "info finding `redacted`."})
    findings = fields.List(fields.Nested(FindingSchema))


class ReceiptsAuditSchema(AuditSchema):
    receipts = fields.Nested(ReceiptsReportSchema)


LISTS = {"transfers": TransferSchema(), "corrections": CorrectionSchema(), "findings": FindingSchema()}
REPORTS = (AuditSchema(exclude=tuple(LISTS)), ReceiptsAuditSchema(exclude=tuple(LISTS)))  # without, with receipts


class WholeLogReads:
    """The reads of whole logs a process makes at once: ``places`` of them, the next one refused at once.

    >>> reads = WholeLogReads(1)
    >>> with reads.entered():
    ...     reads.places.acquire(blocking=False)
    False
    """

    def __init__(self, places: int = WHOLE_LOG_READS) -> None:
        self.count = places
        self.places = threading.BoundedSemaphore(places)

    @contextmanager
    def entered(self) -> Iterator[None]:
        if not self.places.acquire(blocking=False):
            raise Problem(503, "busy", "The server is reading {count} whole game logs already: try again in a few "
                          "seconds.", params={"count": self.count}, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        try:
            yield
        finally:
            self.places.release()


def whole_log_read() -> AbstractContextManager[None]:
    """This process's :class:`WholeLogReads`, entered for the read of a whole log (503 when they are all taken)."""
    return current_app.extensions[GATE].entered()


class Spooled:
    """A JSON list written an item at a time, as :func:`api.problems.dump_json` writes each: in memory while
    small, then in a temporary file."""

    def __init__(self, schema: ViewSchema) -> None:
        self.dump = schema.dump
        self.file: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)  # noqa: SIM115 - closed by close()
        self.count = 0
        self.default = current_app.json.default  # type: ignore[attr-defined]  # looked up once, not an item at a time

    def add(self, item: Any) -> None:
        item = self.dump(item)
        try:
            written = orjson.dumps(item, default=self.default, option=ITEM_OPTIONS)
        except TypeError:  # what orjson refuses (an integer past 64 bits), as dump_json writes it
            written = dump_json(item)
        self.file.write(b"," + written)
        self.count += 1

    def read(self, first: bool) -> Iterator[bytes]:
        """The items written, comma-separated (``first``: none comes before them)."""
        self.file.seek(0)
        while chunk := self.file.read(CHUNK):
            yield chunk[1:] if first else chunk
            first = False

    def close(self) -> None:
        self.file.close()


class AuditItems:
    """The audit's items (:class:`nj_ledger.report.Items`) written as the API shows them, in the language of the
    request: each correction with its sentence, each finding written out (:func:`api.i18n.translate_audit`)."""

    def __init__(self) -> None:
        self.transfers, self.corrections, self.findings = (Spooled(LISTS[name]) for name in LISTS)

    def add(self, transfers: list[dict[str, Any]], corrections: list[dict[str, Any]],
            findings: list[Finding]) -> None:
        for transfer in transfers:
            self.transfers.add(transfer)
        if corrections or findings:
            shown = translate_audit({"corrections": corrections, "findings": findings})
            for correction in shown["corrections"]:
                self.corrections.add(correction)
            for finding in shown["findings"]:
                self.findings.add(finding)

    def close(self) -> None:
        for spooled in (self.transfers, self.corrections, self.findings):
            spooled.close()


def audit_response(club: str, game: str, receipts: Sequence[Mapping[str, Any]] | None = None) -> Response:
    """The audit of ``game`` (with the members' ``receipts``, when given) as its answer, written out as it is
    read back from :class:`AuditItems`, through ``AuditSchema`` (``ReceiptsAuditSchema``), keys sorted."""
    items = AuditItems()
    try:
        with whole_log_read():
            summary = audit_game_into(store().keys, club, game, items, receipts)
    except BaseException:
        items.close()
        raise
    shown = translate_audit({**summary.report, "findings": [*summary.first, *summary.last]})
    said = [dump_json(LISTS["findings"].dump(finding)) for finding in shown["findings"]]
    lists = {"transfers": ([], items.transfers, []), "corrections": ([], items.corrections, []),
             "findings": (said[:len(summary.first)], items.findings, said[len(summary.first):])}
    report = REPORTS[receipts is not None].dump(shown)  # the corrections shown here are none: they are in ``items``
    # Everything that needs the app is written now: the answer is read after the request has ended.
    parts = [(dump_json(name).rstrip() + b":", lists.get(name) or dump_json(report[name]).rstrip())
             for name in sorted([*report, *lists])]

    def body() -> Iterator[bytes]:
        try:
            separator = b"{"
            for name, value in parts:
                yield separator + name
                yield from listed(*value) if isinstance(value, tuple) else (value,)
                separator = b","
            yield b"}\n"
        finally:
            items.close()

    response = Response(body(), status=200, mimetype="application/json")
    response.call_on_close(items.close)  # when the answer is never read
    return response


def listed(before: list[bytes], spooled: Spooled, after: list[bytes]) -> Iterator[bytes]:
    """A JSON list of the items ``before``, those ``spooled`` and those ``after``."""
    yield b"[" + b",".join(before)
    yield from spooled.read(first=not before)
    written = bool(before) or spooled.count > 0
    for item in after:
        yield (b"," if written else b"") + item
        written = True
    yield b"]"


class Tally:
    """The audit's items counted, the first findings of each severity kept: a club's audit shows each game's
    audit in a line (its counts, its first findings, errors first)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.counts = dict.fromkeys(SEVERITIES, 0)
        self.kept: dict[str, list[Finding]] = {severity: [] for severity in SEVERITIES}

    def add(self, transfers: list[dict[str, Any]], corrections: list[dict[str, Any]],
            findings: list[Finding]) -> None:
        for finding in findings:
            self.counts[finding.severity] += 1
            if len(self.kept[finding.severity]) < self.keep:
                self.kept[finding.severity].append(finding)

    def first(self, summary: Summary) -> list[Finding]:
        """The first findings, errors first, then warnings, then infos, each in the log's order."""
        return [finding for severity in SEVERITIES for finding in (
            *(f for f in summary.first if f.severity == severity), *self.kept[severity],
            *(f for f in summary.last if f.severity == severity))][:self.keep]

    def all_counts(self, summary: Summary) -> dict[str, int]:
        counts = dict(self.counts)
        for finding in (*summary.first, *summary.last):
            counts[finding.severity] += 1
        return counts


def tallied(club: str, game: str, keep: int) -> tuple[Summary, Tally]:
    """The audit of ``game``, its items counted (:class:`Tally`); in a whole-log read already entered."""
    tally = Tally(keep)
    return audit_game_into(store().keys, club, game, tally), tally


def audited_page(games: Sequence[GameInfo]) -> list[GameInfo]:
    """The games of a page of a club's audit: the first of ``games`` whose logs hold :data:`AUDITED_PER_PAGE`
    events together (the first game whatever its length)."""
    page: list[GameInfo] = []
    events = 0
    for game in games:
        events += game.version
        if page and events > AUDITED_PER_PAGE:
            break
        page.append(game)
    return page


def init_app(app: Flask) -> None:
    app.extensions[GATE] = WholeLogReads()
