// A table of a club evening, on the table's phone. Opened by its QR code, the address carries the table's token
// (`/tables/{code}#token=…`): it is kept on this phone and the address keeps only `#table={code}`, so a reload
// still works and the secret does not stay on the screen. Typed by hand (`/tables`) or opened as `/tables/{code}`
// on a phone that holds no token of that table, the code joins the table (`POST /tables/{code}/join`): the token
// it answers is kept as the QR code's is, and the phone never signs in to the club (a phone already signed in to
// the club reads the table with the club's session). The page shows the table's game of the current round and
// opens its scorer; when the evening asks for confirmation, a player of the table confirms the result here, at the
// top of the page. Once a round is drawn, it says where the players of the round before sit now. It follows the
// table's stream (each decision of the evening: a round started by the director, a result confirmed) and reads
// the table again at once; it also reads it every few seconds (a game played on another phone, or the stream
// dropped).

import {
  $, ApiError, api, cleanCode, collator, el, keepTableToken, notify, session, start, t, tableSession,
} from "./common.js";
import { follow } from "./follow.js";
import { focusedControl, restoreFocus } from "./keep_focus.js";
import { markText } from "./marks.js";
import { claimed, meAlone, nextPanel, placeElsewhere, placeHere, seatList } from "./table_me.js";

const POLL_EVERY = 8000;
const page = {
  code: cleanCode(document.body.dataset.code), session: null, view: null, game: null, confirming: "", away: null,
};

/** The table's token from the address (`#token=…`), kept on this phone; the address then names the table only. */
function takeToken() {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (token && /^[\w-]{20,200}$/.test(token)) keepTableToken(page.code, token);
  if (token || !location.hash) history.replaceState(null, "", `${location.pathname}#table=${page.code}`);
}

/** A phone with nothing of this table's: the code joins it, and the new table token is kept as a QR code's is. */
async function join() {
  const joined = await api(`/tables/${page.code}/join`, { method: "POST", anonymous: true });
  keepTableToken(page.code, joined.token);
  page.session = tableSession(page.code) ?? { token: joined.token, table: page.code };
  asTablesPhone();
}

/** A table's phone goes nowhere else: the header's club links are hidden (as common.js does for a kept token). */
function asTablesPhone() {
  for (const id of ["nav-scoreboard", "nav-evenings", "club-name"]) document.getElementById(id)?.setAttribute("hidden", "");
  document.querySelector(".site-header .links")?.setAttribute("hidden", "");
}

let loads = 0;
/** Read the table and its current game; an answer overtaken by a later read is dropped. */
async function load() {
  const ticket = ++loads;
  const view = await api(`/tables/${page.code}`, { session: page.session });
  const game = view.current && view.current.game
    ? await api(`/games/${encodeURIComponent(view.current.game)}`, { session: page.session }) : null;
  const me = view.status !== "closed" ? claimed(view) : null; // the player this phone follows, seated elsewhere?
  const away = me && !placeHere(view, me) ? await placeElsewhere(view, me) : null;
  if (ticket !== loads) return;
  page.view = view;
  page.game = game;
  page.away = away;
  render();
}

function scorerHref(game) {
  return `/games/${encodeURIComponent(game)}/record#table=${page.code}`; // its way back here once the game ends
}

function standings() {
  const players = [...page.game.players].sort((a, b) => b.chips - a.chips || collator().compare(a.name, b.name));
  return el("table", { class: "data standings" },
    el("thead", {}, el("tr", {}, el("th", {}, t("player")), el("th", { class: "num" }, t("chips")))),
    el("tbody", {}, players.map((p) => el("tr", {}, el("td", {}, p.name), el("td", { class: "num" }, p.chips)))));
}

function confirmPanel(current) {
  const choices = current.players.map((name) => el("label", { class: "check pick-player" },
    el("input", { type: "radio", name: "confirmer", value: name, checked: page.confirming === name,
      onchange: () => { page.confirming = name; button.disabled = false; } }), " ", name));
  const button = el("button", { type: "button", id: "confirm", class: "primary", disabled: !page.confirming,
    onclick: () => confirm(current.game) }, t("table.confirm_button"));
  return el("section", { id: "confirm-panel", class: "confirm-panel" },
    el("h2", {}, t("table.confirm_title")),
    el("p", {}, t("table.confirm_explain")),
    el("fieldset", {}, el("legend", {}, t("table.confirm_who")), choices),
    button);
}

async function confirm(game) {
  try {
    page.view = await api(`/tables/${page.code}/confirmations`, {
      method: "POST", body: { game, player: page.confirming }, session: page.session,
    });
    loads += 1; // a read sent before the confirmation would show the result unconfirmed again
    notify(t("table.confirmed", { player: page.confirming }), "info");
    page.confirming = "";
    render();
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  }
}

/** The player this phone follows was claimed or let go: drawn at once, their other tables read if need be. */
function claimChanged(focus) {
  page.away = null;
  render();
  $(focus)?.focus();
  if (page.view && claimed(page.view) && !placeHere(page.view, claimed(page.view))) load().catch(() => {});
}

