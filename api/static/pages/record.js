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
// an action waits (see docs/OFFLINE.md). A tap made on a state another phone has moved on (409) is sorted out in
// `reconcile`.

import {
  $, ApiError, allEvents, api, clearNotice, counted, el, isSigningIn, newKey, notify, recordActions, requireSession, start,
  t, tableSession,
} from "./common.js";
import { keepRuntime, loadCore } from "./core.js";
import { tableReturn } from "./table_return.js";
import { follow } from "./follow.js";
import { focusedControl, restoreFocus } from "./keep_focus.js";
import { acknowledge, enqueue, keepGame, keptGame, remove, update, waiting } from "./outbox.js";
import {
  DECK, NBSP, announceable, cardElement, cardText, dealProgress, endsRun, honourCall, parseCard, parseExpected,
  wantedCall,
} from "./cards.js";
import { describe } from "./describe.js";
import {
  boardElement, boardOrder, gameOverSentences, runElement, seatName, settlementSentences, tableElement,
} from "./table.js";

const page = {
  game: document.body.dataset.game,
  known: null, // {state, events}: the game as the server last answered (or as this phone kept it)
  state: null, // the state shown: the server's, or the state the waiting actions give (`local`)
  events: [], // the log shown: the server's, then the records the waiting actions will make
  core: null, // the core's rules in the page (core.js), once loaded
  coreLoading: false,
  computing: false, // the core is computing the state shown (taps held until it answers)
  tapsKey: null, // what `taps` answers for: the projection, the cards tapped, the seat chosen
  tapsAsked: null,
  projected: 0, // how many projections the page has shown (a new one asks `taps` again)
  local: false, // the state shown is the core's, after every waiting action
  taps: null, // the core's answer of what may be tapped now
  seat: null, // who plays the cards being tapped (default: the seat to act)
  pending: [], // cards tapped, in order
  unticked: new Set(), // honours the player forgot to call
  revealSeat: null,
  revealing: [], // a loser's cards tapped one by one
  revealByCards: false, // the table shows the cards: tap them instead of counting
  points: "", // a loser's points said aloud
  held: new Set(), // honours a loser still holds
  undoing: false, // the undo panel is open (reason, confirmation)
  reason: "", // the undo's reason, as typed
  dealer: null, // first deal: the dealer chosen
  confirmEnd: false,
  busy: false,
  outbox: [], // the actions tapped and not yet acknowledged, oldest first (as kept in IndexedDB)
  sending: false, // the outbox is being sent
  offline: false, // the last attempt got no answer
  keptCopy: false, // the game shown is the copy this phone kept (no connection when the page opened)
};

const RESEND_EVERY = 15_000;
let atOnce = null; // {entry, refused}: the action just tapped, while it is sent at once
/**
 * Whether taps are held: something is on its way, or waits in the outbox and the next turn is not known (the core
 * has not loaded in the page, or an action waiting was refused or is in conflict).
 */
const held = () => page.busy || page.computing || !tapsReady() || (page.outbox.length > 0 && !page.local);

const gameUrl = () => `/games/${encodeURIComponent(page.game)}`;
const deal = () => page.state.deal;
const rules = () => page.state.rules;

function dealEvents() {
  let start = 0;
  page.events.forEach((event, index) => { if (event.type === "deal") start = index; });
  return page.events.slice(start);
}

// --- what may be tapped -----------------------------------------------------------------------------
/**
 * The seats that may lay the next cards: the seat to act, and when the run wants a card, any later
 * seat (the passes in between are recorded with its play). After a King only its player goes on.
 */
function candidateSeats() {
  const d = deal();
  if (page.seat !== null) return [page.seat];
  if (!d.expected) return [d.turn];
  return d.hand_sizes.map((_, index) => (d.turn + index) % d.hand_sizes.length);
}

/**
 * The cards that may open a play by `seat`: [] for any card, else the wanted {rank, suit}s.
 * A play from a later seat records the passes in between; when they complete the round (the
 * play comes from the seat that stopped, or from the first passer) the run is blocked first.
 */
function openings(seat, progress) {
  const d = deal();
  const expected = parseExpected(d.expected);
  if (!expected) return seat === d.turn ? [] : null;
  if (seat === d.turn) return [expected];
  const completes = seat === progress.lastPlayer || (d.passed.length > 0 && seat === d.passed[0]);
  if (!completes) return [expected];
  if (rules().blocked === "restart" || expected.rank === 13) return [];
  return [expected, { rank: expected.rank + 1, suit: expected.suit }]; // skip: the missing rank moves up
}

