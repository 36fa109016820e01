// The core's own rules, off the scorer page's thread: a dedicated worker (served at /core/worker.js, with a
// policy that lets it compile WebAssembly) that loads Pyodide and the core's modules, then answers the page
// (core.js). Loading the runtime the first time takes seconds of a thread (the WebAssembly is compiled as Python
// starts): here, not the page's. Each message is {id, op, ...}; each answer {id, result} or {id, error}.

const RUNTIME = "/static/vendor/pyodide/";
const MODULES = "/core/modules.json";

let scorer = null; // nj_ledger.scorer, once loaded
let known = null; // {key, state}: the state of the log last given
let shown = null; // the state last projected

async function load() {
  const started = performance.now();
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
  scorer = pyodide.pyimport(entry);
  const loaded = performance.now();
  return { runtime: runtime - started, core: loaded - runtime, total: loaded - started };
}

function project({ records, batches }) {
  const last = records.length ? records[records.length - 1] : null;
  const key = `${records.length}:${last ? `${last.seq}:${last.hash}` : ""}`;
  if (!known || known.key !== key) {
    if (known) known.state.destroy();
    known = { key, state: scorer.state_of(JSON.stringify(records)) };
  }
  const projection = scorer.project(known.state, JSON.stringify(batches));
  const state = projection.state; // borrowed from the projection: copied to outlive it
  if (shown) shown.destroy();
  shown = state.copy();
  state.destroy();
  const answer = projection.answer;
  projection.destroy();
  return JSON.parse(answer);
}

function taps({ pending, chosen }) {
  return JSON.parse(scorer.tappable(shown, JSON.stringify(pending), chosen ?? -1));
}

const OPS = { load, project, taps };

let queue = Promise.resolve(); // one message at a time, in the order they came (a load finishes first)
self.addEventListener("message", (event) => {
  const { id, op } = event.data;
  queue = queue.then(async () => {
    try {
      if (op !== "load" && !scorer) throw new Error("the core is not loaded");
      self.postMessage({ id, result: await OPS[op](event.data) });
    } catch (failure) {
      self.postMessage({ id, error: String(failure && failure.message ? failure.message : failure) });
    }
  });
});
