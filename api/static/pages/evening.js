// The director's page of a club evening: its rounds started one after the other, the table × round grid (a game
// missing or unconfirmed stands out by its sign and word, not by colour alone), the decisions — players arriving or
// leaving, and the mends (an adjustment, a game voided, a withdrawal, a score awarded), each asking a reason and
// listed afterwards with who made it — the big screen frozen and revealed, the tables' codes and QR codes, the
// close and the published results. It follows the evening's stream and the club's (a deal or a game ended).

import { $, ApiError, api, el, newKey, notify, requireSession, session, start, t } from "./common.js";
import { follow } from "./follow.js";
import { proposedTables, seatEditor } from "./evening_seats.js";
import { eveningPath, markText, scoreText } from "./marks.js";

const page = {
  club: document.body.dataset.club,
  id: document.body.dataset.evening,
  evening: null,
  grid: null,
  decisions: [],
  kind: "adjustment",
  busy: false,
  members: [], // the club's players, offered to arrive
  seats: null, // the next round's tables being set by hand: {round, players, tables, picked}
  confirming: {}, // game → the player of its table picked to confirm it from the grid
};
const LINKS_KEY = "nj-ledger.evening-links.";
const MEND_KINDS = ["adjustment", "void", "withdrawal", "award", "arrival", "departure"];
const path = (...rest) => eveningPath(page.club, page.id, ...rest);
const pagePath = (...rest) => [`/clubs/${encodeURIComponent(page.club)}/evenings/${encodeURIComponent(page.id)}`,
  ...rest].join("/");

