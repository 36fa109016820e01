"""The big screen of a club evening: what it shows beside the leaderboard, and the read-only link that opens it.

``GET …/evenings/{evening}/screen`` tells the screen which round's tables to
show and how: between rounds (before the first, or a round drawn whose games
have not begun) the seating — each table's number, its players in seat order,
its code and the QR code of its page ``/tables/{code}`` — and during a round
each table's progress (deals played; waiting, live, ended, confirmed, voided).
An evening's share reads it (:data:`api.auth.SHARED_ROUTES`), as it reads the
leaderboard; the tables' codes, pages and QR codes only the share made here for
the screen reads (``shares.screen``, :func:`api.auth.reads_table_codes`): a code
joins its table, and a results share is public.

``POST …/evenings/{evening}/screen/links`` makes that share for a television
or a laptop: an evening share (listed and revoked with the club's shares)
whose link opens the big screen, ``/clubs/{club}/evenings/{evening}/screen#share=…``,
with its QR code, so that nobody types a token on the screen.

The routes belong to the evenings' blueprint (:mod:`api.evenings`).
"""

from __future__ import annotations

import base64
import functools
import io
from typing import Any

import segno
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger import evenings as core
from nj_ledger.application import evenings
from nj_ledger.evenings import EveningState, GameOutcome
from nj_ledger.store import EveningRead, NewShare, iso

from .addresses import link_base, qr_svg, qr_uri
from .auth import caller, reads_table_codes
from .context import etag, store
from .dumping import ViewSchema
from .evenings import NO_STORE, TABLE_PAGE, blp
from .shares import SHARE_FRAGMENT

SCREEN_PAGE = "/clubs/{club}/evenings/{evening}/screen"  # the big screen's page; a share's secret in its fragment
SCREEN_LABEL = "big screen"  # the share's label when the director gives none
PHASES = ("seating", "playing", "closed")
PROGRESS = ("planned", "waiting", "live", "unconfirmed", "ended", "confirmed", "voided")
QR_KEPT = 256  # the tables' QR codes kept in each process (an address makes the same code every time)


class ScreenTableSchema(ViewSchema):
    table = fields.Integer()
    code = fields.String(allow_none=True, metadata={
        "description": "The table's code (null: none made yet, or read with a results share: only a club token and "
                       "the big screen's share read the codes, which join a table)."})
    page = fields.String(allow_none=True, metadata={
        "description": "The table's page as a phone opens it (the server's address for phones and /tables/{code}); "
                       "null as `code` is."})
    qr = fields.String(allow_none=True, metadata={
        "description": "The QR code of `page`, an SVG image as a data: address (for an <img>); null as `code` is."})
    players = fields.List(fields.String(), metadata={"description": "In seat order (the first seat deals first)."})
    game = fields.String(allow_none=True, metadata={"description": "Null while the round is only planned."})
    mark = fields.String(metadata={"description": "As the grid's: planned, missing, unconfirmed, counted or voided."})
    progress = fields.String(validate=validate.OneOf(PROGRESS), metadata={
        "description": "planned (the round has not started), waiting (the game is made, nothing recorded yet), "
                       "live (being played), unconfirmed (ended, waiting for a player's confirmation), ended "
                       "(ended; the evening asks no confirmation), confirmed (ended and confirmed), voided."})
    deals_played = fields.Integer(metadata={"description": "Deals settled in the table's game (0 while planned)."})
    confirmed_by = fields.String(allow_none=True)


class ScreenSchema(ViewSchema):
    evening = fields.String()
    name = fields.String()
    version = fields.Integer(metadata={"description": "The seq of the evening's last decision."})
    status = fields.String(metadata={"description": "open or closed."})
    rule = fields.String(metadata={"description": "The ranking: match_points or net_chips."})
    confirmation = fields.Boolean()
    rounds = fields.Integer(metadata={"description": "Rounds planned (and started)."})
    current_round = fields.Integer(metadata={"description": "Rounds started; 0 before the first."})
    frozen_through = fields.Integer(allow_none=True, metadata={
        "description": "The leaderboard shows the rounds up to this one (null: not frozen)."})
    phase = fields.String(validate=validate.OneOf(PHASES), metadata={
        "description": "seating: before the first round (its planned tables) or a round started whose games have "
                       "not begun (nothing recorded at any of its tables): the screen shows where everyone sits; "
                       "playing: a round under way or finished (the tables' progress beside the leaderboard); "
                       "closed: the evening is closed."})
    round = fields.Integer(metadata={"description": "The round whose tables are listed (0: none)."})
    round_status = fields.String(allow_none=True, metadata={"description": "started or planned (null: no round)."})
    tables = fields.List(fields.Nested(ScreenTableSchema), metadata={"description": "The round's tables, by number."})


class NewScreenLinkSchema(Schema):
    label = fields.String(load_default=SCREEN_LABEL, validate=validate.Length(max=120),
                          metadata={"description": "Who the link is for, as the club's shares list it."})


class ScreenLinkSchema(ViewSchema):
    share = fields.Integer(metadata={"description": "The share's id (DELETE /clubs/{club}/shares/{share} revokes it)."})
    evening = fields.String()
    label = fields.String()
    created_at = fields.String()
    secret = fields.String(metadata={"description": "The share's secret: reads this evening only. Shown once."})
    url = fields.String(metadata={"description": "/clubs/{club}/evenings/{evening}/screen#share=…, the secret in "
                                                 "the fragment."})
    address = fields.String(metadata={"description": "`url` with the server's address for other devices, which the "
                                                     "QR code holds."})
    qr_svg = fields.String(metadata={"description": "The address's QR code, an SVG document."})
    qr_png = fields.String(metadata={"description": "The address's QR code, a PNG image in base64."})