function follows(card, wanted) {
  if (rules().wild === card || wanted.length === 0) return true;
  const { rank, suit } = parseCard(card);
  return wanted.some((w) => rank === w.rank && (!w.suit || suit === w.suit));
}

/** Whether `cards`, in order, may be (the start of) a play by `seat`. */
function validFor(seat, cards, progress) {
  const d = deal();
  if (cards.length > d.hand_sizes[seat]) return false;
  if (d.hands && cards.some((card) => !d.hands[seat].includes(card))) return false;
  let wanted = openings(seat, progress);
  if (wanted === null) return false;
  for (const card of cards) {
    if (progress.seen.has(card) || !follows(card, wanted)) return false;
    if (endsRun(rules(), card)) wanted = [];
    else {
      const { rank, suit } = parseCard(card);
      wanted = [{ rank: rank + 1, suit: rules().sequence === "suit" ? suit : null }];
    }
  }
  return true;
}

/** The seats the tapped cards may be recorded for, the seat to act first (the core's answer when it runs here). */
function recordableSeats(progress) {
  if (page.taps) {
    const seats = page.taps.recordable;
    return candidateSeats().filter((seat) => seats.includes(seat));
  }
  return candidateSeats().filter((seat) => validFor(seat, page.pending, progress));
}

/** The seat the next cards go to: the one chosen, else the first that may lay what is tapped. */
function receivingSeat(progress) {
  if (page.seat !== null) return page.seat;
  const seats = recordableSeats(progress);
  return seats.length ? seats[0] : deal().turn;
}

function tappable(card, progress) {
  if (page.pending.includes(card)) return false;
  if (page.taps) return (page.taps.cards[card] || []).length > 0;
  const cards = [...page.pending, card];
  return candidateSeats().some((seat) => validFor(seat, cards, progress));
}

/** A card only the seat that would complete the round may lay (a new run): drawn apart on the keypad. */
function restartOnly(card, progress) {
  const d = deal();
  if (page.seat !== null || page.pending.length > 0) return false;
  return page.taps ? !(page.taps.cards[card] || []).includes(d.turn) : !validFor(d.turn, [card], progress);
}

function nextWanted() {
  if (page.pending.length === 0) return [];
  const last = page.pending[page.pending.length - 1];
  if (endsRun(rules(), last)) return [];
  const { rank, suit } = parseCard(last);
  return [{ rank: rank + 1, suit: rules().sequence === "suit" ? suit : null }];
}

function revealable(card, progress) {
  const d = deal();
  if (progress.seen.has(card) || page.revealing.includes(card)) return false;
  return page.revealing.length < d.hand_sizes[page.revealSeat];
}

function keypad(enabled, onTap, kind = () => null) {
  return el("div", { class: "keypad", role: "group", "aria-label": t("keypad") }, DECK
    .slice()
    .sort((a, b) => parseCard(a).rank - parseCard(b).rank || a.slice(-1).localeCompare(b.slice(-1)))
    .map((card) => el("button", {
      type: "button", class: ["key", /[DH]$/.test(card) ? "red" : "black", kind(card)].filter(Boolean).join(" "),
      dataset: { card }, disabled: !enabled(card) || held(), onclick: () => onTap(card),
    }, cardText(card))));
}

// --- sending: the outbox ----------------------------------------------------------------------------------
/** Add records to the log shown; answers false when they do not follow it (a gap: the log is read again). */
function merge(records) {
  const events = page.known.events;
  const last = events.length ? events[events.length - 1].seq : 0;
  const fresh = records.filter((record) => record.seq > last);
  if (fresh.length && fresh[0].seq !== last + 1) return false;
  events.push(...fresh);
  return true;
}

/** The page shows the game as the server answered (or as this phone kept it). */
function showKnown() {
  page.state = page.known.state;
  page.events = page.known.events;
  page.local = false;
  page.taps = null;
  page.tapsKey = null;
  page.tapsAsked = null;
}

let projecting = 0; // the latest projection asked for: an older answer is dropped

/**
 * What the page shows: the game as the server answered, or, when actions wait and the core runs in the page,
 * the state and records they give — the log replayed and each waiting action applied by the core's own rules,
 * as the server will apply them. Called whenever the server's copy or the outbox changes. The core answers
 * asynchronously (from its worker): until it has, the page keeps what it showed, its taps held.
 */
