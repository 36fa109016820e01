// An evening's results, published: the ranking with each round's score (a player with no result yet listed after
// the ranked ones, with no rank), the evening's rule and state, the director's mends — each with its amount in the
// evening's unit, its reason and who signed it — a CSV to download and a layout for paper (print.css). A share
// link of the evening opens it without signing in (`#share=…`); the results are final once the evening is closed.

import { $, ApiError, api, el, notify, requireSession, start, t } from "./common.js";
import { amountText, eveningPath, markText, mendText, scoreText } from "./marks.js";

const club = document.body.dataset.club;
const evening = document.body.dataset.evening;
const path = (...rest) => eveningPath(club, evening, ...rest);

async function download() {
  try {
    const response = await api(path("ranking?format=csv"), { raw: true, accept: "text/csv" });
    const url = URL.createObjectURL(await response.blob());
    const link = el("a", { href: url, download: `evening-${evening}.csv` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  }
}

function cell(round) {
  if (!round) return el("td", { class: "num" }, "");
  if (round.score === null) return el("td", { class: "num", title: t(`cell.${round.mark}`) }, markText(round.mark));
  return el("td", { class: "num" }, scoreText(round.score), round.mark === "awarded" ? " ★" : "");
}

/** The director's mends: what changed a score or a game, why, and who decided it. */
function renderMends(ranking) {
  const mends = ranking.mends ?? [];
  $("#mends-section").hidden = !mends.length;
  $("#results-mends").replaceChildren(...mends.map((mend) => el("li", { dataset: { type: mend.type, seq: mend.seq } },
    el("strong", {}, mendText(mend.type, mend, ranking.rule)),
    mend.type === "game_voided" && mend.players ? ` (${mend.players.join(", ")})` : "",
    el("span", { class: "reason" }, " — ", t("mend.because", { reason: mend.reason })),
    mend.signed_by ? el("span", { class: "hint by" }, " · ", t("mend.by", { name: mend.signed_by })) : null)));
}

async function main() {
  requireSession();
  const [info, ranking] = await Promise.all([api(path()), api(path("ranking"))]);
  $("#title").textContent = t("results.title", { name: info.name });
  $("#results-meta").textContent = [info.date, t(`evening.rule.${info.ranking}`),
    t("results.rounds", { count: ranking.through_round }),
    info.status === "closed" ? t("results.final") : t("results.not_final")].join(" · ");
  const rounds = [...Array(ranking.through_round)].map((_, i) => i + 1);
  const rows = ranking.rows.map((row) => {
    const byRound = new Map();
    for (const r of row.rounds) byRound.set(r.round, byRound.has(r.round) ? byRound.get(r.round) : r);
    return el("tr", { dataset: { name: row.name } },
      el("td", { class: "num" }, row.rank ?? "–"),
      el("td", {}, row.name, row.withdrawn ? ` (${t("screen.withdrawn")})` : "",
        !row.withdrawn && row.rank === null ? el("span", { class: "hint" }, ` (${t("results.no_result")})`) : null),
      el("td", { class: "num" }, scoreText(row.score)),
      el("td", { class: "num" }, row.games),
      el("td", { class: "num" }, scoreText(row.average)),
      el("td", { class: "num" }, row.adjustments ? amountText(row.adjustments, ranking.rule) : ""),
      rounds.map((r) => cell(byRound.get(r))));
  });
  $("#results").replaceChildren(el("table", { id: "results-table", class: "data results" },
    el("thead", {}, el("tr", {}, el("th", { class: "num" }, t("screen.rank")), el("th", {}, t("player")),
      el("th", { class: "num" }, t("screen.score")), el("th", { class: "num" }, t("screen.games")),
      el("th", { class: "num" }, t("results.average")), el("th", { class: "num" }, t("results.adjustments")),
      rounds.map((r) => el("th", { class: "num" }, t("evening.round", { round: r }))))),
    el("tbody", {}, rows)));
  renderMends(ranking);
  $("#csv").addEventListener("click", download);
  $("#print").addEventListener("click", () => window.print());
}

start(main);
