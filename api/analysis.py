"""A settled deal's analysis by the solver (docs/ANALYSIS.md): computed once off the request, kept as a projection."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import reduce
from typing import Any

import orjson
from flask import Flask, Response, current_app
from flask.views import MethodView
from marshmallow import Schema, fields

from nj_ledger.deal_analysis import DEFAULT_LIMIT, analyse_deal
from nj_ledger.reducer import fold
from nj_ledger.store import Store
from nj_ledger.store.errors import unreplayable
from nj_ledger.store.log import event_of

from . import metrics
from .auth import reader
from .context import store
from .i18n import translate
from .problems import Problem
from .replay import blp
from .schemas import MAX_INT
from .sentences import N_

RUNS = "nj_ledger.deal_analyses"
RETRY_AFTER = 2  # seconds a client waits before asking again while the analysis runs
LOG = logging.getLogger(__name__)
SENTENCES = {
    "done": N_("Every decision of the deal was searched to its end."),
    "partial": N_("The search reached back to event {from_seq} within its budget: the decisions before it are "
                  "past it."),
    "too-large": N_("The deal is too large for the search's budget: no decision could be reviewed."),
    "hands-unknown": N_("The deal was recorded without every hand and no deal consistent with its record could be "
                        "drawn: it cannot be analysed."),
    "sampled": N_("Some cards were never seen (a hand told by count): the figures are means over {samples} deals "
                  "drawn among the {deals} consistent with the record."),
    "sampled-uncounted": N_("Some cards were never seen (a hand told by count): the figures are means over "
                            "{samples} deals drawn among those consistent with the record."),
    "computing": N_("The analysis is being computed: ask again in a moment."),
    "failed": N_("The analysis of this deal could not be computed; the server's log says why. It is tried again "
                 "when the server restarts."),
}


class Runs:
    """The analyses this process is computing (one at a time), and those that failed: a failure is not tried
    again until the process restarts (it is logged; each request then answers ``failed``, never a 202 loop).
    Those waiting for the solver and the one it is solving are counted (api.metrics)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: set[tuple[str, int, int, str]] = set()
        self.failed: set[tuple[str, int, int, str]] = set()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deal-analysis")

    def start(self, key: tuple[str, int, int, str], work: Any) -> bool:
        """Start computing ``key`` unless it runs already; False: it failed before."""
        with self.lock:
            if key in self.failed:
                return False
            if key in self.running:
                return True
            self.running.add(key)

        def run() -> None:
            metrics.analysis_started()
            try:
                work()
            except Exception:
                LOG.exception("the analysis of deal %s of game %s failed", key[1], key[0])
                with self.lock:
                    self.failed.add(key)
            finally:
                with self.lock:
                    self.running.discard(key)
                metrics.analysis_ended()

        metrics.analysis_queued()
        self.executor.submit(run)
        return True


def init_app(app: Flask) -> None:
    app.extensions[RUNS] = Runs()


class FairSchema(Schema):
    samples = fields.Integer(metadata={"description": "How many deals consistent with what the player saw were "
                                                      "drawn and solved."})
    seed = fields.Integer(metadata={"description": "The seed they were drawn from."})
    deals = fields.Integer(allow_none=True, metadata={"description": "How many deals the player could not tell "
                                                                     "from the real one (null: too many to count)."})
    best = fields.List(fields.Dict(), metadata={"description": "The options worth the most on the samples' means."})
    values = fields.List(fields.Float(), metadata={"description": "Each seat's mean chips after the choice."})
    best_values = fields.List(fields.Float(), metadata={"description": "The same after the first best option."})
    lost = fields.Float(metadata={"description": "What the choice lost on those means."})
    mark = fields.String(metadata={"description": "best, inaccuracy, mistake or blunder, on those means."})
    disagrees = fields.Boolean(metadata={"description": "The mark under full knowledge is another one."})


class AnalysedDecisionSchema(Schema):
    seq = fields.Integer(metadata={"description": "The seq of the play or pass this decision is part of."})
    seat = fields.Integer()
    action = fields.Dict(metadata={"description": "The table action chosen (a play up to a run's end, or a pass)."})
    best = fields.List(fields.Dict(), metadata={"description": "The options worth the most to the seat."})
    values = fields.List(fields.Float(), metadata={"description": "Each seat's chips at the deal's end after the "
                                                                    "choice, best play by all from there (integers; "
                                                                    "means over the samples where `sampled`)."})
    best_values = fields.List(fields.Float(), metadata={"description": "The same under best play from before."})
    lost = fields.Float(metadata={"description": "Chips the choice cost the seat (a mean where `sampled`)."})
    mark = fields.String(metadata={"description": "best, inaccuracy, mistake or blunder."})
    forced = fields.Boolean()
    line = fields.List(fields.Dict(), metadata={"description": "The best line from before the decision."})
    fair = fields.Nested(FairSchema, allow_none=True, metadata={"description": (
        "The decision valued on what its player could see: null past the budget, or for a deal settled by count.")})


class ExpectedChipsSchema(Schema):
    seq = fields.Integer()
    values = fields.List(fields.Float(), metadata={"description": "Each seat's expected chips at the deal's end."})