function project() {
  const mine = ++projecting;
  if (!page.core) {
    page.computing = false;
    showKnown();
    if (page.outbox.length && (page.offline || !navigator.onLine)) wantCore();
    return;
  }
  const batches = [];
  for (const entry of page.outbox) {
    if (entry.status !== "waiting") { // a refusal or a conflict: held until the scorer sorts it out
      page.computing = false;
      showKnown();
      return;
    }
    batches.push(entry.actions);
  }
  page.computing = true;
  const known = page.known;
  page.core.project(known.events, batches).then((projected) => {
    if (mine !== projecting) return;
    page.computing = false;
    page.projected += 1; // the core's worker now holds this state: what may be tapped is asked again
    showKnown();
    if (projected.applied === batches.length && batches.length) {
      page.state = { ...known.state, ...projected.state };
      page.events = [...known.events, ...projected.events];
      page.local = true;
    } // else the rules refuse a waiting action: the taps are held, the server will say why
    render();
  }, (failure) => {
    if (mine !== projecting) return;
    console.warn("the core could not replay this game in the page", failure);
    page.core = null;
    page.computing = false;
    showKnown();
    render();
  });
}

/**
 * Load the core's rules (once; again after a failure): when the connection drops, or an action waits with no
 * answer. Until then the page draws what the server answered, as it always did.
 */
function wantCore() {
  if (page.core || page.coreLoading) return;
  page.coreLoading = true;
  loadCore().then((core) => {
    page.core = core;
    document.body.dataset.core = `ready in ${Math.round(core.timing.total)} ms`;
    project();
    render();
  }, (failure) => console.warn("the core's rules could not be loaded in this page", failure))
    .finally(() => { page.coreLoading = false; });
}

const tapsKey = () => JSON.stringify([page.projected, page.pending, page.seat]);

/**
 * The core's answer of what may be tapped, for the state shown, the cards tapped so far and the seat chosen:
 * asked when one of them changed; until it comes, the taps are held.
 */
function refreshTaps() {
  if (!page.core || page.computing) return;
  const key = tapsKey();
  if (page.tapsKey === key || page.tapsAsked === key) return;
  page.tapsAsked = key;
  const mine = projecting;
  page.core.taps(page.pending, page.seat).then((taps) => {
    if (page.tapsAsked !== key || mine !== projecting) return;
    page.taps = taps;
    page.tapsKey = key;
    render();
  }, (failure) => { // the page goes back to what it did without the core
    console.warn("the core could not answer what may be tapped", failure);
    page.core = null;
    project();
    render();
  });
}

/** Whether the core's answer of what may be tapped is the one of what is on screen (or there is no core). */
const tapsReady = () => !page.core || (page.taps !== null && page.tapsKey === tapsKey());

function resetTurn() {
  page.seat = null;
  page.pending = [];
  page.unticked = new Set();
  page.revealing = [];
  page.revealSeat = null;
  page.points = "";
  page.held = new Set();
  page.undoing = false;
  page.reason = "";
  page.confirmEnd = false;
}

/** The game as the server has it now (its state and its whole log), kept on this phone for a later offline visit. */
async function reload() {
  const [state, events] = await Promise.all([api(gameUrl()), allEvents(page.game)]);
  page.known = { state, events };
  page.keptCopy = false;
  project();
  await keepGame(page.game, state, events);
}

/**
 * Catch up with what other phones recorded: the state and log read again and drawn. Today the page calls it when
 * it opens, when the connection returns and when it comes back into view; the game's stream
 * (GET /api/v1/games/{game}/stream) plugs in here: call it on each event the stream brings (or merge the event).
 */
async function catchUp() {
  if (page.sending || page.busy) return;
  try {
    await reload();
  } catch (failure) {
    if (isSigningIn(failure) || failure instanceof TypeError || (failure instanceof ApiError && failure.status === 0)) return;
    throw failure;
  }
  render();
}

let following = null; // a catch-up waiting for the page to be free (an action on its way)

/**
 * An event the game's stream brings: when the page has not shown it yet (another phone recorded it), the page
 * catches up at once, or as soon as what this phone is sending has been answered.
 */
function streamed(event) {
  if (!page.known || event.seq <= page.known.state.version) return;
  if (page.sending || page.busy || page.outbox.length) {
    if (!following) following = setTimeout(() => { following = null; streamed(event); }, 250);
    return;
  }
  catchUp();
}

/** A tapped action: kept in the outbox first (with its key and the version it was tapped on), then sent. */
async function send(actions, { redo = false } = {}) {
  const base = page.outbox.length ? null : page.known.state.version;
  const entry = await enqueue({ game: page.game, actions, key: newKey(), base, redo });
  atOnce = { entry, refused: false }; // sent at once: a refusal goes back to the controls, the tap kept to correct
  page.outbox.push(entry);
  project();
  render();
  await flush();
  const refused = atOnce.refused;
  atOnce = null;
  if (refused) return;
  resetTurn();
  project();
  render();
  const waits = $("#outbox"); // not sent and held: what waits, and why the cards are held, in view
  if (waits && !page.core) waits.scrollIntoView({ block: "center" });
}

