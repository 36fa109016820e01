// "Your next table" on a player's own phone. A phone that joined a table by its code may be one player's own: on
// the table's page, that player taps their name in the seat list ("This is me"), and the phone keeps it for the
// evening (`localStorage`, under the evening's id; forgotten with the rest of the club's keys, forget.js). Once
// the director draws a round, the page opens with where that player sits now, big — "Your next table: Table 3"
// and a button to that table's page (which joins it by its code), "You stay at this table" or "You do not play in
// round 4" — above the table's list for its other players. The place comes from the table's `moves`, or, for a
// phone left on the page of a table the player sat at earlier, from the views of the evening's other tables this
// phone holds a token of (the player's later tables, joined here), each read with its own token.

import { TABLE_KEY, api, el, t, tableSession } from "./common.js";

const ME_KEY = "nj-ledger.me."; // + the evening's id: the player this phone follows at that evening
const READ_AT_MOST = 8; // other tables read to find the player, at each reading of this one
const evenings = new Map(); // code → evening of the tables read: another evening's tables are not read again

const meKey = (view) => ME_KEY + (view.evening || `table.${view.code}`);

/** The player this phone follows at `view`'s evening, or null. */
export function claimed(view) {
  try {
    return localStorage.getItem(meKey(view)) || null;
  } catch (ignored) {
    return null; // storage refused: nobody is followed
  }
}

function keep(view, name) {
  try {
    if (name) localStorage.setItem(meKey(view), name);
    else localStorage.removeItem(meKey(view));
  } catch (ignored) { /* private mode refusing storage: the claim holds for this visit only */ }
}

/**
 * Where `name` sits in the round just drawn, by this table's view alone: `{round, table, code, stays}` from its
 * `moves`, `{here: true}` when they are seated at this table now with no move to tell, else null.
 */
export function placeHere(view, name) {
  const move = view.moves?.players.find((p) => p.name === name);
  if (move) return { round: view.moves.round, table: move.table, code: move.code, stays: move.stays };
  return view.current?.players.includes(name) ? { here: true } : null;
}

function codesHeld(view) {
  const codes = [];
  try {
    for (const key of Object.keys(localStorage)) {
      const code = key.startsWith(TABLE_KEY) ? key.slice(TABLE_KEY.length) : null;
      if (code && code !== view.code && (evenings.get(code) ?? view.evening) === view.evening) codes.push(code);
    }
  } catch (ignored) { /* storage refused: no other table is known */ }
  return codes.slice(0, READ_AT_MOST);
}

/**
 * Where `name` sits in `view`'s round at another table of the evening, from the tables this phone holds a token of
 * (a phone left on an earlier table's page): `{round, table, code, stays: false}`, or null when none says.
 */
export async function placeElsewhere(view, name) {
  const read = await Promise.all(codesHeld(view).map((code) =>
    api(`/tables/${code}`, { session: tableSession(code) }).then((other) => {
      evenings.set(code, other.evening);
      return other;
    }, () => null))); // a token no longer valid, no connection: that table says nothing
  const now = read.filter((other) => other && other.evening === view.evening
    && other.current_round === view.current_round);
  for (const other of now) {
    if (other.current?.players.includes(name)) {
      return { round: view.current_round, table: other.table, code: other.code, stays: other.table === view.table };
    }
  }
  for (const other of now) {
    const move = other.moves?.players.find((p) => p.name === name);
    if (move) return { round: other.moves.round, table: move.table, code: move.code, stays: move.table === view.table };
  }
  return null;
}

/** "Ana (you) · Not you? Change": who this phone follows, and the way to follow someone else. */
function meLine(view, name, changed) {
  return el("p", { id: "me-line", class: "me-line" }, el("span", {}, t("table.me_is", { name })),
    el("button", { type: "button", id: "me-change", class: "quiet-link",
      onclick: () => { keep(view, null); changed("#me-claims button"); } }, t("table.me_change")));
}

/**
 * The panel at the top of the page for the player this phone follows, when the round just drawn seats them
 * elsewhere (a big button to their table), keeps them here, or leaves them out; null when there is nothing to say.
 */
export function nextPanel(view, place, name, changed) {
  if (!name || !place || place.here || view.status === "closed") return null;
  let told;
  if (place.stays) told = [el("h2", { id: "my-next-title" }, t("table.me_stay"))];
  else if (place.table === null) told = [el("h2", { id: "my-next-title" }, t("table.me_out", { round: place.round }))];
  else {
    told = [el("h2", { id: "my-next-title" }, t("table.me_next", { table: place.table })),
      place.code ? el("a", { id: "my-next-open", class: "button primary big-button", href: `/tables/${place.code}` },
        t("table.me_open", { table: place.table })) : null];
  }
  return el("section", { id: "my-next", class: "my-next", "aria-labelledby": "my-next-title",
    dataset: { table: place.table ?? "" } },
  el("p", { class: "my-next-round" }, t("table.round", { round: place.round })), ...told,
  meLine(view, name, changed));
}

/**
 * The seat list of the table's game: on an open evening, each name a button ("This is me") until one is claimed on
 * this phone, then that name marked, with the way to change it below (unless the top panel already shows it).
 */
export function seatList(view, players, name, panelShown, changed) {
  const open = view.status !== "closed";
  if (!open) return [el("ol", { class: "seat-list" }, players.map((player) => el("li", {}, player)))];
  if (name) {
    return [el("ol", { class: "seat-list" }, players.map((player) => (player === name
      ? el("li", { class: "me" }, player, el("span", { class: "me-mark" }, ` ${t("table.me_you")}`))
      : el("li", {}, player)))),
    panelShown ? null : meLine(view, name, changed)];
  }
  return [el("p", { id: "me-hint", class: "hint me-hint" }, t("table.me_hint")),
    el("ol", { id: "me-claims", class: "seat-list claimable" }, players.map((player, seat) => el("li", {},
      el("button", { type: "button", id: `me-claim-${seat}`, class: "me-claim", "aria-describedby": "me-hint",
        onclick: () => { keep(view, player); changed("#me-change"); } }, player))))];
}

/** Who this phone follows when the table has no game this round (the seat list is not shown). */
export function meAlone(view, name, panelShown, changed) {
  return name && !panelShown && view.status !== "closed" ? meLine(view, name, changed) : null;
}
