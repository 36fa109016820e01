"""Receipts: the signed acknowledgement every write answers, the public keys that check them, and their shapes.

Every successful append, game creation and import answers ``receipt: {game,
version, head, at, key, signature}`` (SPEC §5). ``GET /keys`` lists the public
keys (no token needed: anyone may check a receipt); ``POST /games/{game}/audit``
(in :mod:`api.replay`) checks the receipts a member kept against the log.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.receipts import ALGORITHM

from .context import store
from .dumping import ViewSchema
from .inputs import Blueprint
from .schemas import MAX_INT, GameStateSchema

blp = Blueprint("keys", __name__, url_prefix="/api/v1", description="The public keys that sign receipts.")

MAX_RECEIPTS = 10_000  # a heads file of a large club's games, checked in one request


SIGNATURE_FIELDS = ("at", "key", "signature")  # a receipt's fields after the log's id, version and head


class SignatureSchema(ViewSchema):
    """The fields a receipt of any log has past the log's id, its version and its head: when, by which key, and
    the signature (a game's receipt: :class:`ReceiptSchema`; an evening's: ``api.evening_audit``)."""

    at = fields.String(required=True, validate=validate.Length(min=1, max=40),
                       metadata={"example": "2026-11-23T10:00:00.123456Z"})
    key = fields.String(required=True, validate=validate.Length(min=1, max=64),
                        metadata={"description": "The id of the signing key (`GET /keys`)."})
    signature = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata={
        "description": "Ed25519 over the canonical JSON (sorted keys, no spaces, UTF-8) of the receipt without "
                       "`signature`, base64url."})


class ReceiptSchema(SignatureSchema):
    """What the ledger acknowledged, signed with Ed25519: keep it, and any later audit can be held to it."""

    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    version = fields.Integer(required=True, strict=True, validate=validate.Range(1, MAX_INT),
                             metadata={"description": "The seq of the last event acknowledged."})
    head = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-f]{64}$"),
                         metadata={"description": "The hash of the event at `version`."})

    class Meta:
        fields = ("game", "version", "head", *SIGNATURE_FIELDS)


class WithReceiptSchema(ViewSchema):
    receipt = fields.Nested(ReceiptSchema, allow_none=True, metadata={
        "description": "The signed receipt of the game's head: keep it, an audit can be held to it (null only "
                       "for a game that ended before receipts existed)."})


class ReceiptedGameSchema(GameStateSchema, WithReceiptSchema):
    """A game as it stands, with the receipt of its head."""


class KeySchema(ViewSchema):
    id = fields.String(metadata={"example": "3f9a0c2b7d1e4a56"})
    algorithm = fields.String(metadata={"example": ALGORITHM})
    public_key = fields.String(metadata={"description": "The raw 32-byte public key, base64url."})
    created = fields.String(metadata={"description": "When the key was taken into use."})


class KeysSchema(ViewSchema):
    keys = fields.List(fields.Nested(KeySchema), metadata={
        "description": "Every key that ever signed here, oldest first: the last one signs now."})


class ReceiptsBodySchema(Schema):
    receipts = fields.List(fields.Nested(ReceiptSchema), required=True,
                           validate=validate.Length(max=MAX_RECEIPTS), metadata={
                               "description": "Receipts a member kept (of this game; others are skipped)."})


class ReceiptFindingSchema(ViewSchema):
    severity = fields.String()
    seq = fields.Integer(allow_none=True)
    code = fields.String(metadata={"description": "receipt-past-end, receipt-head-differs or "
                                                  "receipt-bad-signature."})
    message = fields.String()


class ReceiptsReportSchema(ViewSchema):
    ok = fields.Boolean()
    checked = fields.Integer(metadata={"description": "Receipts of this game checked."})
    skipped = fields.Integer(metadata={"description": "Receipts of other games, not checked here."})
    first_bad_seq = fields.Integer(allow_none=True)
    findings = fields.List(fields.Nested(ReceiptFindingSchema))


@blp.route("/keys")
class Keys(MethodView):
    @blp.response(200, KeysSchema)
    @blp.doc(security=[])
    def get(self) -> dict[str, Any]:
        """The public keys that sign receipts (no token needed): check a receipt without the server's secret."""
        return {"keys": [key.view() for key in store().keys.signing_keys()]}
