// What this browser keeps for the scorer in IndexedDB, so that no tap is lost with the connection:
// - the outbox: every tapped action, with its Idempotency-Key and the game version it was tapped on, written
//   before any request is made and removed only when the server has acknowledged it (or the scorer removes it);
// - the last copy of each game the scorer showed (its state and its log), to open the page with no connection.
// The database outlives a reload and a browser restart; it is this browser's own (nothing of it is sent).

const NAME = "nj-ledger";
const VERSION = 1;
const OUTBOX = "outbox";
const GAMES = "games";

let opening = null;

function database() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(NAME, VERSION);
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains(OUTBOX)) {
          db.createObjectStore(OUTBOX, { keyPath: "id", autoIncrement: true }).createIndex("game", "game");
        }
        if (!db.objectStoreNames.contains(GAMES)) db.createObjectStore(GAMES, { keyPath: "game" });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }
  return opening;
}

/** Run `work(stores)` in one transaction; resolves with its result once the transaction is committed. */
async function transaction(names, mode, work) {
  const db = await database();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(names, mode);
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
    const stores = Object.fromEntries(names.map((name) => [name, tx.objectStore(name)]));
    Promise.resolve(work(stores)).then((value) => { result = value; }, (error) => { tx.abort(); reject(error); });
  });
}

const done = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

/**
 * Keep one tapped action (or batch): `{game, actions, key, base}`, `base` the game version it was tapped on, or
 * null when it follows an action still waiting (it then goes on the version that one's answer gives).
 * Resolves with the entry as kept (with its `id`, its place in the order).
 */
export async function enqueue(entry) {
  const kept = { status: "waiting", problem: null, at: new Date().toISOString(), ...entry };
  kept.id = await transaction([OUTBOX], "readwrite", ({ outbox }) => done(outbox.add(kept)));
  return kept;
}

/** A game's entries, oldest first. */
export function waiting(game) {
  return transaction([OUTBOX], "readonly", ({ outbox }) => done(outbox.index("game").getAll(game)))
    .then((entries) => entries.sort((a, b) => a.id - b.id));
}

/** Save an entry's new status, problem, key or base. */
export function update(entry) {
  return transaction([OUTBOX], "readwrite", ({ outbox }) => done(outbox.put(entry)));
}

/** Remove an entry: acknowledged by the server, or removed by the scorer. */
export function remove(id) {
  return transaction([OUTBOX], "readwrite", ({ outbox }) => done(outbox.delete(id)));
}

/**
 * An entry acknowledged: removed, and, in the same transaction, the next entry (tapped after it, on the state
 * its answer gives) learns the version it goes on.
 */
export function acknowledge(id, next, version) {
  return transaction([OUTBOX], "readwrite", async ({ outbox }) => {
    await done(outbox.delete(id));
    if (next && (next.base === null || next.base === undefined)) {
      next.base = version;
      await done(outbox.put(next));
    }
  });
}

/** Keep the copy of a game the page shows (its state and its log). */
export function keepGame(game, state, events) {
  return transaction([GAMES], "readwrite", ({ games }) => done(games.put({ game, state, events, at: new Date().toISOString() })));
}

/** The copy kept of a game, or null. */
export function keptGame(game) {
  return transaction([GAMES], "readonly", ({ games }) => done(games.get(game))).then((kept) => kept || null);
}