const noAnswer = (failure) => failure instanceof TypeError
  || (failure instanceof ApiError && (failure.status === 0 || failure.status >= 500));

/** Send what waits, oldest first; stops at the first action not acknowledged (no answer, or a refusal). */
async function flush() {
  if (page.sending || !page.outbox.length) return;
  page.sending = true;
  page.busy = true;
  render();
  try {
    while (page.outbox.length && page.outbox[0].status === "waiting") {
      if (!navigator.onLine) {
        page.offline = true;
        break;
      }
      notify(t("saving"), "info");
      if (!(await sendFirst())) break;
    }
    if (page.offline) notify(t("outbox.offline"), "info");
  } catch (failure) {
    if (!isSigningIn(failure)) notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    if (!(failure instanceof ApiError) && !isSigningIn(failure)) console.error(failure);
  } finally {
    page.sending = false;
    page.busy = false;
    render();
  }
}

/** The outbox's first entry acknowledged: out of the outbox, the next one told the version it goes on. */
async function acknowledged(entry, answer) {
  const next = page.outbox[1];
  await acknowledge(entry.id, next, answer.state.version);
  page.outbox.shift();
  page.offline = false;
  page.known.state = answer.state;
  const events = page.known.events;
  if (!merge(answer.events) || events.length === 0 || events[events.length - 1].seq !== answer.state.version) {
    await reload(); // an answer kept from a first attempt, older than the game now: read it all again
  } else {
    project();
    await keepGame(page.game, page.known.state, page.known.events);
  }
}

/** Send the outbox's first entry; answers whether the next one may go. */
async function sendFirst() {
  const entry = page.outbox[0];
  try {
    const answer = await recordActions(page.game, entry.actions, {
      key: entry.key, version: entry.base ?? page.known.state.version,
      onRetry: (attempt) => notify(t("retrying", { attempt }), "info"),
    });
    await acknowledged(entry, answer);
    clearNotice();
    return true;
  } catch (failure) {
    if (isSigningIn(failure)) throw failure;
    if (noAnswer(failure)) {
      page.offline = true;
      return false;
    }
    if (!(failure instanceof ApiError)) throw failure;
    page.offline = false;
    clearNotice();
    if (failure.status === 409 && failure.code === "version-conflict") return reconcile(entry);
    if (atOnce && atOnce.entry === entry && failure.status === 422 && page.outbox.length === 1) {
      await remove(entry.id); // refused at once: nothing waits, the tap is still on screen to be corrected
      page.outbox.shift();
      project();
      atOnce.refused = true;
      notify(failure.message);
      return false;
    }
    await hold(entry, "refused", t("outbox.refused", { action: actionsText(entry.actions), detail: failure.message }));
    return false;
  }
}

/** Keep an entry in the outbox, out of the way of sending, with what happened and what to do. */
async function hold(entry, status, problem) {
  entry.status = status;
  entry.problem = problem;
  await update(entry);
  project();
}

// --- two phones: a tap made on a state another phone has moved on ------------------------------------------------
const TABLE_ACTIONS = ["deal", "play", "pass", "reveal", "undo", "adjust", "end", "game_ended"];

/** Whether the log's records since the tap already hold `action` (the same action by the same seat). */
function alreadyRecorded(action, since) {
  const sameCards = (a, b) => a.length === b.length && a.every((card, index) => card === b[index]);
  return since.some((record) => {
    const data = record.data || {};
    switch (action.type) {
      case "deal": return record.type === "deal";
      case "play": return record.type === "play" && data.seat === action.seat && sameCards(data.cards, action.cards);
      case "pass": return record.type === "pass" && data.seat === action.seat; // inferred by a later play, or tapped
      case "reveal": return record.type === "reveal" && data.seat === action.seat;
      case "end": return record.type === "game_ended";
      default: return false; // an undo, an adjustment: never taken for another one
    }
  });
}

/**
 * A 409: the game moved on since the tap (another phone recorded something). Each action found in the records
 * since is taken as recorded; else a play, pass or reveal still legal on the fresh state is sent again on it (the
 * server decides); an undo or a redo is never sent on a state it was not tapped on (it would withdraw something
 * else). Whatever is not recorded is held in the outbox with a sentence naming both actions.
 */
