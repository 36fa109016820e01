// The service worker that lets the pages open with no connection (served at /sw.js, scope "/").
// The server puts four lines before this text: VERSION (a hash of every asset and of the core's modules the
// scorer runs), ASSETS (their paths), RUNTIME (the stamp of the Pyodide runtime unpacked, "" when there is none)
// and RUNTIME_FILES (its files' paths);
// a new VERSION installs a new cache and drops the old one.
//
// - Assets (/static/…): from the cache first, every one of them stored at install; any other one the
//   first time it is fetched.
// - Pages (a navigation): from the network first, the answer kept under its address without the fragment (a
//   table's link carries its token there); with no answer, the copy kept of that address (the scorer of a game
//   opened before), else the home page kept at install. The pages kept name a club's games and tables: signing
//   out forgets them all but the shell's (pages/forget.js).
// - The Pyodide runtime (/static/vendor/pyodide/…, 14 MB, loaded by the scorer only): from a cache of its own,
//   filled the first time the scorer loads it and kept while RUNTIME is the same (an asset's change does not
//   fetch it again); the other pages never download it.
// - The API (/api/…) is never answered from here: the pages keep their own copy of a game (IndexedDB) and
//   their outbox, and know when an answer did not come.
/* global VERSION, ASSETS, RUNTIME, RUNTIME_FILES */

const CACHE = `nj-ledger-${VERSION}`;
const RUNTIME_CACHE = `nj-ledger-runtime-${RUNTIME}`;
const SHELL = ["/", "/signin"];

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(ASSETS);
    // The pages of the shell are best kept but not required: a failure leaves the worker installed.
    await Promise.all(SHELL.map((path) => cache.add(new Request(path, { credentials: "same-origin" })).catch(() => null)));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("nj-ledger-") && name !== CACHE && name !== RUNTIME_CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

async function fromCacheFirst(request, name = CACHE) {
  const cache = await caches.open(name);
  const kept = await cache.match(request, { ignoreSearch: true, ignoreVary: true });
  if (kept) return kept;
  const answer = await fetch(request);
  if (answer.ok) await cache.put(request, answer.clone());
  return answer;
}

/** The address a page is kept under: the fragment is the page's own (a secret may be there), never a key. */
function address(request) {
  const url = new URL(request.url);
  url.hash = "";
  return url.href;
}

async function fromNetworkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const answer = await fetch(request);
    if (answer.ok) await cache.put(address(request), answer.clone());
    return answer;
  } catch (failure) {
    const kept = await cache.match(request, { ignoreSearch: true, ignoreVary: true }) || await cache.match("/", { ignoreVary: true });
    if (kept) return kept;
    throw failure;
  }
}

// The scorer, once it has loaded the Pyodide runtime, asks for it to be kept (`{keepRuntime: true}`): when the
// page was opened before this worker was in control, the runtime came from the network, past this worker.
async function keepRuntime() {
  const cache = await caches.open(RUNTIME_CACHE);
  for (const path of RUNTIME_FILES) {
    if (!(await cache.match(path, { ignoreSearch: true, ignoreVary: true }))) await cache.add(path).catch(() => null);
  }
}

// A page opened before this worker was in control asks to be kept: `{keep: "/games/…/record"}`.
self.addEventListener("message", (event) => {
  if (event.data && event.data.keepRuntime === true && RUNTIME) {
    event.waitUntil(keepRuntime());
    return;
  }
  const path = event.data && event.data.keep;
  if (typeof path !== "string" || !path.startsWith("/") || path.startsWith("/api/")) return;
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    if (!(await cache.match(path, { ignoreSearch: true, ignoreVary: true }))) {
      await cache.add(new Request(path, { credentials: "same-origin" })).catch(() => null);
    }
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  if (request.mode === "navigate") event.respondWith(fromNetworkFirst(request));
  else if (url.pathname.startsWith("/static/vendor/pyodide/")) event.respondWith(fromCacheFirst(request, RUNTIME_CACHE));
  else if (url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest" || url.pathname.startsWith("/core/")) {
    event.respondWith(fromCacheFirst(request));
  }
});
