// The state shown: the game as the server answered, or, while actions wait and the core's own rules run in the page
// (core.js: Pyodide in a worker), the state they give as the server will compute it. What may be tapped on it is
// the rules' answer too (record_taps.js).

import { loadCore } from "./core.js";
import { page, render } from "./record_page.js";

/** The page shows the game as the server answered (or as this phone kept it). */
export function showKnown() {
  page.state = page.known.state;
  page.events = page.known.events;
  page.local = false;
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