let loads = 0;
/** Read the evening, its grid and its log; an answer overtaken by a later read is dropped (never drawn over it). */
async function load() {
  const ticket = ++loads;
  const [evening, grid, decisions] = await Promise.all([api(path()), api(path("grid")), api(path("decisions"))]);
  if (ticket !== loads) return;
  page.evening = evening;
  page.grid = grid;
  page.decisions = decisions.decisions;
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
  if (e.worst_pair !== null && e.worst_pair !== undefined) {
    bits.push(t("evening.pairs", { count: e.worst_pair, bound: e.bound }));
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

// --- the grid ----------------------------------------------------------------------------------------------------
function cellElement(cell) {
  if (!cell) return el("td", { class: "cell empty-cell" }, "—");
  const attrs = { class: `cell mark-${cell.mark}`, dataset: { round: cell.round, table: cell.table, mark: cell.mark } };
  const players = el("div", { class: "cell-players" }, cell.players.join(", "));
  const mark = el("div", { class: "cell-mark" }, markText(cell.mark));
  const more = [];
  if (cell.game) {
    more.push(el("div", { class: "hint" }, t("deals_played", { count: cell.deals_played ?? 0 })));
    if (cell.confirmed_by) more.push(el("div", { class: "hint" }, t("evening.confirmed_by", { player: cell.confirmed_by })));
    more.push(el("a", { href: `/games/${encodeURIComponent(cell.game)}/record` }, t("link.record")));
    if (cell.mark === "unconfirmed" && page.evening.status === "open") more.push(confirmForm(cell));
  }
  return el("td", attrs, mark, players, ...more);
}

/** The director confirms a result from the grid, for a player of its table who says it is right. */
function confirmForm(cell) {
  const chosen = page.confirming[cell.game] ?? "";
  const who = el("select", { class: "confirm-player", "aria-label": t("evening.confirm_who"),
    onchange: (event) => { page.confirming[cell.game] = event.target.value; } },
  el("option", { value: "" }, t("evening.confirm_who")),
  cell.players.map((name) => el("option", { value: name, selected: name === chosen }, name)));
  const send = async (event) => {
    event.preventDefault();
    const player = who.value;
    if (!player) {
      notify(t("evening.confirm_pick"));
      return;
    }
    const button = event.target.querySelector("button");
    button.disabled = true;
    try {
      await api(path("confirmations"), { method: "POST", body: { game: cell.game, player }, key: newKey() });
      delete page.confirming[cell.game];
      notify(t("table.confirmed", { player }), "info");
      await load();
    } catch (failure) {
      button.disabled = false;
      notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    }
  };
  return el("form", { class: "cell-confirm no-print", onsubmit: send }, who,
    el("button", { type: "submit", class: "confirm-button" }, t("evening.confirm")));
}

/** The grid's rounds: every round while the evening is open (those not started yet marked so); once it is
 * closed, only the rounds played, and the tables that sat in one of them. */
function renderGrid() {
  const grid = page.grid;
  const shown = grid.status === "closed" ? Math.min(grid.current_round, grid.rounds) : grid.rounds;
  const rounds = [...Array(shown)].map((_, i) => i + 1);
  const head = el("tr", {}, el("th", {}, t("evening.table")),
    rounds.map((r) => (r <= grid.current_round
      ? el("th", { scope: "col", class: "started" }, t("evening.round", { round: r }))
      : el("th", { scope: "col", class: "planned" }, t("evening.round", { round: r }),
        el("div", { class: "hint" }, t("evening.round_waiting"))))));
  const rows = grid.tables
    .map((row) => ({ ...row, cells: row.cells.slice(0, shown) }))
    .filter((row) => row.cells.some((cell) => cell))
    .map((row) => el("tr", { dataset: { table: row.table } },
      el("th", { scope: "row" }, t("evening.table_n", { table: row.table }), el("div", { class: "hint code" }, row.code || "")),
      row.cells.map(cellElement)));
  $("#grid").replaceChildren(el("table", { id: "grid-table", class: "data evening-grid" }, el("thead", {}, head),
    el("tbody", {}, rows)));
}

// --- decisions and mends ---------------------------------------------------------------------------------------
const activePlayers = () => page.evening.players.filter((p) => !p.withdrawn);
const startedGames = () => page.grid.tables.flatMap((row) => row.cells.filter((c) => c && c.game));

function field(label, input) {
  return el("label", {}, label, " ", input);
}

function playerSelect(id, players) {
  return el("select", { id, required: true }, players.map((p) => el("option", { value: p.name }, p.name)));
}

/** A player ticked among others (arriving or leaving: several at once). */
function pickBox(kind, name) {
  return el("label", { class: "check member" }, el("input", { type: "checkbox", class: kind, value: name }), " ", name);
}

/** The mend form, drawn again (the evening changed, or its kind): what the director already chose or typed is kept,
 * unless `fresh` (a mend just recorded). */
function renderMendForm(fresh = false) {
  const e = page.evening;
  const form = $("#mend");
  const kept = fresh ? [] : [...form.querySelectorAll("select[id], input[id]")].map((input) => [input.id, input.value]);
  const ticked = fresh ? [] : [...form.querySelectorAll("input[type=checkbox]:checked")].map((box) => box.value);
  const kind = el("select", { id: "mend-kind", onchange: (event) => { page.kind = event.target.value; renderMendForm(); } },
    MEND_KINDS.map((k) => el("option", { value: k, selected: k === page.kind }, t(`mend.${k}`))));
  const fields = [field(t("mend.kind"), kind)];
  if (page.kind === "adjustment") {
    fields.push(field(t("mend.player"), playerSelect("mend-player", activePlayers())),
      field(t("mend.amount"), el("input", { id: "mend-amount", type: "number", step: "any", required: true,
        inputmode: "decimal" })));
  } else if (page.kind === "void") {
    fields.push(field(t("mend.game"), el("select", { id: "mend-game", required: true },
      startedGames().filter((c) => c.mark !== "voided").map((c) => el("option", { value: c.game },
        `${t("evening.round", { round: c.round })} · ${t("evening.table_n", { table: c.table })} — ${c.players.join(", ")}`)))));
  } else if (page.kind === "withdrawal") {
    fields.push(field(t("mend.player"), playerSelect("mend-player", activePlayers())));
  } else if (page.kind === "award") {
    fields.push(field(t("mend.player"), playerSelect("mend-player", activePlayers())),
      field(t("mend.round"), el("select", { id: "mend-round" },
        [...Array(Math.max(e.current_round, 1))].map((_, i) => el("option", { value: i + 1 }, i + 1)))),
      field(t("mend.score"), el("input", { id: "mend-score", type: "number", step: "any", required: true })));
  } else if (page.kind === "arrival") {
    const inEvening = new Set(e.players.map((p) => p.name.toLocaleLowerCase()));
    const back = e.players.filter((p) => !p.present && !p.withdrawn).map((p) => p.name);
    const club = page.members.filter((name) => !inEvening.has(name.toLocaleLowerCase()));
    const box = (name) => pickBox("arriving", name);
    if (back.length || club.length) {
      fields.push(el("fieldset", { id: "arrival-picks", class: "picks" }, el("legend", {}, t("mend.arriving")),
        back.length ? el("div", { class: "member-picks", id: "coming-back" },
          el("span", { class: "hint" }, t("mend.coming_back")), back.map(box)) : null,
        club.length ? el("div", { class: "member-picks", id: "club-members" },
          el("span", { class: "hint" }, t("mend.club_players")), club.map(box)) : null));
    }
    fields.push(field(back.length || club.length ? t("mend.new_players") : t("mend.arriving"),
      el("input", { id: "mend-names", autocomplete: "off", placeholder: t("mend.names_hint") })));
  } else if (page.kind === "departure") {
    fields.push(el("fieldset", { id: "departure-picks", class: "picks" }, el("legend", {}, t("mend.leaving")),
      el("div", { class: "member-picks" }, activePlayers().filter((p) => p.present).map((p) => pickBox("leaving", p.name)))));
  }
  fields.push(field(t("mend.reason"), el("input", { id: "mend-reason", maxlength: 500, required: true,
    autocomplete: "off", placeholder: t("mend.reason_hint") })));
  fields.push(el("button", { type: "submit", id: "mend-submit", class: "primary" }, t("mend.record")));
  form.replaceChildren(...fields);
  for (const [id, value] of kept) {
    const input = id === "mend-kind" ? null : form.querySelector(`#${id}`);
    // a select keeps its choice only while it still offers it (a player who left, a game voided meanwhile)
    if (input && (input.tagName !== "SELECT" || [...input.options].some((option) => option.value === value))) {
      input.value = value;
    }
  }
  for (const box of form.querySelectorAll("input[type=checkbox]")) box.checked = ticked.includes(box.value);
}

function mendBody() {
  const body = { type: page.kind, reason: $("#mend-reason").value.trim() };
  if (["adjustment", "withdrawal", "award"].includes(page.kind)) body.player = $("#mend-player").value;
  if (page.kind === "adjustment") body.amount = Number($("#mend-amount").value);
  if (page.kind === "void") body.game = $("#mend-game").value;
  if (page.kind === "award") {
    body.round = Number($("#mend-round").value);
    body.score = Number($("#mend-score").value);
  }
  if (page.kind === "arrival") {
    body.players = [...document.querySelectorAll("#mend input.arriving:checked")].map((box) => box.value)
      .concat($("#mend-names").value.split(/[\n,;]/).map((n) => n.trim()).filter(Boolean));
  }
  if (page.kind === "departure") {
    body.players = [...document.querySelectorAll("#mend input.leaving:checked")].map((box) => box.value);
  }
  return body;
}

/** Only a table's confirmation was recorded since `version`: the director's decision still means what it meant. */
async function onlyConfirmedSince(version) {
  const log = await api(path("decisions"));
  const since = log.decisions.filter((d) => d.seq > version);
  return since.length > 0 && since.every((d) => d.type === "result_confirmed") ? log.version : null;
}

/**
 * A director's write with `If-Match`, the evening's version as this page drew it: a decision recorded since is
 * refused (409), except that the tables' phones confirming results meanwhile do not turn the director's tap down
 * (it is sent again on the new version, a few times at most).
 */
async function directorPost(apiPath, body) {
  let version = page.evening.version;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api(apiPath, { method: "POST", body, ifMatch: version, key: newKey() });
    } catch (failure) {
      if (!(failure instanceof ApiError) || failure.status !== 409 || attempt >= 3) throw failure;
      const newer = await onlyConfirmedSince(version).catch(() => null);
      if (newer === null) throw failure;
      version = newer;
    }
  }
}

