// The core's own rules in the scorer page: the pure `nj_ledger` core, run under Pyodide (Python compiled to
// WebAssembly), so that the state shown while actions wait in the outbox — whose turn it is, which cards may be
// laid, the boxes, the chips — is the one the server will compute from the same actions (docs/OFFLINE.md).
//
// - The runtime is this server's own copy (/static/vendor/pyodide/, fetched by `make install`), kept by the
//   service worker in a cache of its own: it then loads with no connection too.
// - The core's modules come from the server (/core/modules.json: the very files the server runs, read from its
//   installed `nj_ledger`); `nj_ledger.scorer` is the entry.
// - It runs in a dedicated worker (/core/worker.js, static/core-worker.js), off the page's thread: the page asks
//   and is answered asynchronously.
// - Only the scorer page uses this module. Opened with a connection, it asks the service worker to keep the
//   runtime (`keepRuntime`: fetched by the worker, off the page's thread); it loads the runtime (`loadCore`) only
//   when it is needed: when the connection drops, or an action could not be sent. Until it has loaded, the server
//   answers what may be tapped (record_taps.js); with no connection and no core, the page holds its taps.

const RUNTIME = "/static/vendor/pyodide/";
const WORKER = "/core/worker.js";
// The runtime's files the worker loads (scripts/vendor_pyodide.py unpacks them; the service worker keeps them).
const FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];

let loading = null;

/** The core (one per page), loaded on first call; rejects when it cannot be loaded (a later call tries again). */
export function loadCore() {
  if (!loading) {
    loading = load();
    loading.catch(() => { loading = null; });
  }
  return loading;
}

async function load() {
  if (!navigator.onLine && "caches" in window) { // with no connection, only a runtime the worker kept whole
    const kept = await Promise.all(FILES.map((name) => caches.match(`${RUNTIME}${name}`)));
    if (!kept.every(Boolean)) throw new Error("the runtime is not kept on this phone");
  }
  const core = new Core(new Worker(WORKER, { type: "module" }));
  try {
    core.timing = await core.ask("load");
  } catch (failure) {
    core.worker.terminate();
    throw failure;
  }
  return core;
}

/** Ask the service worker to keep the runtime for use with no connection (it fetches what it does not have). */
export function keepRuntime() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.ready.then((registration) => {
    if (registration.active) registration.active.postMessage({ keepRuntime: true });
  }, () => null);
}

/**
 * The core's answers for one game, each a promise: `project` (the state after the log and the waiting actions),
 * `taps` (what may be tapped on that state). The states stay in the worker between calls.
 */
class Core {
  constructor(worker) {
    this.worker = worker;
    this.timing = null; // how long loading took, in ms (runtime, the core's modules, total)
    this.asked = new Map(); // id -> {resolve, reject}
    this.next = 1;
    worker.addEventListener("message", (event) => {
      const { id, result, error } = event.data;
      const asked = this.asked.get(id);
      if (!asked) return;
      this.asked.delete(id);
      if (error !== undefined) asked.reject(new Error(error));
      else asked.resolve(result);
    });
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      for (const asked of this.asked.values()) asked.reject(new Error(event.message || "the core's worker failed"));
      this.asked.clear();
    });
  }

  ask(op, data = {}) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.asked.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, ...data });
    });
  }

  /**
   * The state after `records` (the game's log, as the API gives it) then each batch of `batches` (the waiting
   * actions, oldest first): `{state, events, applied, refusal}`, `state` as the API shows it, `events` the records
   * the server will append (with their seq), `applied` how many batches the rules accept, in order.
   */
  project(records, batches) {
    return this.ask("project", { records, batches });
  }

  /**
   * What may be tapped on the state last projected, `pending` the cards tapped so far, `chosen` the seat chosen
   * (or null): `{cards: {card: [seats]}, recordable: [seats], starts: [seats], seen: [cards]}`.
   */
  taps(pending, chosen) {
    return this.ask("taps", { pending, chosen });
  }
}
