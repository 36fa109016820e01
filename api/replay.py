"""Replay of a deal, step by step, and the audit of a whole game."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

import orjson
from flask import Flask, Response, current_app
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.application import folded, replay_segment
from nj_ledger.bounds import MAX_DEAL_EVENTS
from nj_ledger.calls import KINDS, calls_view
from nj_ledger.events import Event
from nj_ledger.reducer import fold
from nj_ledger.state import GameState
from nj_ledger.store import Record
from nj_ledger.store.log import event_of

from . import audits
from .audits import BUSY, RETRY_AFTER, AuditSchema, ReceiptsAuditSchema, audit_response
from .auth import caller
from .context import store
from .dumping import ViewSchema
from .inputs import Blueprint
from .problems import PROBLEM_JSON, Problem
from .receipts import ReceiptsBodySchema
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


class CallSchema(ViewSchema):
    call = fields.String(validate=validate.OneOf(KINDS), metadata={
        "description": "`takes` (an honour announced), `restarts` (a card that ends the run: its player goes on), "
                       "`out` (the last card: \"J'arrête !\"), `grand_opera`, `wants` (what the run wants next)."})
    card = fields.String(metadata={"description": "The card, for `takes` and `restarts`."})
    expected = fields.String(metadata={"description": "What the run wants (`8`, `8H` in suit play), for `wants`."})


class StepSchema(ViewSchema):
    seq = fields.Integer(metadata={"description": "The event's seq (the first step: the seq before the deal)."})
    event = fields.Nested(RecordSchema, allow_none=True, metadata={"description": "Null for the deal's start."})
    state = fields.Nested(GameStateSchema, metadata={"description": "The state after the event."})
    calls = fields.List(fields.Nested(CallSchema), metadata={
        "description": "What the player says on laying the cards of a play, as the rules decide it (none for any "
                       "other step): \"Valet qui prend, Roi et je recommence, sans 8\"."})


class ReplaySchema(ViewSchema):
    game = fields.String()
    deal = fields.Integer()
    steps = fields.List(fields.Nested(StepSchema))


_STEP = StepSchema()
_HEAD = ReplaySchema(exclude=("steps",))


@blp.route(f"/games/<game>/deals/<int(max={MAX_INT}):number>/replay")
class Replay(MethodView):
    @blp.arguments(ReplayQuerySchema(), location="query")
    @blp.response(200, ReplaySchema)
    def get(self, query: dict[str, Any], game: str, number: int) -> Response:
        """Every step of deal `number`: each event and the state after it (`?at=seq`: one step).

        The first step is the state at the deal's start (`event` null). Only the
        deal's own segment of the log is replayed on top of that state.
        """
        club = caller().club_id
        at = query.get("at")
        state, records = replay_segment(store(), club, game, number, at)

        def answer() -> Iterator[bytes]:
            events = [event_of(record) for record in records]
            folded(game, number, state, events)  # first: an event that cannot be folded is a 409, not a cut answer
            return replay_body(game, club, number, state, records, events, at)

        # Dumped a step at a time. A deal within the bounds is made once and kept (a replay asked for again, or
        # by many at once, costs one); a longer one, stored before the bounds, is streamed, never held whole.
        if len(records) > MAX_DEAL_EVENTS:
            return Response(answer(), status=200, mimetype="application/json")
        # the names too: a member's erasure rewrites them, every hash kept
        key = (club, game, number, records[-1]["seq"], records[-1]["hash"], at, tuple(state.players))
        body = current_app.extensions[ANSWERS].get(key, lambda: b"".join(answer()))
        return Response(body, status=200, mimetype="application/json")


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
        return audit_response(caller().club_id, game)

    @blp.arguments(ReceiptsBodySchema())
    @blp.response(200, ReceiptsAuditSchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=RETRY_AFTER,
                      description=BUSY)
    def post(self, payload: dict[str, Any], game: str) -> Response:
        """The audit of `GET`, holding the log to the receipts a member kept: `receipts` reports each receipt
        past the log's end (the log was cut back), naming another head at its version (rewritten), or not
        validly signed, with the first event in doubt. Receipts of other games are skipped. A viewer may ask."""
        mine = list({(r["version"], r["head"], r["signature"]): r for r in payload["receipts"]
                     if r["game"] == game}.values())  # each receipt of this game once
        if len(mine) > MAX_RECEIPTS_OF_A_GAME:
            raise Problem(422, "too-many-receipts", "At most {most} receipts of one game are checked at once, not "
                          "{count}: send the latest ones (each vouches for every event before it).",
                          params={"most": MAX_RECEIPTS_OF_A_GAME, "count": len(mine)})
        others = [r for r in payload["receipts"] if r["game"] != game]
        return audit_response(caller().club_id, game, [*mine, *others])


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
    """The replay's JSON, ``{"deal", "game", "steps"}`` dumped through :class:`ReplaySchema` with sorted keys, a
    step at a time (through :class:`StepSchema`); ``state`` (the request's own) is folded in place."""
    view = {"id": game, "club": club}
    yield orjson.dumps(_HEAD.dump({"deal": number, "game": game}), option=SORTED)[:-1] + b',"steps":['
    first_seq = records[0]["seq"] - 1
    separator = b""
    if at is None or at == first_seq:
        step = {"seq": first_seq, "event": None, "state": {**view, **state_view(state)}, "calls": []}
        yield orjson.dumps(_STEP.dump(step), option=SORTED)
        separator = b","
    for record, event in zip(records, events, strict=True):
        fold(state, event)
        if at is None or at == record["seq"]:
            calls = calls_view(state, event.data) if event.type == "play" else []
            step = {"seq": record["seq"], "event": record, "state": {**view, **state_view(state)}, "calls": calls}
            yield separator + orjson.dumps(_STEP.dump(step), option=SORTED)
            separator = b","
    yield b"]}\n"
