// The core's own rules in the scorer page: the pure `nj_ledger` core, run under Pyodide (Python compiled to
// WebAssembly), so that the state shown while actions wait in the outbox — whose turn it is, which cards may be
// laid, the boxes, the chips — is the one the server will compute from the same actions (docs/OFFLINE.md).
//
// - The runtime is this server's own copy (/static/vendor/pyodide/, fetched by `make install`), kept by the
//   service worker in a cache of its own the first time it is loaded: it then loads with no connection too.
// - The core's modules come from the server (/core/modules.json: the very files the server runs, read from its
//   installed `nj_ledger`), written to Pyodide's file system and imported; `nj_ledger.scorer` is the entry.
// - Only the scorer page uses this module. Opened with a connection, it asks the service worker to keep the
//   runtime (`keepRuntime`: fetched by the worker, off the page's thread); it loads the runtime (`loadCore`, a
//   second or two of the page's thread) only when it is needed: when the connection drops, or an action could
//   not be sent. Until it has loaded (or if it cannot), the page holds its taps while an action waits.

const RUNTIME = "/static/vendor/pyodide/";
const MODULES = "/core/modules.json";

let loading = null;

/** The core in the page (one per page), loaded on first call; rejects when the runtime cannot be loaded (a
 * later call tries again). */
export function loadCore() {
  if (!loading) {
    loading = load();
    loading.catch(() => { loading = null; });
  }
  return loading;
}

// The runtime's files the page loads (scripts/vendor_pyodide.py unpacks them; the worker keeps them).
const FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];

async function load() {
  const started = performance.now();
  if (!navigator.onLine && "caches" in window) { // with no connection, only a runtime the worker kept whole
    const kept = await Promise.all(FILES.map((name) => caches.match(`${RUNTIME}${name}`)));
    if (!kept.every(Boolean)) throw new Error("the runtime is not kept on this phone");
  }
  const { loadPyodide } = await import(`${RUNTIME}pyodide.mjs`);
  const pyodide = await loadPyodide({ indexURL: RUNTIME, stdout: () => {}, stderr: () => {} });
  const runtime = performance.now();
  const answer = await fetch(MODULES, { credentials: "same-origin" });
  if (!answer.ok) throw new Error(`${MODULES}: ${answer.status}`);
  const { entry, modules } = await answer.json();
  for (const [path, source] of Object.entries(modules)) {
    pyodide.FS.mkdirTree(`/core/${path.slice(0, path.lastIndexOf("/"))}`);
    pyodide.FS.writeFile(`/core/${path}`, source);
  }
  pyodide.runPython("import sys\nif '/core' not in sys.path: sys.path.insert(0, '/core')");
  const scorer = pyodide.pyimport(entry);
  const loaded = performance.now();
  return new Core(scorer, { runtime: runtime - started, core: loaded - runtime, total: loaded - started });
}

/** Ask the service worker to keep the runtime for use with no connection (it fetches what it does not have). */
export function keepRuntime() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.ready.then((registration) => {
    if (registration.active) registration.active.postMessage({ keepRuntime: true });
  }, () => null);
}

/**
 * The core's answers for one game: `project` (the state after the log and the waiting actions), `taps` (what may
 * be tapped on that state). The states stay in Python between calls; the log's state is kept while the log is.
 */
class Core {
  constructor(scorer, timing) {
    this.scorer = scorer;
    this.timing = timing; // how long loading took, in ms (runtime, the core's modules, total)
    this.known = null; // {key, state}: the state of the log last given
    this.shown = null; // the state last projected (the log's, or after the waiting actions)
    this.tapped = null; // {key, answer}: the last answer of `taps`
  }

  /**
   * The state after `records` (the game's log, as the API gives it) then each batch of `batches` (the waiting
   * actions, oldest first): `{state, events, applied, refusal}`, `state` as the API shows it, `events` the records
   * the server will append (with their seq), `applied` how many batches the rules accept, in order.
   */
  project(records, batches) {
    const last = records.length ? records[records.length - 1] : null;
    const key = `${records.length}:${last ? `${last.seq}:${last.hash}` : ""}`;
    if (!this.known || this.known.key !== key) {
      if (this.known) this.known.state.destroy();
      this.known = { key, state: this.scorer.state_of(JSON.stringify(records)) };
    }
    const projection = this.scorer.project(this.known.state, JSON.stringify(batches));
    const answer = JSON.parse(projection.answer);
    if (this.shown) this.shown.destroy();
    const state = projection.state; // borrowed from the projection: copied to outlive it
    this.shown = state.copy();
    state.destroy();
    projection.destroy();
    this.tapped = null;
    return answer;
  }

  /**
   * What may be tapped on the state last projected, `pending` the cards tapped so far, `chosen` the seat chosen
   * (or null): `{cards: {card: [seats]}, recordable: [seats], starts: [seats], seen: [cards]}`.
   */
  taps(pending, chosen) {
    const key = JSON.stringify([pending, chosen]);
    if (!this.tapped || this.tapped.key !== key) {
      const answer = JSON.parse(this.scorer.tappable(this.shown, JSON.stringify(pending), chosen ?? -1));
      this.tapped = { key, answer };
    }
    return this.tapped.answer;
  }
}
