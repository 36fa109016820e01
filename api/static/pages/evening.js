// The director's page of a club evening: its rounds started one after the other, the table × round grid and what
// each table waits for (evening_grid.js), the standings and the close (evening_close.js), the decisions — players
// arriving or leaving, and the mends, each asking a reason, signed with the director's name (evening_mends.js) —
// the big screen frozen and revealed, the tables' codes and QR codes, the published results. Every question is
// asked in the page (dialog.js), never by a browser pop-up. It follows the evening's stream and the club's (a deal
// or a game ended).

import { $, ApiError, api, collator, el, notify, requireSession, session, start, t } from "./common.js";
import { follow } from "./follow.js";
import { proposedTables, seatEditor } from "./evening_seats.js";
import { markText } from "./marks.js";
import { ask } from "./dialog.js";
import { closeEvening, renderClosed, renderStandings } from "./evening_close.js";
import { renderGrid } from "./evening_grid.js";
import { renderDecisions, renderMendForm, setupMends } from "./evening_mends.js";
import { decide, directorPost, failureText, hooks, page, pagePath, path } from "./evening_state.js";
import { screenLink } from "./screen_link.js";

const LINKS_KEY = "nj-ledger.evening-links.";

let loads = 0;
/** Read the evening, its grid and its log; an answer overtaken by a later read is dropped (never drawn over it). */
async function load() {
  const ticket = ++loads;
  const [evening, grid, decisions, ranking] = await Promise.all([api(path()), api(path("grid")),
    api(path("decisions")), api(path("ranking"))]);
  if (ticket !== loads) return;
  page.evening = evening;
  page.grid = grid;
  page.decisions = decisions.decisions;
  page.ranking = ranking;
  render();
}

let again = null;
/** Read everything again soon (events come in bursts: a deal's end and the game's). */
function soon() {
  if (again) return;
  again = setTimeout(() => { again = null; load().catch(() => {}); }, 300);
}

// --- the summary and the round button ------------------------------------------------------------------------
function renderSummary() {
  const e = page.evening;
  $("#title").textContent = e.name;
  const bits = [e.date, t(`evening.status.${e.status}`),
    e.status === "closed" ? t("evening.rounds_played", { count: e.current_round })
      : t("evening.round_of", { round: e.current_round, rounds: e.rounds }),
    t("evening.players_tables", { players: e.players.filter((p) => p.present && !p.withdrawn).length,
      tables: e.tables.length }),
    t(`evening.rule.${e.ranking}`)];
  if (e.worst_pair !== null && e.worst_pair !== undefined) { // the seating's quality, said plainly
    bits.push(t("evening.pairs", { count: e.worst_pair })
      + (e.bound !== null && e.worst_pair <= e.bound ? ` (${t("evening.pairs_best")})` : ""));
  }
  if (e.ends_at) {
    const utc = /([zZ]|[+-]\d\d:?\d\d)$/.test(e.ends_at) ? e.ends_at : `${e.ends_at}Z`; // no offset: UTC
    bits.push(t("evening.ends_at", { at: new Date(utc).toLocaleString(document.documentElement.lang || "en",
      { dateStyle: "medium", timeStyle: "short" }) }));
  }
  const counts = e.counts;
  const alerts = [];
  for (const mark of ["missing", "unconfirmed"]) {
    if (counts[mark]) {
      alerts.push(el("strong", { class: "alert", dataset: { count: mark } },
        t("evening.count", { mark: markText(mark), count: counts[mark] })));
    }
  }
  $("#summary").replaceChildren(bits.join(" · "), ...(alerts.length ? [el("br"), ...alerts.flatMap((a, i) => (i ? [" · ", a] : [a]))] : []));
  const open = e.status === "open";
  const button = $("#start-round");
  const next = e.current_round + 1;
  button.hidden = !open || (next > e.rounds && !e.round_finished) || e.time_up;
  button.textContent = e.round_finished || e.current_round === 0
    ? t("evening.start_round", { round: next }) : t("evening.start_round_anyway", { round: next });
  button.classList.toggle("primary", e.round_finished || e.current_round === 0);
  button.hidden = button.hidden || next > e.rounds;
  $("#round-section").hidden = !open || e.time_up;
  $("#close-evening").hidden = !open;
  $("#screen-link").href = pagePath("screen");
  $("#results-link").href = pagePath("results");
  $("#mend-section").hidden = !open;
  $("#screen-section").hidden = !open;
}

// --- the big screen: its read-only link (screen_link.js), freeze and reveal ------------------------------------
function renderFreeze() {
  const e = page.evening;
  screenLink($("#screen-open"), page.club, page.id);
  const box = $("#freeze");
  const state = e.frozen_through !== null && e.frozen_through !== undefined
    ? el("p", { id: "frozen-state" }, "❄ ", t("screen.frozen_after", { round: e.frozen_through }))
    : el("p", { id: "frozen-state" }, t("evening.screen_live"));
  const rounds = el("select", { id: "freeze-round", "aria-label": t("evening.freeze") },
    [...Array(e.current_round + 1)].map((_, i) =>
      el("option", { value: i, selected: i === e.current_round }, t("evening.after_round", { round: i }))));
  const freeze = el("button", { type: "button", id: "freeze-button",
    onclick: (event) => decide({ type: "freeze", through_round: Number(rounds.value) }, event.target) }, t("evening.freeze"));
  const reveal = el("button", { type: "button", id: "reveal-button", disabled: e.frozen_through === null,
    onclick: (event) => decide({ type: "reveal" }, event.target) }, t("evening.reveal"));
  box.replaceChildren(state, rounds, freeze, reveal);
}

