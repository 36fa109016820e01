// The director's tables for the next round, set by hand: the plan's tables (or, past the planned rounds, a
// proposal: the players present dealt across the evening's split so that last round's tablemates part), changed by
// tapping two players to swap their seats, or a player then a table to move him there; then the round starts with
// these tables (`POST …/rounds {tables, force}`, docs/EVENINGS.md).

import { el, t } from "./common.js";
import { split } from "./seating.js";

/** The tables proposed for the next round: the plan's when it has one, else the players present spread over the
 * split of their count by the evening's table rule, the player of seat s at table t of the latest round to table
 * t + s (so that those who sat together part), newcomers to the emptiest tables. */
export function proposedTables(evening, grid) {
  const next = evening.current_round + 1;
  const planned = grid.tables.map((row) => row.cells[next - 1]).filter(Boolean).map((cell) => [...cell.players]);
  if (planned.length) return planned;
  const active = evening.players.filter((p) => p.present && !p.withdrawn).map((p) => p.name);
  const rule = evening.table_rule || {};
  const sizes = split(active.length, rule.smallest ?? 3, rule.preferred ?? 4, rule.largest ?? 8);
  if (!sizes) return [active];
  const where = new Map();
  grid.tables.map((row) => row.cells[evening.current_round - 1]).filter(Boolean)
    .forEach((cell, table) => cell.players.forEach((name, seat) => where.set(name, [seat, table])));
  const seated = active.filter((name) => where.has(name))
    .sort((a, b) => where.get(a)[0] - where.get(b)[0] || where.get(a)[1] - where.get(b)[1]);
  const tables = sizes.map(() => []);
  for (const name of seated) {
    const [seat, table] = where.get(name);
    let target = (table + seat) % sizes.length;
    while (tables[target].length >= sizes[target]) target = (target + 1) % sizes.length;
    tables[target].push(name);
  }
  for (const name of active.filter((n) => !where.has(n))) {
    const target = tables.reduce((best, players, i) => (sizes[i] - players.length > sizes[best] - tables[best].length
      ? i : best), 0);
    tables[target].push(name);
  }
  return tables;
}

/**
 * The editor: `state` is `{tables, picked}` (kept by the page across redraws); `onChange` redraws it.
 * Returns the element.
 */
export function seatEditor(state, onChange) {
  const pick = (table, seat) => {
    const picked = state.picked;
    if (!picked) {
      state.picked = [table, seat];
    } else if (picked[0] === table && picked[1] === seat) {
      state.picked = null;
    } else {
      const a = state.tables[picked[0]][picked[1]];
      state.tables[picked[0]][picked[1]] = state.tables[table][seat];
      state.tables[table][seat] = a;
      state.picked = null;
    }
    onChange();
  };
  const moveHere = (table) => {
    const [from, seat] = state.picked;
    const [name] = state.tables[from].splice(seat, 1);
    state.tables[table].push(name);
    state.picked = null;
    state.tables = state.tables.filter((players) => players.length);
    onChange();
  };
  const addTable = () => {
    state.tables.push([]);
    onChange();
  };
  const boxes = state.tables.map((players, table) => el("div", { class: "seat-table", dataset: { table: table + 1 } },
    el("strong", {}, t("evening.table_n", { table: table + 1 }), " ",
      el("span", { class: "hint" }, t("evening.seats_count", { count: players.length }))),
    el("ol", {}, players.map((name, seat) => el("li", {}, el("button", {
      type: "button", class: "seat-player", dataset: { name },
      "aria-pressed": String(Boolean(state.picked && state.picked[0] === table && state.picked[1] === seat)),
      onclick: () => pick(table, seat) }, name)))),
    state.picked && state.picked[0] !== table
      ? el("button", { type: "button", class: "move-here", onclick: () => moveHere(table) },
        t("evening.move_here", { name: state.tables[state.picked[0]][state.picked[1]] }))
      : null));
  return el("div", { class: "seat-editor" },
    el("p", { class: "hint" }, t("evening.seats_explain")),
    el("div", { class: "seat-tables" }, boxes),
    el("p", {}, el("button", { type: "button", id: "add-table", onclick: addTable }, t("evening.add_table"))));
}
