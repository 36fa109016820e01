"""Replay of a deal, step by step, and the audit of a whole game."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from functools import reduce
from typing import Any

import orjson
from flask import Flask, Response, current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from nj_ledger.bounds import MAX_DEAL_EVENTS
from nj_ledger.events import Event
from nj_ledger.reducer import fold
from nj_ledger.state import GameState
from nj_ledger.store import Record
from nj_ledger.store.errors import unreplayable
from nj_ledger.store.log import event_of

from . import audits
from .audits import BUSY, RETRY_AFTER, audit_response
from .auth import reader
from .context import store
from .dumping import ViewSchema
from .problems import PROBLEM_JSON, Problem
from .receipts import ReceiptsBodySchema, ReceiptsReportSchema
from .schemas import MAX_INT, GameStateSchema, ProblemSchema, RecordSchema
from .views import state_view

SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
ANSWERS = "nj_ledger.replay_answers"
MAX_RECEIPTS_OF_A_GAME = 256  # checked in one audit: a signature costs about 0.1 ms to check
ANSWERS_BUDGET = 64 * 2**20  # bytes of replay answers a process keeps (the longest is about 1.7 MB)
MAKING_WAIT = 60.0  # seconds a request waits for the same answer being made by another
blp = Blueprint("replay", __name__, url_prefix="/api/v1", description="Replay and audit.")


class ReplayQuerySchema(Schema):
    at = fields.Integer(validate=validate.Range(0, MAX_INT),
                        metadata={"description": "Only the step of this seq."})


class StepSchema(ViewSchema):
    seq = fields.Integer(metadata={"description": "The event's seq (the first step: the seq before the deal)."})
    event = fields.Nested(RecordSchema, allow_none=True, metadata={"description": "Null for the deal's start."})
    state = fields.Nested(GameStateSchema, metadata={"description": "The state after the event."})


class ReplaySchema(ViewSchema):
    game = fields.String()
    deal = fields.Integer()
    steps = fields.List(fields.Nested(StepSchema))


class FindingSchema(Schema):
    severity = fields.String(validate=validate.OneOf(["info", "warning", "error"]))
    seq = fields.Integer(allow_none=True)
    code = fields.String()
    message = fields.String()


class AuditSchema(Schema):
    ok = fields.Boolean(metadata={"description": "False when any part of the audit fails."})
    events = fields.Integer()
    transfers = fields.List(fields.Dict())
    totals = fields.Dict(keys=fields.String(), values=fields.Dict())
    conservation = fields.Dict()
    chain = fields.Dict()
    head = fields.Dict(metadata={"description": "The log against the game's version and head hash: "
                                                "{ok, version, last_seq, first_bad_seq}."})
    checkpoints = fields.Dict()
    recomputation = fields.Dict()
    corrections = fields.List(fields.Dict(), metadata={"description": (
        "Each undo and adjustment: {seq, deal, type: undo|adjust, reason, message}, `message` the correction in "
        "words with the players' names (the finding's sentence). An undo adds `withdrew` (the table action it "
        "withdrew, as sent), `settlement` (the number of the deal whose settlement it withdrew, or null) and "
        "`game_end` (whether the game's end went with it); an adjustment adds `from`, `to`, `amount`.")})
    settled_by_count = fields.List(fields.Integer(), metadata={
        "description": "The deals settled from a loser's hand told by count (a reveal's count form: cards left, "
                       "points, honours) rather than shown card by card, in log order (a settlement an undo "
                       "withdrew is not listed); each settlement by count also has an info finding "
                       "settled-by-count naming the players, at its place in the log."})
    findings = fields.List(fields.Nested(FindingSchema))


@blp.route(f"/games/<game>/deals/<int(max={MAX_INT}):number>/replay")
class Replay(MethodView):
    @blp.arguments(ReplayQuerySchema(), location="query")
    @blp.response(200, ReplaySchema)
    def get(self, query: dict[str, Any], game: str, number: int) -> Response:
        """Every step of deal `number`: each event and the state after it (`?at=seq`: one step).

        The first step is the state at the deal's start (`event` null). Only the
        deal's own segment of the log is replayed on top of that state.
        """
        token = reader()
        segment = store().games.deal_segment(token.club_id, game, number)
        if segment is None:
            raise Problem(404, "not-found", "Game {game!r} has no deal {number}.",
                          params={"game": game, "number": number})
        state, records = segment
        at = query.get("at")
        first_seq = records[0]["seq"] - 1
        if at is not None and not first_seq <= at <= records[-1]["seq"]:
            raise Problem(404, "not-found", "Deal {number} runs from event {first} to {last}, not {at}.",
                          params={"number": number, "first": first_seq, "last": records[-1]["seq"], "at": at})

        def answer() -> Iterator[bytes]:
            events = [event_of(record) for record in records]
            try:  # fold a copy first: a stored event that cannot be folded is a 409 here, not a cut-off answer
                reduce(fold, events, state.copy())
            except Exception:  # noqa: BLE001 - the log was changed outside the ledger
                raise unreplayable(game, number) from None
            return replay_body(game, token.club_id, number, state, records, events, at)

        # Written a step at a time, as StepSchema would dump each (tests/api/test_dumping.py holds them equal):
        # dumping a thousand steps again through it made the longest replay a third slower. A deal within the
        # bounds is made once and kept (a replay asked for again, or by many at once, costs one); a longer one,
        # stored before the bounds, is streamed a step at a time, never held whole.
        if len(records) > MAX_DEAL_EVENTS:
            return Response(answer(), status=200, mimetype="application/json")
        key = (token.club_id, game, number, records[-1]["seq"], records[-1]["hash"], at)
        body = current_app.extensions[ANSWERS].get(key, lambda: b"".join(answer()))
        return Response(body, status=200, mimetype="application/json")


class ReceiptsAuditSchema(AuditSchema):
    receipts = fields.Nested(ReceiptsReportSchema)


@blp.route("/games/<game>/audit")
class Audit(MethodView):
    reads_only = ("POST",)  # checking receipts writes nothing: a viewer may (api.auth)

    @blp.response(200, AuditSchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=RETRY_AFTER,
                      description=BUSY)
    def get(self, game: str) -> Response:
        """Transfers, totals, conservation, hash chain, the log against the game's version, signed checkpoints,
        re-computation and findings.

        The answer is written out as the log is read. A server reads a few whole logs at once (audits,
        exports): past them it answers 503 `busy` with `Retry-After`."""
        token = reader()
        return audit_response(token.club_id, game)

    @blp.arguments(ReceiptsBodySchema())
    @blp.response(200, ReceiptsAuditSchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=RETRY_AFTER,
                      description=BUSY)
    def post(self, payload: dict[str, Any], game: str) -> Response:
        """The audit of `GET`, holding the log to the receipts a member kept: `receipts` reports each receipt
        past the log's end (the log was cut back), naming another head at its version (rewritten), or not
        validly signed, with the first event in doubt. Receipts of other games are skipped. A viewer may ask."""
        token = reader()
        mine = list({(r["version"], r["head"], r["signature"]): r for r in payload["receipts"]
                     if r["game"] == game}.values())  # each receipt of this game once
        if len(mine) > MAX_RECEIPTS_OF_A_GAME:
            raise Problem(422, "too-many-receipts", "At most {most} receipts of one game are checked at once, not "
                          "{count}: send the latest ones (each vouches for every event before it).",
                          params={"most": MAX_RECEIPTS_OF_A_GAME, "count": len(mine)})
        others = [r for r in payload["receipts"] if r["game"] != game]
        return audit_response(token.club_id, game, [*mine, *others])


class Answers:
    """Replay answers recently made, by what they were made of, within a byte budget. Requests for an answer
    being made wait for it rather than make it again (sixteen replays of one deal at once cost one).

    >>> answers = Answers(budget=100)
    >>> answers.get("k", lambda: b"made"), answers.get("k", lambda: b"made again")
    (b'made', b'made')
    """

    def __init__(self, budget: int = ANSWERS_BUDGET) -> None:
        self.budget, self.used = budget, 0
        self.kept: OrderedDict[Hashable, bytes] = OrderedDict()
        self.making: dict[Hashable, threading.Event] = {}
        self.lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], bytes]) -> bytes:
        while True:
            with self.lock:
                found = self.kept.get(key)
                if found is not None:
                    self.kept.move_to_end(key)
                    return found
                making = self.making.get(key)
                if making is None:
                    done = self.making[key] = threading.Event()
                    break
            making.wait(timeout=MAKING_WAIT)  # then found, or made by this request if the maker failed
        try:
            body = make()
            with self.lock:
                if len(body) <= self.budget // 4:
                    self.kept[key] = body
                    self.used += len(body)
                    while self.used > self.budget:
                        self.used -= len(self.kept.popitem(last=False)[1])
            return body
        finally:
            with self.lock:
                del self.making[key]
            done.set()


def init_app(app: Flask) -> None:
    app.extensions[ANSWERS] = Answers()
    audits.init_app(app)


def replay_body(game: str, club: str, number: int, state: GameState, records: Sequence[Record],
                events: Sequence[Event], at: int | None) -> Iterator[bytes]:
    """The replay's JSON, ``{"deal", "game", "steps"}`` with sorted keys, a step at a time; ``state`` (the
    request's own) is folded in place."""
    view = {"id": game, "club": club}
    yield b'{"deal":%d,"game":%s,"steps":[' % (number, orjson.dumps(game))
    first_seq = records[0]["seq"] - 1
    separator = b""
    if at is None or at == first_seq:
        yield orjson.dumps({"seq": first_seq, "event": None, "state": {**view, **state_view(state)}}, option=SORTED)
        separator = b","
    for record, event in zip(records, events, strict=True):
        fold(state, event)
        if at is None or at == record["seq"]:
            step = {"seq": record["seq"], "event": record, "state": {**view, **state_view(state)}}
            yield separator + orjson.dumps(step, option=SORTED)
            separator = b","
    yield b"]}\n"
