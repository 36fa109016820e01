// The replay's analysis panel (docs/ANALYSIS.md): the decision made at the step shown, how far the review reaches
// in a player's words ("Reviewed exactly from the 9th card played to the end of the deal"), and the graph of each
// player's expected chips over the deal's steps, the step shown marked on it.

import { $, el, lang, t } from "./common.js";
import { chartElement } from "./chart.js";
import { handText } from "./describe.js";

/** "9th" ("9e" in French, of a card: "1re"). */
export function ordinal(n) {
  if (lang() === "fr") return n === 1 ? "1re" : `${n}e`;
  const form = new Intl.PluralRules("en", { type: "ordinal" }).select(n);
  return `${n}${{ one: "st", two: "nd", few: "rd" }[form] || "th"}`;
}

/** The index of the replay's step at event `seq`, or of the last step before it. */
function stepAt(steps, seq) {
  let found = 0;
  steps.forEach((step, i) => { if (step.seq <= seq) found = i; });
  return found;
}

/** How many cards had been laid in the deal before event `seq` (withdrawn plays are back in their hands). */
function cardsLaidBefore(steps, seq) {
  const sizes = (step) => (step.state.deal && step.state.deal.hand_sizes) || null;
  const dealt = steps.find((step) => sizes(step));
  const before = steps[Math.max(0, stepAt(steps, seq - 1))];
  if (!dealt || !sizes(before)) return 0;
  const total = (list) => list.reduce((sum, n) => sum + n, 0);
  return total(sizes(dealt)) - total(sizes(before));
}

/** How far the review reaches, in a player's words. */
export function reachText(analysis, steps) {
  const said = [];
  if (analysis.status === "done") said.push(t("analysis.exact_all"));
  else if (analysis.status === "partial") {
    said.push(t("analysis.exact_from", { nth: ordinal(cardsLaidBefore(steps, analysis.from_seq) + 1) }));
  } else if (analysis.status === "too-large") said.push(t("analysis.too_large"));
  else if (analysis.status === "hands-unknown") said.push(t("analysis.hands_unknown"));
  const sampled = analysis.sampled;
  if (sampled) {
    said.push(sampled.deals === null || sampled.deals === undefined
      ? t("analysis.sampled_many", { samples: sampled.samples })
      : t("analysis.sampled", { samples: sampled.samples, deals: sampled.deals }));
  }
  return said.join(" ");
}

/** The panel for the step shown: `page` is the replay's {deal, steps, index, analysis}. */
export function showAnalysis(page) {
  const box = $("#analysis");
  const analysis = page.analysis;
  if (!analysis || analysis.deal !== page.deal) { box.hidden = true; return; }
  box.hidden = false;
  if (analysis.status === "computing" || analysis.status === "failed") {
    $("#analysis-step").textContent = analysis.status === "computing" ? t("analysis.computing") : "";
    $("#analysis-status").textContent = analysis.status === "failed" ? t("analysis.failed") : "";
    $("#analysis-chart").replaceChildren();
    return;
  }
  const { steps } = page;
  const seq = steps[page.index].seq;
  const players = analysis.players.map((name) => ({ name }));
  const said = (action) => (action.type === "play" ? handText({ cards: action.cards }) : t("analysis.pass"));
  const here = analysis.decisions.filter((d) => d.seq === seq);
  // each decision, then (where it was valued) what it cost on the hands its player could not tell apart
  const lines = (d) => [el("span", { class: `mark mark-${d.mark}` },
    t("analysis.decision", { name: analysis.players[d.seat], played: said(d.action),
      best: d.best.length ? said(d.best[0]) : "—", lost: d.lost, mark: t(`analysis.mark.${d.mark}`) })),
  ...(d.fair ? [el("span", { class: `mark fair mark-${d.fair.mark}` },
    t("analysis.fair_estimated", { name: analysis.players[d.seat], samples: d.fair.samples,
      best: d.fair.best.length ? said(d.fair.best[0]) : "—", lost: d.fair.lost,
      mark: t(`analysis.mark.${d.fair.mark}`) }))] : [])];
  $("#analysis-step").replaceChildren(...(here.length ? here.flatMap(lines) : [t("analysis.not_here")]));
  $("#analysis-status").textContent = reachText(analysis, steps);
  // the graph: a point at each decision's step (the first, before the first decision reviewed)
  const points = analysis.expected.map((p) => ({ deal: stepAt(steps, p.seq) + 1, seq: p.seq, chips: p.values }));
  let marked = null;
  points.forEach((p, i) => { if (p.seq <= seq) marked = i; });
  $("#analysis-chart").replaceChildren(...(points.length > 1 ? chartElement(players, points, {
    title: "analysis.chart", axis: "analysis.step_axis", chips: "analysis.chips_axis", point: "analysis.point_step",
    mark: "analysis.marked", tick: (p) => String(p.deal), marked, markStep: page.index + 1, caption: true,
  }) : []));
}
