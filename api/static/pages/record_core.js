// The state shown and what may be tapped on it. The game as the server answered, or, while actions wait and the
// core's own rules run in the page (core.js: Pyodide in a worker), the state they give as the server will compute
// it, and the core's answer of what may be tapped; until the core has loaded (or where it cannot), the page's own
// answer (record_taps.js, which says why it stays).

import { loadCore } from "./core.js";
import { tapsHere } from "./record_taps.js";
import { dealEvents, page, render, tapsKey, tapsReady } from "./record_page.js";

/** The page shows the game as the server answered (or as this phone kept it). */
export function showKnown() {
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
export function project() {
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
export function wantCore() {
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

/**
 * The core's answer of what may be tapped, for the state shown, the cards tapped so far and the seat chosen:
 * asked when one of them changed; until it comes, the taps are held.
 */
export function refreshTaps() {
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

const here = (chosen = page.seat) => tapsHere(page.state, dealEvents(), page.pending, chosen);

/**
 * What may be tapped now, as the core answers it (`taps` in core.js): the core's answer when it runs in the page,
 * else the page's own; `seen` (a Set) the cards seen this deal, the core's once its answer is the one of what is on
 * screen.
 */
export function tapsNow() {
  const mine = page.taps || here();
  const seen = page.core && tapsReady() ? page.taps.seen : (page.taps ? here() : mine).seen;
  return { ...mine, seen: new Set(seen) };
}

/** Whether `seat` may start a play with the cards tapped so far (the core's answer, or the page's for that seat). */
export function startsWith(seat) {
  return page.taps ? page.taps.starts.includes(seat) : here(seat).starts.includes(seat);
}
