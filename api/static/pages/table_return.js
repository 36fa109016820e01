// The way back from a club evening's scorer to its table. A scorer opened from a table's page carries the table in
// its address (`#table={code}`); once its game has ended, the scorer shows a button back to that table's page
// (`/tables/{code}`), where the result is confirmed and the next round shows. When the evening asks for
// confirmation, it also says that the result waits for a second player's confirmation there, or who confirmed it.

import { api, el, t, tableCode } from "./common.js";

const table = { code: tableCode(), view: null, asked: false };

/** Read the table once the game has ended (its view says whether the evening asks for confirmation). */
function readTable(redraw) {
  table.asked = true;
  api(`/tables/${table.code}`).then((view) => { table.view = view; redraw(); }).catch(() => {
    table.asked = false; // no connection: the button still leads back; asked again at the next drawing
  });
}

/**
 * What the scorer of `game` shows above its controls for the table it was opened from: nothing while the game is
 * played or when it was not opened from a table; once ended, the way back and where the confirmation stands.
 * `redraw` is called when the table's view arrives.
 */
export function tableReturn(game, state, redraw) {
  if (!table.code || state.status !== "ended") {
    table.view = null; // an undo past the end: the table is read again at the next end
    table.asked = false;
    return [];
  }
  if (!table.asked) readTable(redraw);
  const parts = [el("a", { id: "back-to-table", class: "button primary big-button", href: `/tables/${table.code}` },
    t("table.back_after_end"))];
  const played = table.view?.games.find((g) => g.game === game);
  if (table.view?.confirmation && played && played.mark !== "voided") {
    parts.push(played.confirmed_by
      ? el("p", { id: "table-confirmation", class: "ok-line" }, "✓ ", t("table.confirmed_by", { player: played.confirmed_by }))
      : el("p", { id: "table-confirmation", class: "awaits-confirmation" }, t("table.awaits_confirmation")));
  }
  return [el("section", { id: "table-return", class: "table-return" }, ...parts)];
}