async function decide(body, button) {
  if (page.busy) return;
  page.busy = true;
  if (button) button.disabled = true;
  try {
    await directorPost(path("decisions"), body);
    notify(t("mend.recorded"), "info");
    await load();
    return true;
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    if (failure instanceof ApiError && failure.status === 409) await load();
    return false;
  } finally {
    page.busy = false;
    if (button) button.disabled = false;
  }
}

function decisionText(d) {
  const x = d.data;
  switch (d.type) {
    case "score_adjusted": return t("log.adjusted", { player: x.player, amount: scoreText(x.amount) });
    case "game_voided": return t("log.voided", { round: x.round, table: x.table });
    case "player_withdrawn": return t("log.withdrawn", { player: x.player });
    case "score_awarded": return t("log.awarded", { player: x.player, score: scoreText(x.score), round: x.round });
    case "presence_changed": return [
      x.arrived?.length ? t("log.arrived", { players: x.arrived.join(", ") }) : "",
      x.left?.length ? t("log.left", { players: x.left.join(", ") }) : ""].filter(Boolean).join(" ");
    case "round_started": return t("log.round", { round: x.round });
    case "result_confirmed": return t("log.confirmed", { player: x.player, round: x.round, table: x.table });
    case "leaderboard_frozen": return t("log.frozen", { round: x.through_round });
    case "leaderboard_revealed": return t("log.revealed");
    case "evening_closed": return t("log.closed");
    case "evening_created": return t("log.created");
    default: return d.type;
  }
}

