"""An evening's log audited: its hash chain, its signed checkpoints and the receipts members hold; and the receipt
of an evening's head.

Every decision recorded signs the evening's head as a game's appends are signed (one key, one receipt format —
an evening's names ``evening`` where a game's names ``game`` — and one check: :mod:`nj_ledger.receipts`). The
audit (``GET …/decisions``, and ``POST …/audit`` with receipts, in :mod:`api.evening_decisions`) holds the log
to those signatures: a decision rewritten and every hash after it recomputed passes the chain, not them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger import evenings as core
from nj_ledger.application import evenings
from nj_ledger.findings import Finding, finding, redactions_told
from nj_ledger.store import EveningRead

from .audits import FindingSchema, RedactionSchema
from .context import etag, store
from .dumping import ViewSchema
from .evening_view import blp
from .i18n import N_, translate_finding
from .receipts import SIGNATURE_FIELDS, SignatureSchema
from .replay import MAX_RECEIPTS_OF_A_GAME
from .schemas import MAX_INT

MAX_RECEIPTS_OF_AN_EVENING = MAX_RECEIPTS_OF_A_GAME  # checked in one audit (each signature checked costs)
NOT_SIGNED = N_("Not signed (older than signing): the evening's decisions were recorded before the ledger signed "
                "evenings, and only their hash chain vouches for them.")
ALTERED = N_("The evening's log was altered after the ledger signed it at decision {seq}: it no longer matches what "
             "was signed.")
BROKEN = N_("The evening's log was altered after it was written: decision {seq} was edited, deleted or moved.")


class EveningReceiptSchema(SignatureSchema):
    """What the ledger acknowledged of an evening's log, signed with Ed25519 as a game's receipt is (the same
    fields, `evening` for `game`): keep it, and any later audit of the evening can be held to it."""

    evening = fields.String(required=True, validate=validate.Length(min=1, max=64))
    version = fields.Integer(required=True, strict=True, validate=validate.Range(1, MAX_INT),
                             metadata={"description": "The seq of the last decision acknowledged."})
    head = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-f]{64}$"),
                         metadata={"description": "The hash of the decision at `version`."})

    class Meta:
        fields = ("evening", "version", "head", *SIGNATURE_FIELDS)


RECEIPT = ("The signed receipt of the evening's head: keep it, an audit of the evening can be held to it (`POST "
           "…/audit`). Null only for an evening whose last decision is older than signing.")


class EveningReceiptAnswerSchema(ViewSchema):
    evening = fields.String()
    version = fields.Integer()
    receipt = fields.Nested(EveningReceiptSchema, allow_none=True, metadata={"description": RECEIPT})


class SignedSchema(ViewSchema):
    ok = fields.Boolean()
    signed = fields.Boolean(metadata={"description": "false: not signed (older than signing), the evening's "
                                                     "decisions were all recorded before evenings were signed."})
    signed_from = fields.Integer(allow_none=True, metadata={
        "description": "The first decision signed (1 for an evening recorded since); the signature of each vouches "
                       "for every decision before it."})
    count = fields.Integer(metadata={"description": "Checkpoints kept."})
    first_bad_seq = fields.Integer(allow_none=True, metadata={
        "description": "The first decision whose signed checkpoint does not hold: rewritten after it was signed."})


class EveningAuditSchema(ViewSchema):
    """What the audit of an evening's log adds to the log: the verdict and what it found."""

    ok = fields.Boolean(metadata={"description": "The hash chain and the signed checkpoints hold (and the "
                                                "receipts, when given)."})
    first_bad_seq = fields.Integer(allow_none=True, metadata={"description": "The first decision altered."})
    checkpoints = fields.Nested(SignedSchema, metadata={
        "description": "The log held to the checkpoints the ledger signed of the evening's head at each decision."})
    redactions = fields.List(fields.Nested(RedactionSchema), metadata={
        "description": "The decisions whose content a member's erasure redacted (their name replaced by a "
                       "pseudonym), verified through what the erasure recorded; each also has an info finding "
                       "`redacted`."})
    findings = fields.List(fields.Nested(FindingSchema), metadata={
        "description": "chain-broken, checkpoint-mismatch, the receipts' findings, not-signed or redacted (info)."})


class EveningReceiptsBodySchema(Schema):
    receipts = fields.List(fields.Nested(EveningReceiptSchema), load_default=list,
                           validate=validate.Length(max=MAX_RECEIPTS_OF_AN_EVENING), metadata={
                               "description": "Receipts of the evening a member kept (of other evenings: skipped; "
                                              "none: the audit of `GET …/decisions`, and no receipt checked)."})


def audited(club: str, evening: str, receipts: Sequence[Mapping[str, Any]] | None = None,
            ) -> tuple[EveningRead, dict[str, Any]]:
    """The evening and its audit: ``chain`` (the hash chain, as it always was), ``checkpoints``, the members'
    ``receipts`` when given (each of this evening once), the verdict and the findings in the language of the request."""
    read, signed, held = evenings.evening_audit(store(), club, evening, receipts)
    bad = core.first_bad_entry(read.entries, read.redacted)
    listed, told = redactions_told(read.redacted, "evening")
    found: list[Finding] = list(told)
    if bad is not None:
        found.append(finding("error", bad, "chain-broken", BROKEN, seq=bad))
    if signed["first_bad_seq"] is not None:
        found.append(finding("error", signed["first_bad_seq"], "checkpoint-mismatch", ALTERED,
                             seq=signed["first_bad_seq"]))
    if signed["signed_from"] is None:
        found.append(finding("info", None, "not-signed", NOT_SIGNED))
    doubted = [seq for seq in (bad, signed["first_bad_seq"]) if seq is not None]
    report: dict[str, Any] = {"chain": {"ok": bad is None, "first_bad_seq": bad},
                              "checkpoints": {**signed, "signed": signed["signed_from"] is not None},
                              "redactions": listed}
    ok = bad is None and signed["ok"]
    if held is not None:
        found.extend(held["findings"])
        doubted += [held["first_bad_seq"]] if held["first_bad_seq"] is not None else []
        ok = ok and held["ok"]
        report["receipts"] = {**{name: held[name] for name in ("ok", "checked", "skipped", "first_bad_seq")},
                              "findings": [translate_finding(item) for item in held["findings"]]}
    found.sort(key=lambda item: (item.seq is None, item.seq or 0))
    return read, {**report, "ok": ok, "first_bad_seq": min(doubted, default=None),
                  "findings": [translate_finding(item) for item in found]}


@blp.route("/clubs/<club>/evenings/<evening>/receipt")
class EveningReceipt(MethodView):
    @blp.response(200, EveningReceiptAnswerSchema)
    def get(self, club: str, evening: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The signed receipt of the evening's head, as the ledger signed it when its last decision was recorded
        (each decision's answer carries it too); its `ETag` is the evening's version. Keep it: a later audit of
        the evening (`POST …/audit`) catches any rewrite of the decisions up to it."""
        info, receipt = evenings.evening_receipt(store(), club, evening)
        return {"evening": info.id, "version": info.version, "receipt": receipt}, 200, etag(info.version)


__all__ = ["RECEIPT", "EveningAuditSchema", "EveningReceiptSchema", "EveningReceiptsBodySchema", "audited"]
