// The director's page's state and its writes: the evening as last read, the director's writes sent with
// `If-Match` (sent again when only tables' confirmations came between), and the director's name, asked once on
// this device and kept (localStorage), with which every decision, round and close is signed (`signed_by`).

import { ApiError, api, newKey, notify, t } from "./common.js";
import { eveningPath } from "./marks.js";

export const page = {
  club: document.body.dataset.club,
  id: document.body.dataset.evening,
  evening: null,
  grid: null,
  ranking: null, // read once the evening is closed: its final results
  decisions: [],
  kind: "adjustment",
  busy: false,
  members: [], // the club's players, offered to arrive
  seats: null, // the next round's tables being set by hand: {round, players, tables, picked}
  confirming: {}, // game → the player of its table picked to confirm it from the grid
};

/** What the page does once a write went through: read the evening again and draw it (set by evening.js). */
export const hooks = { load: async () => {} };

export const path = (...rest) => eveningPath(page.club, page.id, ...rest);
export const pagePath = (...rest) => [`/clubs/${encodeURIComponent(page.club)}/evenings/${encodeURIComponent(page.id)}`,
  ...rest].join("/");

/** A failure as the page says it: the server's sentence, or the page's own. */
export const failureText = (failure) => (failure instanceof ApiError ? failure.message : t("error.unexpected"));

// --- the director's name -------------------------------------------------------------------------------------
const NAME_KEY = "nj-ledger.director-name";

/** The name this device signs the director's decisions with ("" until it is given). */
export function directorName() {
  try {
    return (localStorage.getItem(NAME_KEY) || "").trim();
  } catch (ignored) {
    return "";
  }
}

export function keepDirectorName(name) {
  try {
    if (name.trim()) localStorage.setItem(NAME_KEY, name.trim().slice(0, 80));
    else localStorage.removeItem(NAME_KEY);
  } catch (ignored) { /* private browsing: the name is asked again next time */ }
}

// --- the director's writes -----------------------------------------------------------------------------------
/** Only a table's confirmation was recorded since `version`: the director's decision still means what it meant. */
async function onlyConfirmedSince(version) {
  const log = await api(path("decisions"));
  const since = log.decisions.filter((d) => d.seq > version);
  return since.length > 0 && since.every((d) => d.type === "result_confirmed") ? log.version : null;
}

/**
 * A director's write with `If-Match`, the evening's version as this page drew it, signed with the director's
 * name: a decision recorded since is refused (409), except that the tables' phones confirming results meanwhile
 * do not turn the director's tap down (it is sent again on the new version, a few times at most).
 */
export async function directorPost(apiPath, body) {
  const name = directorName();
  const signed = name ? { ...body, signed_by: name } : body;
  let version = page.evening.version;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api(apiPath, { method: "POST", body: signed, ifMatch: version, key: newKey() });
    } catch (failure) {
      if (!(failure instanceof ApiError) || failure.status !== 409 || attempt >= 3) throw failure;
      const newer = await onlyConfirmedSince(version).catch(() => null);
      if (newer === null) throw failure;
      version = newer;
    }
  }
}

/** A decision (`POST …/decisions`): true once recorded and the page drawn again. */
export async function decide(body, button) {
  if (page.busy) return false;
  page.busy = true;
  if (button) button.disabled = true;
  try {
    await directorPost(path("decisions"), body);
    notify(t("mend.recorded"), "info");
    await hooks.load();
    return true;
  } catch (failure) {
    notify(failureText(failure));
    if (failure instanceof ApiError && failure.status === 409) await hooks.load();
    return false;
  } finally {
    page.busy = false;
    if (button) button.disabled = false;
  }
}