async function reconcile(entry) {
  const since = (await allEvents(page.game)).filter((record) => record.seq > (entry.base ?? 0));
  await reload();
  const theirs = othersText(since);
  if (entry.actions.every((action) => alreadyRecorded(action, since))) {
    await remove(entry.id);
    page.outbox.shift();
    if (page.outbox[0] && (page.outbox[0].base === null || page.outbox[0].base === undefined)) {
      page.outbox[0].base = page.known.state.version;
      await update(page.outbox[0]);
    }
    project();
    notify(t("outbox.already", { action: actionsText(entry.actions) }), "info");
    return true;
  }
  if (entry.actions.some((action) => ["undo", "adjust", "deal", "end"].includes(action.type)) || entry.redo) {
    await hold(entry, "conflict", t("outbox.conflict_undo", { action: actionsText(entry.actions), other: theirs }));
    return false;
  }
  entry.base = page.known.state.version;
  await update(entry);
  try {
    const answer = await recordActions(page.game, entry.actions, { key: entry.key, version: entry.base });
    await acknowledged(entry, answer);
    notify(t("outbox.applied", { action: actionsText(entry.actions), other: theirs }), "info");
    return true;
  } catch (failure) {
    if (isSigningIn(failure)) throw failure;
    if (noAnswer(failure)) {
      page.offline = true;
      return false;
    }
    if (!(failure instanceof ApiError)) throw failure;
    if (failure.status === 409) return false; // moved on again: sent again with the next try
    await hold(entry, "conflict", t("outbox.conflict", {
      action: actionsText(entry.actions), other: theirs, detail: failure.message,
    }));
    return false;
  }
}

/** An action in words, for the outbox and its conflicts ("Ana lays 5♥ 6♥"). */
function actionText(action) {
  const name = action.seat === undefined || action.seat === null ? "" : seatName(page.state, action.seat);
  switch (action.type) {
    case "play": return t("outbox.play", { name, cards: action.cards.map(cardText).join(" ") });
    case "pass": return t("outbox.pass", { name });
    case "reveal": return t("outbox.reveal", { name });
    case "deal": return t("outbox.deal");
    case "undo": return t("outbox.undo");
    case "end": case "game_ended": return t("outbox.end");
    default: return t("outbox.other");
  }
}

const actionsText = (actions) => actions.map(actionText).join(", ");

/** What the other phone recorded, from the log's records since the tap (inferred passes go with their play). */
function othersText(since) {
  const told = since.filter((record) => TABLE_ACTIONS.includes(record.type) && !(record.type === "pass" && record.data.inferred))
    .map((record) => actionText({ type: record.type, ...(record.data || {}) }));
  return told.length ? told.join(", ") : t("outbox.other");
}

/** The scorer takes an action out of the outbox (a refusal, a conflict, or a tap made by mistake while waiting). */
async function takeOut(entry) {
  await remove(entry.id);
  const at = page.outbox.findIndex((kept) => kept.id === entry.id);
  page.outbox.splice(at, 1);
  const first = page.outbox[0];
  if (first && (first.base === null || first.base === undefined)) {
    first.base = page.known.state.version;
    await update(first);
  }
  if (!page.outbox.length) clearNotice();
  project();
  render();
  flush();
}

/** The badge and the list of what waits, each with what happened to it and what to do. */
function outboxElement() {
  if (!page.outbox.length) return null;
  return el("section", { class: "outbox", id: "outbox", "aria-live": "polite" },
    el("p", { class: "outbox-head" },
      el("span", { class: "badge", id: "outbox-badge", dataset: { count: page.outbox.length } },
        t("outbox.badge", { count: page.outbox.length })),
      " ", el("span", { class: "hint" }, t(page.offline ? "outbox.offline_short"
        : page.outbox[0].status !== "waiting" ? "outbox.stopped" : "outbox.held"))),
    page.local ? el("p", { class: "hint local-state", id: "local-state" }, t("outbox.local")) : null,
    // while the page goes on from what waits, the list is folded (a whole deal would push the cards away)
    el("details", { class: "outbox-waiting", open: !page.local },
      el("summary", {}, t("outbox.list")),
      el("ol", { class: "outbox-list" }, page.outbox.map((entry) => el("li", {
      class: `outbox-entry ${entry.status}`, dataset: { status: entry.status, key: entry.key },
    },
    el("span", { class: "what" }, actionsText(entry.actions)),
    entry.problem ? el("p", { class: "problem" }, entry.problem) : null,
    el("span", { class: "buttons" },
      entry.status === "waiting" && !page.sending
        ? el("button", { type: "button", class: "quiet send-now", onclick: () => flush() }, t("outbox.send_now")) : null,
      page.sending && entry.status === "waiting" ? null
        : el("button", { type: "button", class: "quiet take-out", onclick: () => takeOut(entry) }, t("outbox.remove"))))))));
}