class SampledSchema(Schema):
    samples = fields.Integer(metadata={"description": "How many completions of the unseen cards were analysed."})
    seed = fields.Integer(metadata={"description": "The seed they were drawn from (the same seed, the same deals)."})
    deals = fields.Integer(allow_none=True, metadata={"description": "How many deals are consistent with the "
                                                                     "record (null: too many to count)."})
    hidden = fields.Integer(metadata={"description": "The cards nobody saw."})


class DealAnalysisSchema(Schema):
    game = fields.String()
    deal = fields.Integer()
    head = fields.Dict(metadata={"description": "The deal's last event, {seq, hash}: the analysis is of the deal "
                                                "as it stood then (an undo or a redo makes another)."})
    status = fields.String(metadata={"description": "done, partial (the deal's end only: the earlier positions "
                                                    "are past the budget), too-large, hands-unknown; computing "
                                                    "with 202; failed (not kept: tried again after a restart)."})
    message = fields.String(metadata={"description": "The status in words, in the request's language."})
    players = fields.List(fields.String())
    stake = fields.Integer()
    thresholds = fields.Dict(metadata={"description": "The fewest chips lost for each mark."})
    decision_points = fields.Integer(metadata={"description": "The deal's plays and passes kept in the log."})
    from_seq = fields.Integer(allow_none=True, metadata={"description": "The first event reviewed."})
    nodes = fields.Integer()
    decisions = fields.List(fields.Nested(AnalysedDecisionSchema))
    sampled = fields.Nested(SampledSchema, allow_none=True, metadata={"description": (
        "A deal settled by count: its unseen cards were drawn uniformly among the deals consistent with its "
        "record, and every figure is a mean over the samples (null: every hand was known).")})
    expected = fields.List(fields.Nested(ExpectedChipsSchema), metadata={"description": (
        "Each player's expected chips at the deal's end: before the first decision reviewed, then after each "
        "play or pass (the graph of the replay page).")})


def _compute(shared: Store, club: str, game: str, number: int, key: tuple[str, int, int, str], limit: int) -> None:
    segment = shared.deal_segment(club, game, number)
    if segment is None:
        return
    start, records = segment
    if (records[-1]["seq"], records[-1]["hash"]) != key[2:]:
        return  # the deal changed meanwhile: the next request asks for the new one
    analysis = analyse_deal(start, [(r["seq"], event_of(r)) for r in records], limit)
    shared.keep_deal_analysis(game, number, key[2], key[3], analysis)


@blp.route(f"/games/<game>/deals/<int(max={MAX_INT}):number>/analysis")
class Analysis(MethodView):
    @blp.response(200, DealAnalysisSchema)
    @blp.alt_response(202, schema=DealAnalysisSchema, description="Being computed (status computing): ask again "
                                                                  "after Retry-After seconds.")
    @blp.alt_response(409, description="The deal is not settled yet (deal-not-settled).")
    def get(self, game: str, number: int) -> Response:
        """What each decision of settled deal `number` cost, under best play by all (docs/ANALYSIS.md).

        Computed once, off the request, and kept: the first request answers 202 (`Retry-After`), and so does
        every request while it runs; then 200. A deal too large for the search's budget answers 200 with
        `status: too-large` (or `partial`: its end only).
        """
        token = reader()
        shared = store()
        segment = shared.deal_segment(token.club_id, game, number)
        if segment is None:
            raise Problem(404, "not-found", "Game {game!r} has no deal {number}.",
                          params={"game": game, "number": number})
        start, records = segment
        try:
            end = reduce(fold, [event_of(record) for record in records], start.copy())
        except Exception:  # noqa: BLE001 - the log was changed outside the ledger
            raise unreplayable(game, number) from None
        if end.deal is None or not end.deal.ended:
            raise Problem(409, "deal-not-settled", "Deal {number} is not settled yet: it can be analysed once it is.",
                          params={"number": number})
        head = {"seq": records[-1]["seq"], "hash": records[-1]["hash"]}
        kept = shared.deal_analysis(game, number, head["seq"], head["hash"])
        answer: dict[str, Any] = {"game": game, "deal": number, "head": head}
        if kept is None:
            key = (game, number, head["seq"], head["hash"])
            limit = int(current_app.config.get("NJ_LEDGER_ANALYSIS_LIMIT", DEFAULT_LIMIT))
            if not current_app.extensions[RUNS].start(key, lambda: _compute(shared, token.club_id, game, number, key,
                                                                             limit)):
                answer.update(status="failed", message=translate(SENTENCES["failed"]))
                return Response(orjson.dumps(answer), status=200, mimetype="application/json")
            answer.update(status="computing", message=translate(SENTENCES["computing"]))
            return Response(orjson.dumps(answer), status=202, mimetype="application/json",
                            headers={"Retry-After": str(RETRY_AFTER)})
        answer.update(kept)
        answer.setdefault("sampled", None)  # kept before deals settled by count were analysed
        answer["message"] = translate(SENTENCES[kept["status"]], {"from_seq": kept["from_seq"]})
        sampled = answer["sampled"]
        if sampled is not None:
            said = SENTENCES["sampled" if sampled["deals"] is not None else "sampled-uncounted"]
            answer["message"] += " " + translate(said, {"samples": sampled["samples"], "deals": sampled["deals"]})
        return Response(orjson.dumps(answer), status=200, mimetype="application/json")
