// The receipts this browser keeps: the latest signed receipt of every game it recorded or followed.
//
// Every answer of the API that carries a `receipt` (an append, a new game, an import, a game read) is kept
// here, one per game, the highest version. A receipt is the ledger's signed word that the game's log stood
// at that version with that head hash: the audit page sends it back, and a log cut back or rewritten since
// shows against it. An answer that shows a game behind (or beside) the receipt held is said at once.

const RECEIPTS_KEY = "nj-ledger.receipts";

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(RECEIPTS_KEY) || "{}");
    return saved && typeof saved === "object" && !Array.isArray(saved) ? saved : {};
  } catch (ignored) {
    return {}; // a damaged entry holds nothing
  }
}

/** The receipts held, by game id. */
export const heldReceipts = () => load();

/** The receipt held for one game, or null. */
export const heldReceipt = (game) => load()[game] || null;

function wellFormed(receipt) {
  return receipt && typeof receipt.game === "string" && Number.isInteger(receipt.version)
    && typeof receipt.head === "string" && typeof receipt.signature === "string";
}

/**
 * Keep `receipt` if it is newer than the one held for its game. Answers what it says of the held one:
 * "kept", "same", or "behind" (the server shows an older version than a receipt held: a log cut back) or
 * "differs" (another head at the same version: a log rewritten) with the receipt held.
 */
export function keepReceipt(receipt) {
  if (!wellFormed(receipt)) return { verdict: "ignored" };
  const all = load();
  const held = all[receipt.game];
  if (held && held.version > receipt.version) return { verdict: "behind", held };
  if (held && held.version === receipt.version) {
    return held.head === receipt.head ? { verdict: "same", held } : { verdict: "differs", held };
  }
  all[receipt.game] = receipt;
  try {
    localStorage.setItem(RECEIPTS_KEY, JSON.stringify(all));
  } catch (ignored) {
    return { verdict: "unkept" }; // storage full or refused: the page still works
  }
  return { verdict: "kept" };
}

/** The receipts a file holds: a list, `{receipts: [...]}` (a saved set, or a heads file of `nj-ledger heads export`). */
export function receiptsOf(document) {
  const list = Array.isArray(document) ? document : document && document.receipts;
  return Array.isArray(list) ? list.filter(wellFormed) : [];
}

/** The receipts held, as a file to save (the audit page and `nj-ledger heads check` read it back). */
export function receiptsFile() {
  const receipts = Object.values(load()).sort((a, b) => a.game.localeCompare(b.game));
  return JSON.stringify({ format: "nj-ledger/receipts", version: 1, receipts }, null, 1);
}
