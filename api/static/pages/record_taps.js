// What may be tapped: the rules' own answer, never the page's. Once the core runs in the page (core.js: Pyodide in a
// worker, record_core.js) it answers, for the state shown; until then the server answers for the game as it stands
// (GET /api/v1/games/{game}/taps, nj_ledger/scorer.py `taps`, the same function). Until an answer for what is on
// screen has come, the taps are held (record_page.js `held`). With no connection and the core not loaded yet, the
// core is loaded and answers once it has (docs/OFFLINE.md).

import { ApiError, api } from "./common.js";
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
  page.core.taps(page.pending, page.seat).then((taps) => {
    if (mine === page.projected) answered(key, taps);
  }, (failure) => { // the page goes back to the server's state and answers
    console.warn("the core could not answer what may be tapped", failure);
    page.core = null;
    page.tapsAsked = null;
    project();
    render();
  });
}

/** The server's answer, for the game as it has it: dropped when that is not the state shown (the page catches up). */
function askServer(key) {
  const query = new URLSearchParams();
  if (page.pending.length) query.set("cards", page.pending.join(","));
  if (page.seat !== null) query.set("seat", String(page.seat));
  const version = page.state.version;
  api(`${gameUrl()}/taps?${query}`).then((taps) => {
    if (taps.version === version) {
      answered(key, taps);
    } else if (page.tapsAsked === key) { // the game moved on: asked again once the page has it as it is now
      page.tapsAsked = null;
      catchUp();
    }
  }, (failure) => {
    if (page.tapsAsked === key) page.tapsAsked = null;
    if (noAnswer(failure)) { // no connection: the core answers once it has loaded
      page.offline = true;
      wantCore();
      render();
    } else if (!(failure instanceof ApiError && failure.status === 401)) {
      console.warn("the server could not answer what may be tapped", failure);
    }
  });
}

/** Ask for what may be tapped when the state shown, the cards tapped or the seat chosen changed. */
export function refreshTaps() {
  if (page.computing || !tapsWanted()) return;
  const key = tapsKey();
  if (page.tapsKey === key || page.tapsAsked === key) return;
  if (page.core) {
    page.tapsAsked = key;
    askCore(key);
  } else if (!page.local && !page.offline) {
    page.tapsAsked = key;
    askServer(key);
  }
}

/** What may be tapped now (`seen`, a Set: the cards seen this deal); nothing while the answer has not come. */
export function tapsNow() {
  const taps = ready() || NONE;
  return { ...taps, seen: new Set(taps.seen) };
}

/** Whether `seat` may start a play with the cards tapped so far (false when the answer does not say). */
export function startsWith(seat) {
  const taps = ready();
  return taps !== null && (page.seat === null || page.seat === seat) && taps.starts.includes(seat);
}