// --- the controls of each moment -------------------------------------------------------------------------
function button(label, onclick, { primary = false, disabled = false, id = null, cls = null, dataset = null, pressed = null } = {}) {
  return el("button", {
    type: "button", id, class: [primary ? "primary" : null, cls].filter(Boolean).join(" ") || null,
    disabled: disabled || held(), onclick, dataset, "aria-pressed": pressed === null ? null : String(pressed),
  }, label);
}

// --- mending: undo (with a reason, and a confirmation before a settlement is withdrawn) and redo --------------
/** What an undo would withdraw: the state's `undo`, or, from a server without it, the open deal's `can_undo`. */
function undoTarget() {
  const state = page.state;
  if (state.undo !== undefined) return state.undo;
  const d = state.deal;
  const open = ["playing", "revealing"].includes(state.status);
  return open && d && d.can_undo ? { type: null, seat: null, withdraws_settlement: false } : null;
}

function undoText(target) {
  if (!target || !["play", "pass", "reveal"].includes(target.type) || target.seat === null || target.seat === undefined) {
    return t("undo.latest");
  }
  return t(`undo.${target.type}`, { name: seatName(page.state, target.seat) });
}

function redoText(action) {
  const name = action.seat === undefined || action.seat === null ? "" : seatName(page.state, action.seat);
  if (action.type === "play") return t("redo.play", { name, cards: action.cards.map(cardText).join(" ") });
  if (action.type === "pass") return t("redo.pass", { name });
  if (action.type === "reveal") return t("redo.reveal", { name });
  return t("redo_button");
}

function undoButton() {
  if (!undoTarget() || page.undoing) return null;
  return button(t("undo_button"), () => {
    page.undoing = true;
    render();
    $("#undo-confirm")?.focus(); // the button, not the optional reason: no phone keyboard opens over the question
  }, { id: "undo" });
}

function redoButton() {
  const redo = page.state.redo;
  if (!redo || page.undoing) return null;
  return button(redoText(redo), () => send([redo], { redo: true }), { id: "redo" });
}

function undoPanel() {
  const target = undoTarget();
  if (!page.undoing || !target) return null;
  const reason = el("input", {
    type: "text", id: "undo-reason", maxlength: 200, autocomplete: "off", placeholder: t("undo.reason_placeholder"),
    value: page.reason, oninput: (event) => { page.reason = event.target.value; },
    onkeydown: (event) => { if (event.key === "Enter") confirm(); },
  });
  function confirm() {
    const text = page.reason.trim();
    send([text ? { type: "undo", reason: text } : { type: "undo" }]);
  }
  const settled = Boolean(target.withdraws_settlement);
  const number = page.state.deal ? page.state.deal.number : page.state.deals_played;
  return el("div", { class: "undo-panel", id: "undo-panel", role: "group", "aria-label": t("undo_button") },
    el("p", { class: "undo-what" }, undoText(target)),
    settled ? el("p", { class: "warning", id: "undo-warning" },
      t(page.state.status === "ended" ? "undo.withdraws_end" : "undo.withdraws_settlement", { deal: number })) : null,
    el("label", { class: "reason" }, t("undo.reason"), reason),
    el("div", { class: "buttons" },
      button(settled ? t("undo.confirm_settlement") : t("undo.confirm"), confirm, { primary: true, id: "undo-confirm" }),
      button(t("undo.cancel"), () => { page.undoing = false; page.reason = ""; render(); }, { id: "undo-cancel" })));
}

/** Undo and Redo, with the undo panel, for the moments without a card grid (between deals, game over). */
function mendRow() {
  const buttons = [undoButton(), redoButton()].filter(Boolean);
  const panel = undoPanel();
  if (!buttons.length && !panel) return [];
  return [panel, buttons.length ? el("div", { class: "buttons mend" }, buttons) : null].filter(Boolean);
}

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

// --- a deal in play: cards, then who laid them ------------------------------------------------------------------
function preview(seat) {
  const d = deal();
  if (!page.pending.length) return "";
  if (page.pending.length === d.hand_sizes[seat]) return `J'arrête${NBSP}!`;
  const wanted = nextWanted();
  return wanted.length ? wantedCall(labelOf(wanted[0])) : "Roi et je recommence";
}