function render() {
  const view = page.view;
  $("#title").textContent = t("table.title", { table: view.table, name: view.name });
  const me = view.status !== "closed" ? claimed(view) : null;
  const mine = me ? nextPanel(view, placeHere(view, me) ?? page.away, me, claimChanged) : null;
  const parts = mine ? [mine] : []; // first: the player holding this phone looks for their table
  parts.push(el("p", { class: "table-code" }, t("table.code", { code: view.code }), " · ",
    view.current_round ? t("table.round", { round: view.current_round }) : t("table.not_started")));
  if (view.status === "closed") parts.push(el("p", { class: "notice info" }, t("table.closed")));
  const current = view.current;
  if (current && view.confirmation && current.mark === "unconfirmed" && view.status !== "closed") {
    parts.push(confirmPanel(current)); // first: the phone comes back here from the scorer to confirm
  }
  if (current && view.status !== "closed" && roundDone(current)) {
    parts.push(el("p", { id: "waiting-next", class: "waiting-next" }, current.confirmed_by
      ? t("table.confirmed_waiting", { player: current.confirmed_by }) : t("table.waiting_next")));
  }
  if (view.moves) parts.push(movesList(view.moves, view.table));
  if (current) {
    parts.push(el("section", { id: "current", class: "table-current", dataset: { mark: current.mark } },
      el("h2", {}, t("table.current", { round: current.round })),
      el("p", { class: `cell-mark mark-${current.mark}` }, markText(current.mark)),
      ...seatList(view, current.players, me, Boolean(mine), claimChanged),
      page.game ? el("p", { class: "hint" }, t("deals_played", { count: page.game.deals_played })) : null,
      page.game && page.game.status === "ended" ? standings() : null,
      current.confirmed_by ? el("p", { id: "confirmed-by", class: "ok-line" }, "✓ ",
        t("table.confirmed_by", { player: current.confirmed_by })) : null,
      current.mark !== "voided" && view.status !== "closed" && page.game?.status !== "ended"
        ? el("a", { id: "score", class: "button primary big-button", href: scorerHref(current.game) }, t("table.score"))
        : el("a", { id: "score", class: "button", href: scorerHref(current.game) }, t("table.see_game"))));
  } else {
    parts.push(el("p", { class: "empty" }, t("table.waiting")));
    const alone = meAlone(view, me, Boolean(mine), claimChanged);
    if (alone) parts.push(alone);
  }
  if (view.next) {
    parts.push(el("p", { id: "next", class: "hint" }, t("table.next", { players: view.next.join(", ") })));
  }
  if (view.games.length) {
    parts.push(el("h2", {}, t("table.games")), el("ul", { class: "table-games" }, view.games.map((g) =>
      el("li", {}, t("table.round", { round: g.round }), " · ", g.players.join(", "), " · ",
        el("span", { class: `cell-mark mark-${g.mark}` }, markText(g.mark))))));
  }
  const box = $("#table-view");
  const focused = focusedControl(box); // read every few seconds: the keyboard's focus stays where it was
  box.replaceChildren(...parts);
  if (focused !== "*") restoreFocus(box, focused); // a control with no name of its own is not guessed
}

/** The table's game of the round counts (or was voided): the table waits for the director's next round. */
function roundDone(current) {
  return current.mark === "counted" || current.mark === "voided";
}

/** Where the players of this table in the round before sit in the round just drawn, each table's page a tap away. */
function movesList(moves, table) {
  return el("section", { id: "moves", class: "table-moves" },
    el("h2", {}, t("table.moves_title", { round: moves.round })),
    el("ul", {}, moves.players.map((p) => {
      if (p.stays) return el("li", { class: "stays" }, t("table.moves_stays", { name: p.name, table }));
      if (p.table === null) return el("li", { class: "out" }, t("table.moves_out", { name: p.name }));
      return el("li", {}, t("table.moves_goes", { name: p.name, table: p.table }),
        ...(p.code ? [" · ", el("a", { href: `/tables/${p.code}` }, t("table.code", { code: p.code }))] : []));
    })));
}

function askCode(typed = "") {
  const form = $("#code-form");
  form.hidden = false;
  $("#title").textContent = t("table.enter_code");
  if (typed) $("#code").value = typed;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const code = cleanCode($("#code").value);
    if (!code) {
      notify(t("table.bad_code"));
      return;
    }
    location.assign(`/tables/${code}`);
  });
}

async function main() {
  if (!page.code) {
    askCode();
    return;
  }
  page.session = tableSession(page.code) ?? session();
  try {
    if (!page.session) await join();
    await load().catch(async (failure) => {
      if (!(failure instanceof ApiError && failure.status === 401)) throw failure;
      await join(); // the token (or the club's session) kept here is no longer valid: the code joins the table
      await load();
    });
  } catch (failure) {
    if (failure instanceof ApiError && [401, 404, 429].includes(failure.status)) {
      // the join's refusals say what happened (no open table, too many tries); the club's session, what it may open
      const joining = ["table-unknown", "too-many-joins"].includes(failure.code);
      notify(joining ? failure.message : t("table.unknown", { code: page.code }));
      askCode(page.code);
      return;
    }
    throw failure;
  }
  let soon = null; // decisions that come together (the log from its start, when the stream opens) read once
  follow(`/tables/${page.code}/stream`, { onEvent: () => {
    if (soon === null) soon = setTimeout(() => { soon = null; load().catch(() => {}); }, 250);
  } });
  setInterval(() => { if (!document.hidden) load().catch(() => {}); }, POLL_EVERY);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) load().catch(() => {}); });
}

if (page.code) takeToken(); // before the header is set up: a table's phone shows no club links
start(main);
