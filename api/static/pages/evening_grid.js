// The director's table × round grid, and what each table of the round waits for: its game being played, ended
// and waiting for a player of the table to confirm it, confirmed (or counted, when the evening asks no
// confirmation), or voided — said in words, each with the mark's sign, never by colour alone. While the evening is
// open a cell offers its game's scorer, and the director's confirmation for a player of the table who says the
// result is right; once it is closed, only the game's replay.

import { $, api, el, newKey, notify, t } from "./common.js";
import { failureText, hooks, page, path } from "./evening_state.js";
import { markText } from "./marks.js";

/** What a started game waits for, in a club's words. */
export function waitingText(cell) {
  if (cell.mark === "voided") return t("evening.wait.voided");
  if (cell.mark === "counted") {
    return cell.confirmed_by ? t("evening.wait.confirmed", { player: cell.confirmed_by }) : t("evening.wait.counted");
  }
  if (page.evening.status === "closed") {
    return t(cell.mark === "unconfirmed" ? "evening.wait.never_confirmed" : "evening.wait.never_ended");
  }
  if (cell.mark === "unconfirmed") return t("evening.wait.confirm", { players: cell.players.join(", ") });
  if (cell.mark === "missing") {
    return cell.deals_played ? t("evening.wait.playing") : t("evening.wait.ready");
  }
  return t("evening.round_waiting");
}

function cellElement(cell) {
  if (!cell) return el("td", { class: "cell empty-cell" }, "—");
  const open = page.evening.status === "open";
  const attrs = { class: `cell mark-${cell.mark}`, dataset: { round: cell.round, table: cell.table, mark: cell.mark } };
  const players = el("div", { class: "cell-players" }, cell.players.join(", "));
  const mark = el("div", { class: "cell-mark" }, markText(cell.mark));
  const more = [];
  if (cell.game) {
    more.push(el("div", { class: "cell-wait" }, waitingText(cell)));
    more.push(el("div", { class: "hint" }, t("deals_played", { count: cell.deals_played ?? 0 })));
    if (open) {
      more.push(el("a", { class: "cell-link", href: `/games/${encodeURIComponent(cell.game)}/record` }, t("link.record")));
    } else if (cell.deals_played) { // closed: the game's replay, when it has a deal to replay
      more.push(el("a", { class: "cell-link", href: `/games/${encodeURIComponent(cell.game)}/replay` }, t("link.replay")));
    }
    if (cell.mark === "unconfirmed" && open) more.push(confirmForm(cell));
  }
  return el("td", attrs, mark, players, ...more);
}

/** The director confirms a result from the grid, for a player of its table who says it is right. */
function confirmForm(cell) {
  const chosen = page.confirming[cell.game] ?? "";
  const who = el("select", { class: "confirm-player", "aria-label": t("evening.confirm_who"),
    onchange: (event) => { page.confirming[cell.game] = event.target.value; } },
  el("option", { value: "" }, t("evening.confirm_who")),
  cell.players.map((name) => el("option", { value: name, selected: name === chosen }, name)));
  const send = async (event) => {
    event.preventDefault();
    const player = who.value;
    if (!player) {
      notify(t("evening.confirm_pick"));
      return;
    }
    const button = event.target.querySelector("button");
    button.disabled = true;
    try {
      await api(path("confirmations"), { method: "POST", body: { game: cell.game, player }, key: newKey() });
      delete page.confirming[cell.game];
      notify(t("table.confirmed", { player }), "info");
      await hooks.load();
    } catch (failure) {
      button.disabled = false;
      notify(failureText(failure));
    }
  };
  return el("form", { class: "cell-confirm no-print", onsubmit: send }, who,
    el("button", { type: "submit", class: "confirm-button" }, t("evening.confirm")));
}

/** The current round's tables, one line each: who plays there and what its game waits for (the evening open). */
function renderWaiting() {
  const grid = page.grid;
  const box = $("#waiting");
  if (!box) return;
  const current = grid.current_round;
  if (grid.status !== "open" || current < 1) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  const cells = grid.tables.map((row) => row.cells[current - 1]).filter((cell) => cell && cell.game);
  box.hidden = false;
  box.replaceChildren(el("h3", {}, t("evening.wait.title", { round: current })),
    el("ul", { class: "waiting-list" }, cells.map((cell) => el("li", {
      class: `mark-${cell.mark}`, dataset: { table: cell.table, mark: cell.mark } },
    el("strong", {}, t("evening.table_n", { table: cell.table })), " · ",
    el("span", { class: "cell-mark" }, markText(cell.mark)), " — ",
    el("span", { class: "wait-what" }, waitingText(cell)),
    el("div", { class: "hint" }, cell.players.join(", "))))));
}

/** The grid's rounds: every round while the evening is open (those not started yet marked so); once it is
 * closed, only the rounds played, and the tables that sat in one of them. */
export function renderGrid() {
  const grid = page.grid;
  const shown = grid.status === "closed" ? Math.min(grid.current_round, grid.rounds) : grid.rounds;
  const rounds = [...Array(shown)].map((_, i) => i + 1);
  const head = el("tr", {}, el("th", {}, t("evening.table")),
    rounds.map((r) => (r <= grid.current_round
      ? el("th", { scope: "col", class: "started" }, t("evening.round", { round: r }))
      : el("th", { scope: "col", class: "planned" }, t("evening.round", { round: r }),
        el("div", { class: "hint" }, t("evening.round_waiting"))))));
  const rows = grid.tables
    .map((row) => ({ ...row, cells: row.cells.slice(0, shown) }))
    .filter((row) => row.cells.some((cell) => cell))
    .map((row) => el("tr", { dataset: { table: row.table } },
      el("th", { scope: "row" }, t("evening.table_n", { table: row.table }),
        grid.status === "open" ? el("div", { class: "hint code" }, row.code || "") : null),
      row.cells.map(cellElement)));
  $("#grid").replaceChildren(el("table", { id: "grid-table", class: "data evening-grid" }, el("thead", {}, head),
    el("tbody", {}, rows)));
  renderWaiting();
}