function byText(by) {
  if (!by) return "";
  if (by.role === "table") return t("evening.table_n", { table: by.table });
  return by.label || by.role || "";
}

function renderDecisions() {
  const shown = page.decisions.filter((d) => d.mend || d.type === "presence_changed" || d.type === "evening_closed")
    .slice().reverse();
  const list = $("#mends");
  if (!shown.length) {
    list.replaceChildren(el("li", { class: "empty" }, t("mend.none")));
    return;
  }
  list.replaceChildren(...shown.map((d) => el("li", { class: d.mend ? "mend" : "presence", dataset: { seq: d.seq, type: d.type } },
    el("strong", {}, decisionText(d)),
    d.data.reason ? el("span", { class: "reason" }, " — ", t("mend.because", { reason: d.data.reason })) : null,
    el("span", { class: "hint" }, " · ", byText(d.by), " · ", new Date(d.recorded_at).toLocaleTimeString()))));
}

// --- the big screen: freeze and reveal -------------------------------------------------------------------------
function renderFreeze() {
  const e = page.evening;
  const box = $("#freeze");
  const state = e.frozen_through !== null && e.frozen_through !== undefined
    ? el("p", { id: "frozen-state" }, "❄ ", t("screen.frozen_after", { round: e.frozen_through }))
    : el("p", { id: "frozen-state" }, t("evening.screen_live"));
  const rounds = el("select", { id: "freeze-round" }, [...Array(e.current_round + 1)].map((_, i) =>
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
  if (!window.confirm(t("evening.links_confirm"))) return;
  event.target.disabled = true;
  try {
    const links = [];
    for (const tb of page.evening.tables) {
      links.push(await api(path("tables", String(tb.table), "links"), { method: "POST" }));
    }
    showLinks(links);
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  } finally {
    event.target.disabled = false;
  }
}

// --- rounds, close, publish ------------------------------------------------------------------------------------
async function startRound(event, tables = null) {
  const e = page.evening;
  const force = !e.round_finished && e.current_round > 0;
  if (force && !window.confirm(t("evening.force_confirm"))) return;
  event.target.disabled = true;
  try {
    const body = tables ? { force, tables: tables.filter((players) => players.length) } : { force };
    await directorPost(path("rounds"), body);
    page.seats = null;
    $("#seat-round").open = false;
    await load();
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    if (failure instanceof ApiError && failure.status === 409) await load();
  } finally {
    event.target.disabled = false;
  }
}

async function closeEvening(event) {
  const counts = page.evening.counts;
  if ((counts.missing || counts.unconfirmed)
      && !window.confirm(t("evening.close_unfinished", { missing: counts.missing, unconfirmed: counts.unconfirmed }))) {
    return;
  }
  const reason = window.prompt(t("evening.close_reason"), "");
  if (reason === null) return;
  event.target.disabled = true;
  try {
    await directorPost(path("close"), reason.trim() ? { reason: reason.trim() } : {});
    await load();
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  } finally {
    event.target.disabled = false;
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
  const players = e.players.filter((p) => p.present && !p.withdrawn).map((p) => p.name).sort().join("\n");
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
}

async function main() {
  requireSession();
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
  $("#mend").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = mendBody();
    if (["arrival", "departure"].includes(body.type) && !body.players.length) {
      notify(t(body.type === "arrival" ? "mend.no_arrival" : "mend.no_departure"));
      return;
    }
    if (await decide(body, $("#mend-submit"))) renderMendForm(true);
  });
  follow(path("stream"), { after: page.evening.version, onEvent: soon });
  const me = session();
  if (me) {
    follow(`/clubs/${encodeURIComponent(page.club)}/stream`, { // the feed from its start, then each new event
      onEvent: (data) => { if (data.type === "deal_ended" || data.type === "game_ended") soon(); },
    });
  }
}

start(main);
