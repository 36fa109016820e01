// What may be tapped: the rules' own answer, never the page's. Once the core runs in the page (core.js: Pyodide in a
// worker, record_core.js) it answers, for the state shown; until then the server answers for the game as it stands
// (GET /api/v1/games/{game}/taps, nj_ledger/scorer.py `taps`, the same function). Until an answer for what is on
// screen has come, the taps are held (record_page.js `held`). With no connection and the core not loaded yet, the
// core is loaded and answers once it has (docs/OFFLINE.md).

import { ApiError, api, notify } from "./common.js";
import { project, wantCore } from "./record_core.js";
import { gameUrl, page, render, tapsKey, tapsWanted } from "./record_page.js";
import { catchUp, noAnswer } from "./record_server.js";

const NONE = { cards: {}, recordable: [], starts: [], seen: [], next: null, honours: [] };

/** The answer for what is on screen, or null while it has not come. */
const ready = () => (page.taps !== null && page.tapsKey === tapsKey() ? page.taps : null);

function answered(key, taps) {
  if (page.tapsAsked !== key) return; // the screen moved on: another answer is asked for
  page.taps = taps;
  page.tapsKey = key;
  render();
}

/** The core's answer, from its worker. */
function askCore(key) {
  const mine = page.projected;
  page.core.taps(page.pending, null).then((taps) => {
    if (mine === page.projected) answered(key, taps);
  }, (failure) => { // the page goes back to the server's state and answers
    console.warn("the core could not answer what may be tapped", failure);
    page.core = null;
    page.tapsAsked = null;
    project();
    render();
  });
}

const RETRY_FIRST = 1_000; // ms before a question the server did not answer is asked again, doubled each time
const RETRY_MOST = 15_000;
let retryIn = RETRY_FIRST;
let retrying = null;

/** Ask again later (the server out of reach, busy, or refusing for a while): the taps stay held meanwhile. */
function retryLater(key) {
  clearTimeout(retrying);
  retrying = setTimeout(() => {
    retrying = null;
    if (page.tapsAsked === key) page.tapsAsked = null;
    render();
  }, retryIn);
  retryIn = Math.min(retryIn * 2, RETRY_MOST);
}

/** The server's answer, for the game as it has it: dropped when that is not the state shown (the page catches up). */
function askServer(key) {
  const query = page.pending.length ? `?cards=${page.pending.join(",")}` : "";
  const version = page.state.version;
  api(`${gameUrl()}/taps${query}`).then((taps) => {
    retryIn = RETRY_FIRST;
    page.offline = false;
    if (taps.version === version) {
      answered(key, taps);
    } else if (page.tapsAsked === key) { // the game moved on: asked again once the page has it as it is now
      page.tapsAsked = null;
      if (!page.outbox.length) catchUp().catch((failure) => console.warn("the game could not be read again", failure));
    }
  }, (failure) => {
    if (page.tapsAsked !== key) return;
    if (failure instanceof TypeError || !navigator.onLine) { // no connection: the core answers once it has loaded
      page.offline = true;
      wantCore();
    } else if (!noAnswer(failure) && !(failure instanceof ApiError && [401, 429].includes(failure.status))) {
      notify(failure.message); // the server's own words (a game gone, a token revoked…)
    }
    retryLater(key);
    render();
  });
}

/** Ask for what may be tapped when the state shown or the cards tapped changed (the seat chosen filters it). */
export function refreshTaps() {
  if (page.computing || !tapsWanted()) return;
  const key = tapsKey();
  if (page.tapsKey === key || page.tapsAsked === key) return;
  if (page.core) {
    page.tapsAsked = key;
    askCore(key);
  } else if (!page.local && !page.outbox.length) { // while actions wait without the core, the taps are held
    page.tapsAsked = key;
    askServer(key);
  }
}

/**
 * What may be tapped now (`seen`, a Set: the cards seen this deal), for the seat chosen (any when none is); nothing
 * while the answer has not come.
 */
export function tapsNow() {
  const taps = ready() || NONE;
  const chosen = (seats) => (page.seat === null ? seats : seats.filter((seat) => seat === page.seat));
  return {
    ...taps,
    cards: Object.fromEntries(Object.entries(taps.cards).map(([card, seats]) => [card, chosen(seats)])),
    recordable: chosen(taps.recordable),
    starts: chosen(taps.starts),
    seen: new Set(taps.seen),
  };
}

/** Whether `seat` may start a play with the cards tapped so far (false while the answer has not come). */
export function startsWith(seat) {
  const taps = ready();
  return taps !== null && taps.starts.includes(seat);
}