@functools.lru_cache(maxsize=QR_KEPT)
def _table_qr(address: str) -> str:
    return qr_uri(address)


def _link_qr(address: str) -> dict[str, str]:
    """The QR code of the screen's link, as an SVG document and a PNG image in base64 (as a table's link has)."""
    png = io.BytesIO()
    segno.make_qr(address, error="m").save(png, kind="png", scale=6, border=2)
    return {"qr_svg": qr_svg(address), "qr_png": base64.b64encode(png.getvalue()).decode()}


def _started(outcome: GameOutcome | None) -> bool:
    """Whether anything was recorded in a table's game (a game is made with one event: its creation)."""
    return outcome is not None and outcome.version > 1


def _progress(state: EveningState, cell: dict[str, Any], outcome: GameOutcome | None) -> str:
    mark = cell["mark"]
    if mark == core.PLANNED:
        return "planned"
    if mark == core.VOID:
        return "voided"
    if mark == core.MISSING:
        return "live" if _started(outcome) else "waiting"
    if mark == core.UNCONFIRMED:
        return "unconfirmed"
    return "confirmed" if state.confirmation else "ended"


def _phase(read: EveningRead) -> tuple[str, int]:
    """The screen's phase and the round whose tables it lists."""
    state = read.state
    if state.closed:
        return "closed", state.current_round
    if state.current_round == 0:
        return "seating", 1 if state.schedule else 0
    current = state.started[-1]
    if not any(_started(read.outcomes.get(t.game)) or t.game in state.voided for t in current):
        return "seating", state.current_round
    return "playing", state.current_round


def screen_view(read: EveningRead, *, codes: bool = True) -> dict[str, Any]:
    """The screen's answer; without ``codes`` (a results share), the tables' codes, pages and QR codes null."""
    state = read.state
    phase, number = _phase(read)
    base = link_base()
    tables = []
    if number:
        for row in core.grid(state, read.outcomes):
            cell = row[number - 1] if number <= len(row) else None
            if cell is None:
                continue
            code = read.codes.get(cell["table"]) if codes else None
            page = f"{base}{TABLE_PAGE.format(code=code)}" if code else None
            outcome = read.outcomes.get(cell["game"]) if cell["game"] else None
            tables.append({"table": cell["table"], "code": code, "page": page,
                           "qr": _table_qr(page) if page else None, "players": cell["players"],
                           "game": cell["game"], "mark": cell["mark"], "progress": _progress(state, cell, outcome),
                           "deals_played": cell["deals_played"] or 0, "confirmed_by": cell["confirmed_by"]})
    return {"evening": read.info.id, "name": read.info.name, "version": read.info.version,
            "status": read.info.status, "rule": state.ranking, "confirmation": state.confirmation,
            "rounds": len(state.schedule), "current_round": state.current_round,
            "frozen_through": None if state.closed else state.frozen_through, "phase": phase, "round": number,
            "round_status": None if not number else "started" if number <= state.current_round else "planned",
            "tables": tables}


def screen_url(share: NewShare) -> str:
    """The big screen's page for an evening ``share``, its secret in the fragment."""
    page = SCREEN_PAGE.format(club=share.club_id, evening=share.evening_id)
    return f"{page}#{SHARE_FRAGMENT}={share.secret}"


@blp.route("/clubs/<club>/evenings/<evening>/screen")
class Screen(MethodView):
    @blp.response(200, ScreenSchema, headers={"ETag": {"description": "The evening's version.",
                                                       "schema": {"type": "string"}}})
    def get(self, club: str, evening: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The big screen's tables: the round's seating between rounds, each table's progress during a round.

        Between rounds (`phase` seating: before the first round, or a round
        drawn whose games have not begun), each table of the round with its
        players in seat order, its code and the QR code of its page; during a
        round (`phase` playing), each table's progress — deals played;
        waiting, live, unconfirmed, ended, confirmed or voided. No score: the
        leaderboard (`…/leaderboard`) stays as frozen as the director keeps it.
        Read with a club token or the evening's share (the link the director's
        page makes for the screen); another evening's share finds nothing (404). The tables' codes, pages and QR
        codes are for a club token and the screen's share only: read with a results share
        (`POST /clubs/{club}/shares`), they are null."""
        read = evenings.evening(store(), club, evening)
        return screen_view(read, codes=reads_table_codes(caller())), 200, etag(read.info.version)


@blp.route("/clubs/<club>/evenings/<evening>/screen/links")
class ScreenLinks(MethodView):
    @blp.arguments(NewScreenLinkSchema(), required=False)  # no body: the label "big screen"
    @blp.response(201, ScreenLinkSchema)
    def post(self, payload: dict[str, Any], club: str, evening: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """A read-only link that opens the evening's big screen, with its QR code (a scorer token).

        The link is an evening share — it reads the evening, its rounds,
        ranking, leaderboard and screen, and nothing else — whose secret rides
        in the link's fragment (`url`; `address` with the server's address for
        a television or a laptop, which the QR code holds). Shown once; listed
        and revoked with the club's shares (`/clubs/{club}/shares`, `screen`
        true). Unlike a results share, it reads the tables' codes, pages and QR
        codes, which join a table while the evening is open: it is for a screen
        shown in the room. An evening of another club is 404."""
        share = evenings.screen_share(store(), club, evening, payload.get("label", SCREEN_LABEL))
        url = screen_url(share)
        address = f"{link_base()}{url}"
        return {"share": share.id, "evening": share.evening_id, "label": share.label,
                "created_at": iso(share.created_at), "secret": share.secret, "url": url, "address": address,
                **_link_qr(address)}, 201, NO_STORE
