"""Exchange: a game out (export) and in (import), as a JSON game document or as an NJN record (SPEC §8).

An NJN export is the canonical text ``nj-ledger export --format njn`` writes,
served as ``text/x-njn; charset=utf-8``. An NJN import is sent as the body with
``Content-Type: text/x-njn`` (or ``text/plain``) in UTF-8; a record with errors
is refused with 422 and every error's ``line`` and ``column`` in ``errors``.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Any

from flask import Response, request, url_for
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.application import exchange, game_summary
from nj_ledger.errors import InvalidInput
from nj_ledger.exchange import FORMAT, VERSION
from nj_ledger.notation import NotationError, parse_njn
from nj_ledger.notation.problems import MAX_ERRORS, NOTATION_ERROR, TextProblem, problem
from nj_ledger.notation.syntax import Scanner

from . import metrics
from .audits import BUSY, RETRY_AFTER, whole_log_read
from .auth import caller
from .context import etag, game_view, store
from .dumping import ViewSchema
from .i18n import N_, render
from .inputs import Blueprint, refuse_unstorable
from .problems import PROBLEM_JSON, json_response, refusal_body
from .receipts import ReceiptedGameSchema
from .schemas import (
    ACTIONS_DESCRIPTION,
    RULES_DESCRIPTION,
    SEAT_RANGE,
    STARTING_CHIPS_RANGE,
    ProblemSchema,
    RecordSchema,
)

blp = Blueprint("exchange", __name__, url_prefix="/api/v1", description="Export and import whole games.")

FORMATS = ("json", "njn")
NJN = "text/x-njn"
NJN_TYPES = (NJN, "text/plain")  # what an NJN import may be sent as
NJN_CONTENT_TYPE = f"{NJN}; charset=utf-8"
# Characters no record may hold: bytes that are not UTF-8 (decoded as lone surrogates) and NUL.
_UNREADABLE = re.compile("[\udc80-\udcff]+|\x00+")
_UNREADABLE_CHARACTER = re.compile("[\udc80-\udcff\x00]")
NUL_CHARACTERS = N_("A record may not hold NUL characters.")
NOT_UTF8 = N_("These bytes are not UTF-8: send the record as UTF-8 text.")
VERSION_HEADER = {"ETag": {"description": "The game's version.", "schema": {"type": "string"}}}
NJN_EXAMPLE = ('[Players "Ana; Ben; Chloé"]\n[StartingChips "60"]\n[Rules "classic"]\n\n'
               "Deal 1 dealer 2\n0: 5H 6H 7C\n")


class ExportQuerySchema(Schema):
    format = fields.String(load_default="json", validate=validate.OneOf(FORMATS), metadata={
        "description": "json: the game document; njn: the canonical NJN record."})


class GameDocumentSchema(ViewSchema):
    """A game document (``nj-ledger/game`` version 1): what a scorer recorded, in order."""

    format = fields.String(required=True, metadata={"example": FORMAT})
    version = fields.Integer(required=True, strict=True, metadata={"example": VERSION, "enum": [VERSION]})
    title = fields.String()
    date = fields.String(metadata={"example": "2026-03-01"})
    table = fields.String()
    notes = fields.String()
    players = fields.List(fields.String(), required=True)
    rules = fields.Raw(required=True, metadata={"example": "classic", "description": RULES_DESCRIPTION})
    starting_chips = fields.Integer(required=True, strict=True,
                                    metadata={**STARTING_CHIPS_RANGE, "example": 60})
    dealer = fields.Integer(strict=True, allow_none=True, metadata={
        **SEAT_RANGE, "description": "First dealer's seat (0 to players − 1)."})
    actions = fields.List(fields.Dict(), required=True, metadata={
        "description": "Table actions in order. " + ACTIONS_DESCRIPTION})
    events = fields.List(fields.Nested(RecordSchema), metadata={"description": "Stored records; ignored on import."})


IMPORT_BODY = {
    "required": True,
    "description": "A JSON game document, or an NJN record (docs/NJN.md) in UTF-8.",
    "content": {
        "application/json": {"schema": GameDocumentSchema},
        NJN: {"schema": {"type": "string"}, "example": NJN_EXAMPLE},
        "text/plain": {"schema": {"type": "string"}, "example": NJN_EXAMPLE},
    },
}


@blp.route("/games/<game>/export")
class Export(MethodView):
    @blp.arguments(ExportQuerySchema(), location="query")
    @blp.response(200, GameDocumentSchema, headers=VERSION_HEADER)
    @blp.alt_response(200, content_type=NJN, schema={"type": "string"},
                      description="The game document; with format=njn, the game's canonical NJN record.")
    @blp.alt_response(304, description="Not modified (If-None-Match names the current version).")
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=RETRY_AFTER,
                      description=BUSY)
    def get(self, query: dict[str, Any], game: str) -> tuple[dict[str, Any], int, dict[str, str]] | Response:
        """The game as a document (its table actions in order, and its stored records) or as an NJN record.

        The NJN record is the text `nj-ledger export --format njn` writes. The
        `ETag` is the game's version. A server reads a few whole logs at once (audits, exports): past them it
        answers 503 `busy` with `Retry-After`.
        """
        club = caller().club_id
        info = game_summary(store(), club, game)  # 404 before anything else: the game must be the caller's
        if request.headers.get("If-None-Match", "").strip() == etag(info.version)["ETag"]:
            return Response(status=304, headers=etag(info.version))
        with whole_log_read():
            document = exchange.exported(store(), club, game)
            tag = etag(document["events"][-1]["seq"])
            if query["format"] == "njn":
                text = exchange.njn_record(store(), club, document)
                return Response(text, status=200, headers=tag, content_type=NJN_CONTENT_TYPE)
            return document, 200, tag


@blp.route("/clubs/<club>/imports")
class Imports(MethodView):
    text_types = NJN_TYPES  # let through the JSON-only gate of api.inputs

    @blp.doc(requestBody=IMPORT_BODY)
    @blp.response(201, ReceiptedGameSchema, headers={**VERSION_HEADER, "Location": {
        "description": "The new game.", "schema": {"type": "string"}}})
    @blp.alt_response(422, schema=ProblemSchema, content_type=PROBLEM_JSON, description=(
        "A refused document or record: nothing is stored. An NJN record's errors are listed in `errors`, "
        "each `{line, column, message, code}`."))
    def post(self, club: str) -> tuple[dict[str, Any], int, dict[str, str]] | Response:
        """Import a game document or an NJN record: its actions are executed anew into a new game (201 with its
        state and the signed `receipt` of its head).

        The actions are validated and hash-chained as they are recorded; a
        refused one stores nothing. An NJN record is sent with
        `Content-Type: text/x-njn` (or `text/plain`) in UTF-8. A record with
        errors answers 422 with every error (the first 1,000, then a note if there
        are more) in `errors`, each with its `line`, `column`, `message` and `code`.
        """
        if request.mimetype in NJN_TYPES:
            try:
                document = read_record(request.get_data(cache=True))
            except NotationError as error:
                return refused_record(error)
        else:
            document = blp.ARGUMENTS_PARSER.parse(GameDocumentSchema(unknown="raise"), location="json")
        created = exchange.imported(store(), club, document)
        metrics.recorded("import", created.game.version)
        headers = {**etag(created.game.version), "Location": url_for("games.Game", game=created.game.id)}
        return {**game_view(created.game, created.state), "receipt": created.receipt}, 201, headers


def read_record(raw: bytes) -> dict[str, Any]:
    """The game document an NJN body records; :class:`NotationError` lists what is wrong with it and where.

    Bytes that are not UTF-8 and NUL characters are errors at their place; the
    rest of the text is read all the same, so that every error is listed at once.
    """
    text = raw.decode("utf-8", errors="surrogateescape")
    errors = unreadable_places(text)
    if errors:  # read on with a replacement character for each one, so that the columns stay where they are
        text = _UNREADABLE_CHARACTER.sub("\ufffd", text)
    try:
        document = parse_njn(text)
    except NotationError as error:
        errors.extend(error.problems)
    except RecursionError:  # a safety net: the reader reports a value nested too deep at its tag
        if not errors:
            raise InvalidInput(NOTATION_ERROR, "A tag's value nests too deep to be read.") from None
    if errors:
        raise NotationError(errors)  # in the order of the text, the first 1,000
    refuse_unstorable(document)  # a safety net: the reader refuses a NUL or half a surrogate pair ("\\u0000")
    return document


def unreadable_places(text: str) -> list[TextProblem]:
    """Where ``text`` holds bytes that were not UTF-8 or NUL characters, as NJN errors: the first 1,001 of them,
    one more than are listed, to tell that there are more."""
    if not _UNREADABLE.search(text):
        return []
    scanner = Scanner(text)  # places counted as the reader counts them
    return [problem(scanner.place(match.start()), NUL_CHARACTERS if match.group().startswith("\x00") else NOT_UTF8)
            for match in islice(_UNREADABLE.finditer(scanner.text), MAX_ERRORS + 1)]


def refused_record(error: NotationError) -> Response:
    """422: the refusal as any refusal of the core is written, with the record's errors (the first 1,000, then
    a note if there are more), each ``{line, column, message, code}``, in the language of the request.

    The engine's refusals name seats and rule options, shown in that language; the
    reader's own sentences quote the record, which is never translated.
    """
    body = refusal_body(error)
    body["errors"] = [{"line": found.line, "column": found.column, "message": render(found.said), "code": found.code}
                      for found in error.problems]
    return json_response(body, 422, mimetype=PROBLEM_JSON)
