// The evening's standings on the director's page, its close and the closed evening. The standings rank those who
// have a result; a player with no game counted yet is listed after them, with no rank. Closing asks in the page
// (no browser pop-up): it says which games will never count, takes an optional note, and its buttons say what
// they do. A closed evening shows its final results first and the way to the published results; nothing that
// no longer leads anywhere — no scorer links, no tables' codes or QR codes, no round or decision forms.

import { $, el, notify, t } from "./common.js";
import { ask } from "./dialog.js";
import { directorPost, failureText, hooks, page, pagePath, path } from "./evening_state.js";
import { scoreText } from "./marks.js";

/** Close the evening, after the in-page question (with its note). */
export async function closeEvening(event) {
  const button = event.currentTarget ?? event.target;
  const counts = page.evening.counts;
  const unfinished = counts.missing || counts.unconfirmed;
  const answer = await ask({
    id: "close-dialog", title: t("evening.close_title"),
    text: [unfinished ? t("evening.close_not_counted", { missing: counts.missing, unconfirmed: counts.unconfirmed })
      : null, t("evening.close_explain")],
    yes: t("evening.close_yes"), no: t("evening.close_no"),
    field: { label: t("evening.close_note"), hint: t("evening.close_note_hint"), maxlength: 500 },
  });
  if (!answer) return;
  button.disabled = true;
  try {
    await directorPost(path("close"), answer.value ? { reason: answer.value } : {});
    notify(t("evening.closed_notice"), "info");
    await hooks.load();
  } catch (failure) {
    notify(failureText(failure));
  } finally {
    button.disabled = false;
  }
}

function rankCell(row) {
  if (row.rank !== null && row.rank !== undefined) return el("td", { class: "num rank" }, row.rank);
  return el("td", { class: "num rank" }, "–");
}

function nameCell(row) {
  const note = row.withdrawn ? t("screen.withdrawn") : row.rank === null ? t("results.no_result") : null;
  return el("td", {}, row.name, note ? el("span", { class: "hint" }, ` (${note})`) : null);
}

/** The standings as they stand (open), or the final results (closed), with the way to the published results. */
export function renderStandings() {
  const ranking = page.ranking;
  if (!ranking) return;
  const closed = page.evening.status === "closed";
  $("#standings-title").textContent = closed ? t("screen.final") : t("evening.standings");
  const rows = ranking.rows.map((row) => el("tr", { dataset: { name: row.name, ranked: String(row.rank !== null) } },
    rankCell(row), nameCell(row), el("td", { class: "num" }, scoreText(row.score)), el("td", { class: "num" }, row.games)));
  $("#standings").replaceChildren(
    el("table", { id: "standings-table", class: "data standings" },
      el("thead", {}, el("tr", {}, el("th", { class: "num", scope: "col" }, t("screen.rank")),
        el("th", { scope: "col" }, t("player")), el("th", { class: "num", scope: "col" }, t("screen.score")),
        el("th", { class: "num", scope: "col" }, t("screen.games")))),
      el("tbody", {}, rows)),
    ...(closed ? [el("p", { class: "actions" }, el("a", { id: "final-results-link", class: "button primary",
      href: pagePath("results") }, t("evening.see_results")))] : []));
}

/** A closed evening: its final results first, its decisions listed, nothing that leads nowhere any more. */
export function renderClosed() {
  const closed = page.evening.status === "closed";
  $("#links-section").hidden = closed; // the tables' codes, scorer links and QR codes write nothing any more
  $("#mend-section").hidden = false; // the decisions made stay listed…
  $("#mend").hidden = closed; // …the form that makes them goes
  if (closed && $("#standings-section").nextElementSibling !== $("#grid-section")) {
    $("#grid-section").before($("#standings-section"));
  }
}
