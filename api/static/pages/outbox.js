// What this browser keeps for the scorer in IndexedDB, so that no tap is lost with the connection:
// - the outbox: every tapped action, with its Idempotency-Key and the game version it was tapped on, written
//   before any request is made and removed only when the server has acknowledged it (or the scorer removes it);
// - the last copy of each game the scorer showed (its state and its log), to open the page with no connection.
// The database outlives a reload and a browser restart; it is this browser's own (nothing of it is sent). It is
// the signed-in club's: signing out deletes it (forget.js), after saying how many actions still wait.

const NAME = "nj-ledger";
const VERSION = 1;
const OUTBOX = "outbox";
const GAMES = "games";

let opening = null;
let forgotten = false; // this page deleted the database (a sign-out): nothing more is kept until it is left

function database() {
  if (forgotten) return Promise.reject(new Error("The club's data on this device was forgotten."));
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
      request.onsuccess = () => {
        const db = request.result;
        // Another tab upgrades the database, or deletes it (a sign-out there: `newVersion` null): this page lets
        // go of it, or that tab would wait; once deleted, nothing more is kept from here.
        db.onversionchange = (event) => {
          db.close();
          opening = null;
          if (event.newVersion === null) forgotten = true;
        };
        resolve(db);
      };
      request.onerror = () => reject(request.error);
    });
  }
  return opening;
}

/** Whether this browser has the database at all (asking for a count must not create it on the sign-in page). */
async function exists() {
  if (!indexedDB.databases) return true; // an older browser cannot tell: it is opened (and so created)
  return (await indexedDB.databases()).some((info) => info.name === NAME);
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

/** How many entries wait in the outbox, of every game: the actions signing out would lose. */
export async function waitingCount() {
  if (forgotten || !(await exists())) return 0;
  return transaction([OUTBOX], "readonly", ({ outbox }) => done(outbox.count()));
}

const GIVE_UP = 5000;

/**
 * Delete the database, outbox and copies alike, and keep nothing more from this page (signing out, forget.js).
 * Resolves once it is deleted, or after GIVE_UP ms when a tab that cannot be told holds it open (the deletion
 * then happens when that tab lets go of it).
 */
export async function forgetDatabase() {
  forgotten = true;
  if (opening) {
    const db = await opening.catch(() => null);
    if (db) db.close();
    opening = null;
  }
  await new Promise((resolve) => {
    const request = indexedDB.deleteDatabase(NAME);
    request.onsuccess = () => resolve();
    request.onerror = () => resolve();
    setTimeout(resolve, GIVE_UP);
  });
}