// --- the tables' codes and QR codes -----------------------------------------------------------------------------
function renderCodes() {
  $("#codes").replaceChildren(el("p", {}, t("evening.codes_explain", { page: `${document.body.dataset.phones || location.origin}/tables` })),
    el("ul", { class: "codes" }, page.evening.tables.map((tb) => el("li", {},
      t("evening.table_n", { table: tb.table }), ": ", el("strong", { class: "code" }, tb.code)))));
}

function showLinks(links) {
  $("#links").replaceChildren(...links.map((link) => el("figure", { class: "table-link", dataset: { table: link.table } },
    el("img", { src: `data:image/png;base64,${link.qr_png}`, alt: t("evening.qr_alt", { table: link.table }),
      width: 180, height: 180 }),
    el("figcaption", {}, el("strong", {}, t("evening.table_n", { table: link.table })), " · ",
      el("span", { class: "code" }, link.code), el("br"),
      el("a", { href: link.url, class: "link-url" }, link.url)))));
}

async function newLinks(event) {
  const button = event.currentTarget;
  const answer = await ask({ id: "links-dialog", title: t("evening.links_title"), text: t("evening.links_confirm"),
    yes: t("evening.links_yes"), no: t("evening.links_no") });
  if (!answer) return;
  button.disabled = true;
  try {
    const links = [];
    for (const tb of page.evening.tables) {
      links.push(await api(path("tables", String(tb.table), "links"), { method: "POST" }));
    }
    showLinks(links);
  } catch (failure) {
    notify(failureText(failure));
  } finally {
    button.disabled = false;
  }
}

// --- rounds, close, publish ------------------------------------------------------------------------------------
async function startRound(event, tables = null) {
  const e = page.evening;
  const force = !e.round_finished && e.current_round > 0;
  const button = event.currentTarget;
  if (force && !await ask({ id: "force-dialog", title: t("evening.force_title", { round: e.current_round + 1 }),
    text: t("evening.force_confirm"), yes: t("evening.force_yes", { round: e.current_round + 1 }),
    no: t("evening.force_no") })) return;
  button.disabled = true;
  try {
    const body = tables ? { force, tables: tables.filter((players) => players.length) } : { force };
    await directorPost(path("rounds"), body);
    page.seats = null;
    $("#seat-round").open = false;
    await load();
  } catch (failure) {
    notify(failureText(failure));
    if (failure instanceof ApiError && failure.status === 409) await load();
  } finally {
    button.disabled = false;
  }
}

async function publish(event) {
  event.target.disabled = true;
  try {
    const made = await api(`/clubs/${encodeURIComponent(page.club)}/shares`, {
      method: "POST", body: { evening: page.id, label: page.evening.name.slice(0, 120) } });
    const link = new URL(made.url, location.origin).href;
    const input = el("input", { id: "published-url", readonly: true, value: link, "aria-label": t("share.link") });
    input.addEventListener("focus", () => input.select());
    $("#published").replaceChildren(el("p", {}, t("evening.published_explain")), el("div", { class: "share-copy" }, input,
      el("a", { class: "button", href: link }, t("evening.open_results"))));
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  } finally {
    event.target.disabled = false;
  }
}

// --- the next round's tables set by hand -------------------------------------------------------------------------
function renderSeats() {
  const e = page.evening;
  const next = e.current_round + 1;
  const extra = next > e.rounds;
  $("#seat-summary").textContent = extra ? t("evening.extra_round", { round: next })
    : t("evening.seat_round", { round: next });
  const players = e.players.filter((p) => p.present && !p.withdrawn).map((p) => p.name).sort(collator().compare).join("\n");
  if (page.seats && (page.seats.round !== next || page.seats.players !== players)) page.seats = null;
  if (!$("#seat-round").open) return;
  if (!page.seats) page.seats = { round: next, players, tables: proposedTables(e, page.grid), picked: null };
  $("#seat-box").replaceChildren(seatEditor(page.seats, renderSeats));
  $("#start-seated").textContent = extra ? t("evening.start_extra", { round: next })
    : t("evening.start_seated", { round: next });
}

function render() {
  renderSummary();
  renderGrid();
  if (page.evening.status === "open") renderSeats();
  if (page.evening.status === "open") {
    // Not under the director's hands: a field in use, or a decision on its way (a refusal keeps what was typed).
    const focused = document.activeElement && $("#mend").contains(document.activeElement);
    if (!focused && !page.busy) renderMendForm();
    renderFreeze();
  }
  renderDecisions();
  renderCodes();
  renderStandings();
  renderClosed();
}

async function main() {
  requireSession();
  hooks.load = load;
  await Promise.all([load(), api(`/clubs/${encodeURIComponent(page.club)}/players?limit=500`)
    .then((found) => { page.members = found.players.map((p) => p.name); if (page.evening) render(); })
    .catch(() => {})]);
  const kept = sessionStorage.getItem(LINKS_KEY + page.id);
  if (kept) {
    showLinks(JSON.parse(kept));
    sessionStorage.removeItem(LINKS_KEY + page.id);
  }
  $("#start-round").addEventListener("click", (event) => startRound(event));
  $("#seat-round").addEventListener("toggle", renderSeats);
  $("#start-seated").addEventListener("click", (event) => startRound(event, page.seats?.tables ?? null));
  $("#close-evening").addEventListener("click", closeEvening);
  $("#new-links").addEventListener("click", newLinks);
  $("#print-links").addEventListener("click", () => window.print());
  $("#publish").addEventListener("click", publish);
  setupMends();
  follow(path("stream"), { after: page.evening.version, onEvent: soon });
  const me = session();
  if (me) {
    follow(`/clubs/${encodeURIComponent(page.club)}/stream`, { // the feed from its start, then each new event
      onEvent: (data) => { if (data.type === "deal_ended" || data.type === "game_ended") soon(); },
    });
  }
}

start(main);