function playingControls(progress) {
  const state = page.state;
  const d = deal();
  const seat = receivingSeat(progress);
  const possible = page.pending.length ? recordableSeats(progress) : candidateSeats();
  const anyone = d.expected ? state.players.map((p) => p.seat) : [d.turn];
  const honours = page.pending.filter((card) => announceable(rules(), card));
  const play = (who) => ({ // read when pressed: a box may have been unticked since
    type: "play", seat: who, cards: [...page.pending], announced: honours.filter((card) => !page.unticked.has(card)),
  });
  const who = seat === d.turn ? t("plays_now", { name: seatName(state, seat) })
    : t("plays_out_of_turn", { name: seatName(state, seat), turn: seatName(state, d.turn) });

  // The seat strip: the seat that receives the cards stands out; with cards tapped, a tap on a seat
  // records them for that seat (the passes in between go with them), else it chooses the seat.
  const pick = (s) => {
    if (page.pending.length) {
      if (possible.includes(s)) send([play(s)]);
      return;
    }
    chooseSeat(s, progress);
  };
  const strip = el("div", { class: "seat-strip", role: "group", "aria-label": t("strip.label") },
    el("span", { class: "strip-label" }, page.pending.length ? t("strip.record") : t("strip.choose")),
    state.players.map((p) => button([
      el("span", { class: "pick-name" }, p.name),
      p.seat === d.turn ? el("span", { class: "pick-turn", title: t("mark.turn") }, " ▸") : null,
    ], () => pick(p.seat), {
      cls: `pick${p.seat === seat ? " receiving" : ""}`, dataset: { pick: p.seat }, pressed: p.seat === seat,
      disabled: page.pending.length ? !possible.includes(p.seat) : !anyone.includes(p.seat),
    })));

  const laid = el("div", { class: "pending", "aria-label": t("play_in_progress") },
    page.pending.length ? page.pending.map((card) => cardElement(card, { small: true }))
      : el("span", { class: "empty" }, t("tap_cards")),
    page.pending.length ? button("⌫", () => { page.pending.pop(); render(); }, { id: "backspace", cls: "backspace" }) : null,
    honours.map((card) => el("label", { class: "check announce" },
      el("input", {
        type: "checkbox", dataset: { announce: card }, checked: !page.unticked.has(card),
        onchange: (event) => {
          if (event.target.checked) page.unticked.delete(card); else page.unticked.add(card);
        },
      }), el("span", { class: "call" }, card in rules().board ? honourCall(card) : `Hoc${NBSP}!`))));

  const said = preview(seat);
  const bar = el("div", { class: "buttons sticky record-bar", id: "record-bar" },
    undoPanel(), laid, strip,
    el("div", { class: "buttons" },
      button(said ? `${t("play_as", { name: seatName(state, seat) })} — ${said}` : t("play_as", { name: seatName(state, seat) }),
        () => send([play(seat)]), { primary: true, disabled: !page.pending.length || !possible.includes(seat), id: "play" }),
      button(t("pass_button", { name: seatName(state, d.turn) }), () => send([{ type: "pass", seat: d.turn }]),
        { disabled: !d.expected || page.pending.length > 0, id: "pass" }),
      undoButton(), redoButton()));
  return [
    el("p", { class: "who" }, who, " ", el("span", { class: "hint" }, t("tap_then_seat"))),
    keypad((card) => tappable(card, progress), (card) => { page.pending.push(card); render(); },
      (card) => (restartOnly(card, progress) ? "restart" : null)),
    bar,
  ];
}

/**
 * Choose the seat whose cards are tapped next: only its cards are then enabled. Choosing it again goes
 * back to the default (any seat's cards, the seat to act first).
 */
function chooseSeat(seat, progress) {
  const starts = page.taps ? page.taps.starts.includes(seat) : validFor(seat, page.pending, progress);
  page.seat = page.seat === seat ? null : seat;
  if (page.seat !== null && !starts) page.pending = [];
  render();
}

function labelOf(wanted) {
  const ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  return ranks[wanted.rank - 1] + (wanted.suit || "");
}

