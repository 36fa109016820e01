"""A settled deal's analysis by the solver (docs/ANALYSIS.md): computed once off the request, in a process of its
own (:mod:`api.analysis_workers`), kept as a projection."""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app
from flask.views import MethodView
from marshmallow import fields

from nj_ledger.application import DealNotSettled, deal_analysis

from .analysis_workers import SETTINGS, Analyses, Job, setting
from .auth import caller
from .context import store
from .dumping import Number, ViewSchema
from .i18n import translate
from .problems import PROBLEM_JSON, Problem
from .replay import blp
from .schemas import MAX_INT, ProblemSchema
from .sentences import N_

RUNS = "nj_ledger.deal_analyses"
RETRY_AFTER = 2  # seconds a client waits before asking again while the analysis runs
WAIT = {"Retry-After": {"description": "Seconds to wait before asking again.", "schema": {"type": "integer"}}}
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


def init_app(app: Flask) -> None:
    """The analyses of this process of the server; a setting that is not one stops the app here, not a request."""
    for name in SETTINGS:
        setting(name, app.config)
    app.extensions[RUNS] = Analyses()


class FairSchema(ViewSchema):
    samples = fields.Integer(metadata={"description": "How many deals consistent with what the player saw were "
                                                      "drawn and solved."})
    seed = fields.Integer(metadata={"description": "The seed they were drawn from."})
    deals = fields.Integer(allow_none=True, metadata={"description": "How many deals the player could not tell "
                                                                     "from the real one (null: too many to count)."})
    best = fields.List(fields.Dict(), metadata={"description": "The options worth the most on the samples' means."})
    values = fields.List(Number(), metadata={"description": "Each seat's mean chips after the choice."})
    best_values = fields.List(Number(), metadata={"description": "The same after the first best option."})
    lost = Number(metadata={"description": "What the choice lost on those means."})
    mark = fields.String(metadata={"description": "best, inaccuracy, mistake or blunder, on those means."})
    disagrees = fields.Boolean(metadata={"description": "The mark under full knowledge is another one."})


class AnalysedDecisionSchema(ViewSchema):
    seq = fields.Integer(metadata={"description": "The seq of the play or pass this decision is part of."})
    seat = fields.Integer()
    action = fields.Dict(metadata={"description": "The table action chosen (a play up to a run's end, or a pass)."})
    best = fields.List(fields.Dict(), metadata={"description": "The options worth the most to the seat."})
    values = fields.List(Number(), metadata={"description": "Each seat's chips at the deal's end after the "
                                                                    "choice, best play by all from there (integers; "
                                                                    "means over the samples where `sampled`)."})
    best_values = fields.List(Number(), metadata={"description": "The same under best play from before."})
    lost = Number(metadata={"description": "Chips the choice cost the seat (a mean where `sampled`)."})
    mark = fields.String(metadata={"description": "best, inaccuracy, mistake or blunder."})
    forced = fields.Boolean()
    line = fields.List(fields.Dict(), metadata={"description": "The best line from before the decision."})
    fair = fields.Nested(FairSchema, allow_none=True, metadata={"description": (
        "The decision valued on what its player could see: null past the budget, or for a deal settled by count.")})


class ExpectedChipsSchema(ViewSchema):
    seq = fields.Integer()
    values = fields.List(Number(), metadata={"description": "Each seat's expected chips at the deal's end."})


class SampledSchema(ViewSchema):
    samples = fields.Integer(metadata={"description": "How many completions of the unseen cards were analysed."})
    seed = fields.Integer(metadata={"description": "The seed they were drawn from (the same seed, the same deals)."})
    deals = fields.Integer(allow_none=True, metadata={"description": "How many deals are consistent with the "
                                                                     "record (null: too many to count)."})
    hidden = fields.Integer(metadata={"description": "The cards nobody saw."})


class DealAnalysisSchema(ViewSchema):
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


@blp.route(f"/games/<game>/deals/<int(max={MAX_INT}):number>/analysis")
class Analysis(MethodView):
    @blp.response(200, DealAnalysisSchema)
    @blp.alt_response(202, schema=DealAnalysisSchema, description="Being computed (status computing): ask again "
                                                                  "after Retry-After seconds.")
    @blp.alt_response(409, description="The deal is not settled yet (deal-not-settled).")
    @blp.alt_response(429, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=WAIT, description=(
        "The club has as many analyses waiting or being computed as it may (too-many-analyses)."))
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, headers=WAIT, description=(
        "The server has as many analyses waiting as it takes (analyses-busy)."))
    def get(self, game: str, number: int) -> dict[str, Any] | tuple[dict[str, Any], int, dict[str, str]]:
        """What each decision of settled deal `number` cost, under best play by all (docs/ANALYSIS.md).

        Computed once, off the request, in a process of the server's own, and kept: the first request answers
        202 (`Retry-After`), and so does every request while it runs; then 200. A deal too large for the
        search's budget answers 200 with `status: too-large` (or `partial`: its end only). A club may have a
        few analyses waiting or running at once (429 `too-many-analyses` past them), the server a few waiting
        (503 `analyses-busy`), both with `Retry-After`.
        """
        club = caller().club_id
        shared = store()
        try:
            found = deal_analysis(shared, club, game, number)
        except DealNotSettled as refusal:
            raise Problem(409, refusal.code, refusal.template, params=refusal.params) from None
        deal, kept = found.deal, found.kept
        answer: dict[str, Any] = {"game": game, "deal": number, "head": deal.head}
        if kept is None:
            job = Job(deal.key, club, shared, deal.start, deal.events, int(setting("NJ_LEDGER_ANALYSIS_LIMIT")))
            if not current_app.extensions[RUNS].start(job):
                answer.update(status="failed", message=translate(SENTENCES["failed"]))
                return answer
            answer.update(status="computing", message=translate(SENTENCES["computing"]))
            return answer, 202, {"Retry-After": str(RETRY_AFTER)}
        answer.update(kept)
        answer.setdefault("sampled", None)  # kept before deals settled by count were analysed
        answer["message"] = translate(SENTENCES[kept["status"]], {"from_seq": kept["from_seq"]})
        sampled = answer["sampled"]
        if sampled is not None:
            said = SENTENCES["sampled" if sampled["deals"] is not None else "sampled-uncounted"]
            answer["message"] += " " + translate(said, {"samples": sampled["samples"], "deals": sampled["deals"]})
        return answer
