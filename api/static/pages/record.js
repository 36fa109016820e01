// The table scorer, for a phone. A turn is its cards tapped (only cards some seat may lay now are
// enabled; those only a new run could bring are drawn apart), then one tap on the seat that laid them in
// the bar kept under the card grid: the passes in between are recorded with the play, honours laid are
// pre-ticked as announced. A loser's hand is told by count (points typed, honours held ticked) or tapped
// card by card. Undo asks for a reason, and for a confirmation before it withdraws a settlement; Redo
// sends back what was withdrawn. Every action goes out with its own Idempotency-Key, reused on retry.
//
// No tap is lost with the connection: each action is first written to the outbox (IndexedDB, outbox.js), then
// sent, in order, and removed only when the server acknowledged it; what could not be sent is sent again when
// the connection returns, when the page opens and every 15 seconds. A badge says how many wait. While actions
// wait, the page shows the state they give as the server will compute it: the core's own rules run in the page
// (core.js: Pyodide in a worker, loaded when the connection drops or an action gets no answer), the log kept
// replayed and each waiting action applied, and what may be tapped is what those rules accept; the server's
// answers replace that state as they come. Until the core has loaded (or if it cannot), the taps are held while
// an action waits (see docs/OFFLINE.md). What may be tapped is always the rules' own answer: the core's in the page,
// else the server's (record_taps.js). A tap made on a state another phone has moved on (409) is sorted out in
// `reconcile` (record_reconcile.js).
//
// The page's modules: record_page.js (its state, shared), record_core.js (the state shown), record_taps.js (what
// may be tapped on it: the core's answer in the page, else the server's), record_server.js (the
// game as the server has it), record_outbox.js (sending), record_reconcile.js (two phones), record_keys.js (buttons
// and the card grid), record_play.js (a deal in play), record_reveal.js (the settlement), record_mend.js (undo, redo).

import { $, ApiError, el, notify, requireSession, start, t, tableSession } from "./common.js";
import { keepRuntime } from "./core.js";
import { tableReturn } from "./table_return.js";
import { follow } from "./follow.js";
import { focusedControl, restoreFocus } from "./keep_focus.js";
import { keptGame, waiting } from "./outbox.js";
import { cardText, wantedCall } from "./cards.js";
import { describe } from "./describe.js";
import {
  boardElement, gameOverSentences, runElement, seatName, settlementSentences, tableElement,
} from "./table.js";
import { project, wantCore } from "./record_core.js";
import { refreshTaps, tapsNow } from "./record_taps.js";
import { button } from "./record_keys.js";
import { mendRow } from "./record_mend.js";
import { flush, outboxElement, send } from "./record_outbox.js";
import { dealEvents, drawWith, gameUrl, held, page } from "./record_page.js";
import { chooseSeat, playingControls, receivingSeat } from "./record_play.js";
import { revealControls } from "./record_reveal.js";
import { catchUp, noAnswer, reload, streamed } from "./record_server.js";

const RESEND_EVERY = 15_000;

// --- between deals ---------------------------------------------------------------------------------------------
function readyControls() {
  const state = page.state;
  const first = state.deals_played === 0 && !state.deal;
  const dealer = first && page.dealer !== null ? page.dealer : state.next_dealer;
  const parts = [];
  if (first) {
    parts.push(el("label", {}, t("dealer"), " ", el("select", {
      id: "dealer", onchange: (event) => { page.dealer = Number(event.target.value); render(); },
    }, state.players.map((p) => el("option", { value: p.seat, selected: p.seat === dealer }, p.name)))));
  }
  const action = { type: "deal" };
  if (first) action.dealer = dealer;
  parts.push(el("div", { class: "buttons" },
    button(t("deal_button", { name: seatName(state, dealer), deal: state.deals_played + 1 }),
      () => send([action]), { primary: true, id: "deal" }),
    page.confirmEnd
      ? button(t("end_confirm"), () => send([{ type: "end", reason: "agreed at the table" }]), { id: "end" })
      : button(t("end_button"), () => { page.confirmEnd = true; render(); }, { id: "end" })));
  parts.push(...mendRow());
  return parts;
}

// --- the page ----------------------------------------------------------------------------------------------
function statusLine() {
  const state = page.state;
  const d = state.deal;
  switch (state.status) {
    case "ready":
      return [t("status_line.ready", { name: seatName(state, state.next_dealer), deal: state.deals_played + 1 })];
    case "playing":
      return d.expected
        ? [t("status_line.turn", { name: seatName(state, d.turn), deal: d.number }), " ",
          el("span", { class: "call" }, wantedCall(d.expected))]
        : [t("status_line.new_run", { name: seatName(state, d.turn), deal: d.number })];
    case "revealing":
      return [t("status_line.revealing", { names: d.awaiting_reveal.map((s) => seatName(state, s)).join(", ") })];
    default:
      return [t("status_line.ended")];
  }
}

function lastAction() {
  const actions = dealEvents().filter((e) => ["play", "pass", "reveal", "undo", "deal"].includes(e.type));
  const last = actions[actions.length - 1];
  if (!last || page.state.status === "ready" || page.state.status === "ended") return null;
  const withdrawn = last.type === "undo" ? page.state.redo : null; // what the undo withdrew, which Redo sends back
  const told = withdrawn && ["play", "pass", "reveal"].includes(withdrawn.type)
    ? t(`undone.${withdrawn.type}`, { name: seatName(page.state, withdrawn.seat),
      cards: (withdrawn.cards || []).map(cardText).join(" ") })
    : describe(last, null, page.state, dealEvents()).text.join(" ");
  return el("p", { class: "last" }, t("last_action"), " ", told);
}