// --- settlement: each loser's hand, counted aloud (or shown card by card) ----------------------------------------
function revealControls(progress) {
  const state = page.state;
  const d = deal();
  const awaiting = d.awaiting_reveal;
  if (page.revealSeat === null || !awaiting.includes(page.revealSeat)) page.revealSeat = awaiting[0];
  const seat = page.revealSeat;
  const size = d.hand_sizes[seat];
  const parts = [];
  if (awaiting.length > 1) {
    parts.push(el("div", { class: "buttons" }, awaiting.map((s) => button(seatName(state, s), () => {
      page.revealSeat = s;
      page.revealing = [];
      page.points = "";
      page.held = new Set();
      render();
    }, { cls: `pick${s === seat ? " receiving" : ""}`, dataset: { revealSeat: s }, pressed: s === seat }))));
  }
  if (page.revealByCards) {
    parts.push(el("p", { class: "who" }, t("reveal_who", { name: seatName(state, seat), cards: counted(size, "card") })));
    parts.push(keypad((card) => revealable(card, progress), (card) => { page.revealing.push(card); render(); }));
    parts.push(el("div", { class: "buttons sticky record-bar" },
      undoPanel(),
      el("div", { class: "pending" },
        page.revealing.length ? page.revealing.map((card) => cardElement(card, { small: true }))
          : el("span", { class: "empty" }, t("tap_cards")),
        page.revealing.length ? button("⌫", () => { page.revealing.pop(); render(); }, { id: "backspace", cls: "backspace" }) : null),
      el("div", { class: "buttons" },
        button(t("reveal_button", { name: seatName(state, seat), count: page.revealing.length, size }),
          () => send([{ type: "reveal", seat, cards: [...page.revealing] }]),
          { primary: true, disabled: page.revealing.length !== size, id: "reveal" }),
        button(t("reveal_by_count"), () => { page.revealByCards = false; page.revealing = []; render(); }, { id: "by-count" }),
        undoButton(), redoButton())));
    return parts;
  }
  // By count: the number of cards is known; the points are said aloud; honours still held are ticked.
  const honours = boardOrder(rules()).filter((card) => !progress.seen.has(card));
  const record = button("", () => send([{
    type: "reveal", seat, count: size, points: Number(page.points),
    honours: honours.filter((card) => page.held.has(card)),
  }]), { primary: true, id: "reveal-count" });
  const label = () => {
    const ready = /^\d+$/.test(page.points);
    record.disabled = !ready || held();
    record.textContent = ready
      ? t("count.record_points", { name: seatName(state, seat), points: counted(Number(page.points), "point"), cards: counted(size, "card") })
      : t("count.record", { name: seatName(state, seat) });
  };
  const points = el("input", {
    type: "text", id: "points", inputmode: "numeric", pattern: "[0-9]*", autocomplete: "off", maxlength: 4,
    value: page.points, "aria-describedby": "count-who",
    oninput: (event) => { page.points = event.target.value.replace(/\D/g, ""); event.target.value = page.points; label(); },
    onkeydown: (event) => { if (event.key === "Enter" && !record.disabled) record.click(); },
  });
  label();
  parts.push(el("div", { class: "count-form", id: "count-form" },
    el("p", { class: "who", id: "count-who" }, t("count.who", { name: seatName(state, seat), cards: counted(size, "card") })),
    el("label", { class: "points" }, t("count.points"), points),
    honours.length ? el("div", { class: "held", role: "group", "aria-label": t("count.held") },
      el("span", { class: "strip-label" }, t("count.held")),
      honours.map((card) => button([cardElement(card, { small: true })], () => {
        if (page.held.has(card)) page.held.delete(card); else page.held.add(card);
        render();
      }, { cls: `honour${page.held.has(card) ? " held" : ""}`, dataset: { honour: card }, pressed: page.held.has(card) }))) : null,
    el("div", { class: "buttons sticky record-bar" },
      undoPanel(),
      el("div", { class: "buttons" }, record,
        button(t("reveal_by_cards"), () => { page.revealByCards = true; render(); }, { id: "by-cards", cls: "quiet-link" }),
        undoButton(), redoButton()))));
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
  const progress = d ? dealProgress(dealEvents()) : { seen: new Set(), lastPlayer: null };
  refreshTaps();
  if (page.core && tapsReady()) progress.seen = new Set(page.taps.seen); // the cards seen, as the core has them
  $("#status").replaceChildren(...statusLine());
  $("#settlement").replaceChildren(...settlement());
  const centre = [boardElement(state)];
  if (d && state.status === "playing") centre.push(runElement(d));
  const choose = state.status === "playing" ? (seat) => chooseSeat(seat, progress) : null;
  $("#table").replaceChildren(tableElement(state, {
    centre, onSeat: choose, chosen: state.status === "playing" ? receivingSeat(progress) : null,
  }));
  const controls = [];
  const outbox = outboxElement();
  if (outbox) controls.push(outbox);
  if (page.keptCopy && !page.local) controls.push(el("p", { class: "kept-copy", id: "kept-copy" }, t("outbox.kept_copy")));
  const last = lastAction();
  if (last) controls.push(last);
  if (state.status === "ready") controls.push(...readyControls());
  else if (state.status === "playing") controls.push(...playingControls(progress));
  else if (state.status === "revealing") controls.push(...revealControls(progress));
  else controls.push(...mendRow());
  controls.unshift(...tableReturn(page.game, state, render)); // a club evening's game: back to its table
  const focused = focusedControl($("#controls"));
  $("#controls").replaceChildren(...controls);
  restoreFocus($("#controls"), focused);
  // Whatever is scrolled into view (a key, a focused field) stops above the bar fixed under the card grid.
  const bar = $("#record-bar");
  document.documentElement.style.scrollPaddingBottom = bar ? `${bar.offsetHeight + 8}px` : "";
}

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
