// An evening's results, published: the ranking with each round's score, the evening's rule and state, a CSV to
// download and a layout for paper (print.css). A share link of the evening opens it without signing in
// (`#share=…`); the results are final once the evening is closed.

import { $, ApiError, api, el, notify, requireSession, start, t } from "./common.js";
import { eveningPath, markText, scoreText } from "./marks.js";

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
      el("td", {}, row.name, row.withdrawn ? ` (${t("screen.withdrawn")})` : ""),
      el("td", { class: "num" }, scoreText(row.score)),
      el("td", { class: "num" }, row.games),
      el("td", { class: "num" }, scoreText(row.average)),
      el("td", { class: "num" }, row.adjustments ? scoreText(row.adjustments) : ""),
      rounds.map((r) => cell(byRound.get(r))));
  });
  $("#results").replaceChildren(el("table", { id: "results-table", class: "data results" },
    el("thead", {}, el("tr", {}, el("th", { class: "num" }, t("screen.rank")), el("th", {}, t("player")),
      el("th", { class: "num" }, t("screen.score")), el("th", { class: "num" }, t("screen.games")),
      el("th", { class: "num" }, t("results.average")), el("th", { class: "num" }, t("results.adjustments")),
      rounds.map((r) => el("th", { class: "num" }, t("evening.round", { round: r }))))),
    el("tbody", {}, rows)));
  $("#csv").addEventListener("click", download);
  $("#print").addEventListener("click", () => window.print());
}

start(main);
