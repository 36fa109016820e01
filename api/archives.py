"""A club's archive (``GET /clubs/{club}/archive``): everything the club holds in one file signed by the server,
checked offline by ``nj-ledger archive verify`` (:mod:`nj_ledger.archive`, docs/ARCHIVE.md). It names the club's
members: a scorer's (or the director's) token only. Its route joins the clubs' blueprint (:mod:`api.clubs`)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import fields, validate

from nj_ledger.application.archive import club_archive

from .audits import BUSY, RETRY_AFTER, whole_log_read
from .clubs import PlayerSchema, blp
from .context import store
from .dumping import ViewSchema
from .evening_audit import EveningReceiptSchema
from .problems import PROBLEM_JSON
from .receipts import SIGNATURE_FIELDS, KeySchema, ReceiptSchema, SignatureSchema
from .schemas import MAX_INT, ProblemSchema


class ArchiveReceiptSchema(SignatureSchema):
    """The server's signature of the archive: a receipt whose `archive` is the club's id and `head` the digest."""

    archive = fields.String(required=True, metadata={"description": "The club's id."})
    version = fields.Integer(required=True, strict=True, validate=validate.Range(1, MAX_INT),
                             metadata={"description": "The archive's format version."})
    head = fields.String(required=True, metadata={"description": "The archive's `digest`."})

    class Meta:
        fields = ("archive", "version", "head", *SIGNATURE_FIELDS)


class ArchivedClubSchema(ViewSchema):
    id = fields.String()
    name = fields.String()
    created_at = fields.String()


class ArchivedSeasonSchema(ViewSchema):
    name = fields.String()
    starts_on = fields.String()
    ends_on = fields.String()
    qualifying_evenings = fields.Integer()
    best_evenings = fields.Integer(allow_none=True)


class ArchivedGameSchema(ViewSchema):
    id = fields.String()
    document = fields.Dict(metadata={
        "description": "The game document, as `GET /games/{game}/export` gives it: its actions and every stored "
                       "record with its hash."})
    njn = fields.String(metadata={"description": "The game's NJN record (docs/NJN.md)."})
    receipt = fields.Nested(ReceiptSchema, allow_none=True, metadata={
        "description": "The receipt of the head archived (null for a game that ended before receipts existed)."})


class ArchivedEveningSchema(ViewSchema):
    id = fields.String()
    evening = fields.Dict(metadata={"description": "Its name, day played, status and when it was made."})
    entries = fields.List(fields.Dict(), metadata={
        "description": "Its decisions with their hashes, as `GET …/evenings/{evening}/decisions` gives them."})
    receipt = fields.Nested(EveningReceiptSchema, allow_none=True)


class ArchivedErasureSchema(ViewSchema):
    club = fields.String()
    number = fields.Integer()
    member = fields.Integer(metadata={"description": "The erased member's id (not listed in `members`)."})
    pseudonym = fields.String()
    reason = fields.String()
    by = fields.Dict()
    recorded_at = fields.String()
    redactions = fields.List(fields.List(fields.Raw()), metadata={
        "description": "Each record it redacted: [log (game or evening), its id, seq, the hash before it, its "
                       "hash, the link of its content as redacted]."})
    hash = fields.String(metadata={"description": "SHA-256 of the previous erasure's hash and the canonical JSON of "
                                                  "every other field but `receipt`."})
    receipt = fields.Dict(allow_none=True, metadata={"description": "The server's signature of `hash`."})


class ArchiveSchema(ViewSchema):
    format = fields.String(metadata={"example": "nj-ledger/club-archive"})
    version = fields.Integer()
    club = fields.Nested(ArchivedClubSchema)
    made_at = fields.String()
    members = fields.List(fields.Nested(PlayerSchema), metadata={"description": "But those erased."})
    erasures = fields.List(fields.Nested(ArchivedErasureSchema), metadata={
        "description": "The members' erasures, oldest first: the records they redacted are verified through them."})
    seasons = fields.List(fields.Nested(ArchivedSeasonSchema))
    games = fields.List(fields.Nested(ArchivedGameSchema), metadata={"description": "Newest first."})
    evenings = fields.List(fields.Nested(ArchivedEveningSchema), metadata={"description": "Newest first."})
    keys = fields.List(fields.Nested(KeySchema), metadata={"description": "Every key that ever signed here."})
    digest = fields.String(metadata={
        "description": "SHA-256 of the canonical JSON (sorted keys, no spaces, UTF-8) of every other field but "
                       "`receipt`."})
    receipt = fields.Nested(ArchiveReceiptSchema)


@blp.route("/clubs/<club>/archive")
class Archive(MethodView):
    for_scorers = ("GET",)  # it names the club's members: a scorer's token, not a viewer's (api.auth)

    @blp.response(200, ArchiveSchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=RETRY_AFTER, description=BUSY)
    def get(self, club: str) -> dict[str, Any]:
        """The club's archive: the club, its members (but those erased), their erasures, its seasons, every game
        (its document with every record and hash, its NJN record, the receipt of its head), every evening (its
        decisions with their hashes and the receipt of its head), the public keys, the digest of it all and the
        server's signature of that digest. `nj-ledger archive verify FILE` checks it with no server. A scorer's or
        the director's token only (403 for a viewer's)."""
        with whole_log_read():  # every log of the club is read: a few such reads at once, as audits
            return club_archive(store(), club)
