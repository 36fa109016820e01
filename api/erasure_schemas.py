"""The answers about members' erasures: one erasure (``POST …/members/{m}/erasure``), the club's erasures
(``GET /clubs/{club}/erasures``, and the club's audit)."""

from __future__ import annotations

from typing import Any

from marshmallow import fields

from nj_ledger.store import ErasureInfo

from .dumping import ViewSchema


class ErasureBySchema(ViewSchema):
    role = fields.String(metadata={"description": "`director`, or `operator` for `nj-ledger members erase`."})
    token = fields.Integer(metadata={"description": "The deciding director's token (absent for the operator)."})


class ErasedCountsSchema(ViewSchema):
    games = fields.Integer()
    events = fields.Integer()
    evenings = fields.Integer()
    entries = fields.Integer(metadata={"description": "The evenings' decisions redacted."})


class ErasureSchema(ViewSchema):
    number = fields.Integer(metadata={"description": "The club's erasures are numbered from 1."})
    member = fields.Integer(metadata={"description": "The erased member's id: it stays, as their games do."})
    pseudonym = fields.String(metadata={"description": "What stands for the member's name everywhere now."})
    reason = fields.String(metadata={"description": "Why the director decided it: given to the club's writers "
                                                    "(director, scorers) only, not to a viewer nor a share."})
    by = fields.Nested(ErasureBySchema)
    recorded_at = fields.String()
    hash = fields.String(metadata={"description": "Chained after the club's erasure before it: SHA-256 of the "
                                                  "previous hash and the canonical JSON of the erasure and its "
                                                  "redactions."})
    receipt = fields.Dict(allow_none=True, metadata={
        "description": "The erasure signed by the server: {erasure (the club), version (the number), head (the "
                       "hash), at, key, signature}."})
    redacted = fields.Nested(ErasedCountsSchema, metadata={"description": "The records it redacted, by kind."})


class ErasuresSchema(ViewSchema):
    erasures = fields.List(fields.Nested(ErasureSchema), metadata={"description": "Oldest first."})
    chain = fields.Dict(metadata={"description": "{ok, count, first_bad}: the erasures held to their chain and "
                                                 "their signatures; first_bad is the first erasure that fails."})


def erasure_view(info: ErasureInfo, reason: bool = True) -> dict[str, Any]:
    """An erasure's answer; its ``reason`` (which may say why the member left) only to those the club's members'
    data is for (not a viewer's nor a share's: the club's audit)."""
    view = {"number": info.number, "member": info.member, "pseudonym": info.pseudonym, "reason": info.reason,
            "by": info.by, "recorded_at": info.recorded_at, "hash": info.hash, "receipt": info.receipt,
            "redacted": info.redacted}
    if not reason:
        del view["reason"]
    return view
