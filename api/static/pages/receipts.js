// The receipts this browser keeps: signed receipts of every game it recorded or followed.
//
// Every answer of the API that carries a `receipt` (an append, a new game, an import, a game read) is kept
// here: per game the first one and the latest ones (KEPT in all; an older one goes only once the log is seen
// to still hold the head it names). A receipt is the ledger's signed word that
// the game's log stood at that version with that head hash: the audit page sends them back, and a log cut
// back or rewritten since shows against them. Older ones are kept too: a newer receipt signed with a stolen
// key over a rewritten log must not erase the evidence. An answer that shows a game behind (or beside) the
// latest receipt held is said at once.

const RECEIPTS_KEY = "nj-ledger.receipts";
const KEPT = 16; // receipts kept per game: the first and the latest 15

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(RECEIPTS_KEY) || "{}");
    if (!saved || typeof saved !== "object" || Array.isArray(saved)) return {};
    for (const [game, held] of Object.entries(saved)) saved[game] = Array.isArray(held) ? held : [held];
    return saved;
  } catch (ignored) {
    return {}; // a damaged entry holds nothing
  }
}

/** The receipts held for one game, oldest first. */
export const gameReceipts = (game) => (load()[game] || []).filter(wellFormed);

/** The latest receipt held for one game, or null. */
export function heldReceipt(game) {
  const held = gameReceipts(game);
  return held.length ? held[held.length - 1] : null;
}

function wellFormed(receipt) {
  return receipt && typeof receipt.game === "string" && Number.isInteger(receipt.version)
    && typeof receipt.head === "string" && typeof receipt.signature === "string";
}

/**
 * Keep `receipt` if it is newer than the one held for its game. Answers what it says of the held one:
 * "kept" (with the `surplus` receipt that may go, if any), "same", or "behind" (the server shows an older
 * version than a receipt held: a log cut back) or "differs" (another head at the same version: a log
 * rewritten) with the receipt held.
 */
export function keepReceipt(receipt) {
  if (!wellFormed(receipt)) return { verdict: "ignored" };
  const all = load();
  const kept = (all[receipt.game] || []).filter(wellFormed);
  const held = kept.length ? kept[kept.length - 1] : null;
  const same = kept.find((one) => one.version === receipt.version);
  if (same && same.head !== receipt.head) return { verdict: "differs", held: same };
  if (held && held.version > receipt.version) return { verdict: "behind", held };
  if (same) return { verdict: "same", held };
  kept.push(receipt);
  all[receipt.game] = kept;
  if (!save(all)) return { verdict: "unkept" }; // storage full or refused: the page still works
  // Past KEPT, the oldest but the first may go, once the log is seen to still hold it (checkSurplus)
  return { verdict: "kept", surplus: kept.length > KEPT ? kept[1] : null };
}

function save(all) {
  try {
    localStorage.setItem(RECEIPTS_KEY, JSON.stringify(all));
    return true;
  } catch (ignored) {
    return false;
  }
}

/** Forget one receipt held (the log was seen to hold it still: a newer one vouches for it). */
export function dropReceipt(receipt) {
  const all = load();
  const kept = all[receipt.game] || [];
  all[receipt.game] = kept.filter((one) => !(one.version === receipt.version && one.head === receipt.head));
  save(all);
}

/** The receipts a file holds: a list, `{receipts: [...]}` (a saved set, or a heads file of `nj-ledger heads export`). */
export function receiptsOf(document) {
  const list = Array.isArray(document) ? document : document && document.receipts;
  return Array.isArray(list) ? list.filter(wellFormed) : [];
}

/** The receipts held, as a file to save (the audit page and `nj-ledger heads check` read it back). */
export function receiptsFile() {
  const receipts = Object.values(load()).flat().filter(wellFormed)
    .sort((a, b) => a.game.localeCompare(b.game) || a.version - b.version);
  return JSON.stringify({ format: "nj-ledger/receipts", version: 1, receipts }, null, 1);
}