function settlement() {
  const state = page.state;
  if (!state.deal || !["ready", "ended"].includes(state.status)) return [];
  // The last settlement: an undo may have withdrawn an earlier one, settled again since.
  const events = dealEvents();
  const at = events.map((e) => e.type).lastIndexOf("deal_ended");
  const cause = events.slice(0, Math.max(at, 0)).map((e) => e.type)
    .reduce((found, type, index) => (["play", "reveal"].includes(type) ? index : found), 0);
  const lines = at >= 0 ? settlementSentences(state, events[at], events.slice(cause, at + 1)) : [];
  if (state.status === "ended" && state.result) lines.push(...gameOverSentences(state, state.result));
  return lines.map((line) => el("p", {}, line));
}

function render() {
  const state = page.state;
  const d = state.deal;
  refreshTaps();
  const taps = tapsNow(); // what may be tapped, and the cards seen this deal
  $("#status").replaceChildren(...statusLine());
  $("#settlement").replaceChildren(...settlement());
  const centre = [boardElement(state)];
  if (d && state.status === "playing") centre.push(runElement(d));
  const choose = state.status === "playing" ? (seat) => chooseSeat(seat) : null;
  $("#table").replaceChildren(tableElement(state, {
    centre, onSeat: choose, chosen: state.status === "playing" ? receivingSeat(taps) : null,
  }));
  const controls = [];
  const outbox = outboxElement();
  if (outbox) controls.push(outbox);
  if (page.keptCopy && !page.local) controls.push(el("p", { class: "kept-copy", id: "kept-copy" }, t("outbox.kept_copy")));
  const last = lastAction();
  if (last) controls.push(last);
  if (state.status === "ready") controls.push(...readyControls());
  else if (state.status === "playing") controls.push(...playingControls(taps));
  else if (state.status === "revealing") controls.push(...revealControls(taps.seen));
  else controls.push(...mendRow());
  controls.unshift(...tableReturn(page.game, state, render)); // a club evening's game: back to its table
  const focused = focusedControl($("#controls"));
  $("#controls").replaceChildren(...controls);
  // While the taps are held the controls stay focusable (aria-disabled), so the focus never leaves the grid.
  $("#controls").setAttribute("aria-busy", String(held()));
  restoreFocus($("#controls"), focused);
  // Whatever is scrolled into view (a key, a focused field) stops above the bar fixed under the card grid.
  const bar = $("#record-bar");
  document.documentElement.style.scrollPaddingBottom = bar ? `${bar.offsetHeight + 8}px` : "";
}

drawWith(render);

/** The game when the page opens: from the server, else (no connection) the copy this phone kept. */
async function open() {
  try {
    await reload();
  } catch (failure) {
    if (!noAnswer(failure)) throw failure;
    const kept = await keptGame(page.game);
    if (!kept) throw new ApiError(0, { detail: t("outbox.no_copy") });
    page.known = { state: kept.state, events: kept.events };
    page.keptCopy = true;
    project();
    page.offline = true;
  }
}

async function main() {
  requireSession();
  await open();
  page.outbox = await waiting(page.game);
  project();
  // the game's title when it has one (two games of the same players are told apart), else its players
  const names = page.state.title || page.state.players.map((p) => p.name).join(", ");
  $("#title").textContent = t("record.title", { players: names });
  $("#replay-link").href = `${gameUrl()}/replay`;
  $("#audit-link").href = `${gameUrl()}/audit`;
  $("#sheet-link").href = `${gameUrl()}/sheet`;
  const table = tableSession();
  if (table) { // a club evening's table phone: its token reads this table's games only (no audit, no sheet)
    $("#replay-link").href = `${gameUrl()}/replay#table=${table.table}`;
    for (const id of ["#audit-link", "#sheet-link"]) {
      const link = $(id);
      if (link.previousSibling?.nodeType === Node.TEXT_NODE) link.previousSibling.remove();
      link.remove();
    }
    $("#replay-link").before(el("a", { id: "table-link", href: `/tables/${table.table}` }, t("table.back")), " · ");
  }
  render();
  window.addEventListener("online", () => { page.offline = false; flush().then(() => { if (!page.outbox.length) catchUp(); }); });
  window.addEventListener("offline", () => { page.offline = true; wantCore(); render(); });
  document.addEventListener("visibilitychange", () => { if (!document.hidden && !page.outbox.length) catchUp(); });
  setInterval(() => flush(), RESEND_EVERY);
  // what another phone records appears here as it is recorded
  follow(`${gameUrl()}/stream`, { after: page.known.state.version, onEvent: streamed });
  if (page.offline && page.outbox.length) notify(t("outbox.offline"), "info");
  // the core's rules, for the state the waiting actions give: kept by the service worker now, loaded when needed
  // (over plain HTTP no service worker keeps it: loaded now, while the network is there, so that a page kept open
  // goes on through a deal without it)
  if (page.keptCopy || page.offline || !window.isSecureContext) wantCore();
  else keepRuntime();
  await flush();
}

start(main);
