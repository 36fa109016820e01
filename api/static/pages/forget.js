// What this browser holds for a club, and forgetting all of it: a tablet passed from one club to another
// (docs/OFFLINE.md, "A shared device: signing out").
//
// Every name the pages keep begins with "nj-ledger": in localStorage and sessionStorage the session, the club
// that holds this browser, the receipts (receipts.js), the tables' tokens, an evening's table links and the player a
// phone follows at an evening (table_me.js); in
// IndexedDB the outbox and the copies of games (outbox.js); in Cache Storage the pages the service worker kept
// under their addresses (sw.js), which name the club's games, evenings and tables. All of it is the club's and
// goes at sign-out, or when another club signs in. What stays holds nothing of any club: the assets (scripts,
// styles, icons, the core and its runtime) and the shell's two pages at their bare address (every page is the
// same for every club, its data read from the API), so the app still opens with no connection.

import { forgetDatabase, waitingCount } from "./outbox.js";

const PREFIX = "nj-ledger";
const HOLDER_KEY = "nj-ledger.holder";
const FORGETTING = "nj-ledger.forgetting"; // set, then removed with the rest: the other tabs' signal
const SHELL = new Set(["/", "/signin"]);
const ASSET = /^\/(static\/|core\/|manifest\.webmanifest$)/;

/**
 * The club whose data this browser holds, `{club, name}`, as its sign-in recorded it (its session may be gone
 * since: a token revoked), or null.
 */
export function holder() {
  try {
    const held = JSON.parse(localStorage.getItem(HOLDER_KEY) || "null");
    return held && typeof held.club === "string" ? held : null;
  } catch (ignored) {
    return null; // a damaged entry names no club
  }
}

/** Record the club just signed in as the one whose data this browser holds. */
export function hold(club, name) {
  try {
    localStorage.setItem(HOLDER_KEY, JSON.stringify({ club, name }));
  } catch (ignored) { /* storage refused: the next sign-in forgets whatever is held */ }
}

/** Whether a `storage` event tells that another tab forgot everything (this tab then leaves its club's pages). */
export const forgottenElsewhere = (event) => event.storageArea === localStorage
  && (event.key === null || (event.key === FORGETTING && event.newValue !== null));

/** How many tapped actions wait to be sent, of every game: what forgetting would lose. */
export const unsent = () => waitingCount().catch(() => 0);

function forgetKeys(storage) {
  try {
    for (const key of Object.keys(storage)) if (key.startsWith(PREFIX)) storage.removeItem(key);
  } catch (ignored) { /* storage refused (private mode): nothing was kept there */ }
}

/** This tab's own keys (sessionStorage is per tab: another tab's sign-out reaches it by a `storage` event). */
export const forgetTab = () => forgetKeys(sessionStorage);

/** The pages the service worker kept, but the shell's, in every cache of this site; the assets stay. */
async function forgetPages() {
  if (typeof caches === "undefined") return; // over plain HTTP no worker runs and nothing is cached
  for (const name of await caches.keys()) {
    if (!name.startsWith(PREFIX)) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const url = new URL(request.url);
      const shell = SHELL.has(url.pathname) && !url.search && !url.hash;
      if (!shell && !ASSET.test(url.pathname)) await cache.delete(request);
    }
  }
}

/**
 * Forget everything this browser holds for the club: its keys (the other tabs are told first), the database, the
 * pages kept. Never rejects: what could not be forgotten is said in the console.
 */
export async function forgetEverything() {
  try {
    localStorage.setItem(FORGETTING, String(Date.now()));
  } catch (ignored) { /* storage refused: the other tabs learn it from the database's deletion */ }
  forgetKeys(localStorage);
  forgetTab();
  const done = await Promise.allSettled([forgetDatabase(), forgetPages()]);
  for (const result of done) if (result.status === "rejected") console.warn(result.reason);
}
