// The big screen's tables (GET …/screen): between rounds, where everyone sits — each table's number, code, QR code
// of its page and players in seat order, in cards that fill the screen without scrolling; during a round, each
// table's progress beside the leaderboard. A progress is always a sign and a word; the colour only adds to it.

import { el, t } from "./common.js";

const NARROW = 700; // px: below, the cards are not fitted to the window

/** The grid's columns for `count` cards in a `width` × `height` box: the choice that gives the largest cards of
 * about the shape a card needs (a QR code beside a list of names). */
export function cardColumns(count, width, height, shape = 1.45) {
  let best = 1;
  let size = 0;
  for (let columns = 1; columns <= Math.max(1, count); columns += 1) {
    const rows = Math.ceil(count / columns);
    const fits = Math.min(width / columns / shape, height / rows);
    if (fits > size + 0.5) {
      size = fits;
      best = columns;
    }
  }
  return best;
}

/** The address a phone types a table's code at, from a table's page (`https://host/tables/CODE`). */
function joinPage(tables) {
  const page = tables.find((table) => table.page)?.page;
  if (!page) return `${location.origin}/tables`;
  return new URL("/tables", page).href;
}

function seatCard(table) {
  return el("li", { class: "seat-card", dataset: { table: table.table, seats: table.players.length } },
    el("div", { class: "seat-card-head" },
      el("span", { class: "seat-card-table" }, t("evening.table_n", { table: table.table })),
      table.code ? el("span", { class: "seat-card-code code" }, table.code) : null),
    el("div", { class: "seat-card-body" },
      table.qr ? el("img", { class: "seat-card-qr", src: table.qr, alt: t("screen.table_qr_alt", { table: table.table }) })
        : null,
      el("ol", { class: "seat-card-players" }, table.players.map((name) => el("li", {}, name)))));
}

/** The seating of `view.round`: a heading, how a phone opens its table, and a card per table. */
export function seatingSection(view) {
  const title = view.round_status === "planned" ? t("screen.seating_planned", { round: view.round })
    : t("screen.seating", { round: view.round });
  const cards = el("ol", { class: "seat-cards", "aria-labelledby": "seating-title" }, view.tables.map(seatCard));
  cards.style.setProperty("--cards", String(view.tables.length));
  return el("section", { id: "seating", class: "seating", dataset: { round: view.round, status: view.round_status } },
    el("h2", { id: "seating-title" }, title),
    // a results link reads no codes (they open the tables): then there is nothing to scan or type
    view.tables.some((table) => table.code) ? el("p", { class: "seating-hint" }, t("screen.scan", { page: joinPage(view.tables) }))
      : null,
    cards);
}

/** Size the seating to the window: the cards take the height left below the heading, in as many columns as suit. */
export function fitSeating() {
  const section = document.getElementById("seating");
  if (!section) return;
  const cards = section.querySelector(".seat-cards");
  const narrow = window.innerWidth < NARROW; // a phone: one card under another, scrolled
  cards.classList.toggle("narrow", narrow);
  if (narrow) {
    for (const name of ["--columns", "--rows", "height"]) cards.style.removeProperty(name);
    fitNames(cards);
    return;
  }
  const bottom = parseFloat(getComputedStyle(document.querySelector("main")).paddingBottom) || 0;
  const height = Math.max(240, window.innerHeight - cards.getBoundingClientRect().top - bottom - 4);
  const count = cards.children.length;
  const columns = cardColumns(count, cards.clientWidth, height);
  cards.style.setProperty("--columns", String(columns));
  cards.style.setProperty("--rows", String(Math.max(1, Math.ceil(count / columns))));
  cards.style.height = `${height}px`;
  fitNames(cards);
}

/** Names as large as each card allows, card by card: shrunk until the longest name fits its line and the table's
 * players fit their card — down to three quarters of the card's size; past that, a long name goes on two lines
 * (between its words) rather than shrinking the whole table further. Nothing is ever cut. */
function fitNames(cards) {
  for (const list of cards.querySelectorAll(".seat-card-players")) {
    list.style.removeProperty("font-size");
    list.classList.remove("wrapped");
    const start = parseFloat(getComputedStyle(list).fontSize);
    const over = () => list.scrollWidth > list.clientWidth + 1 || list.scrollHeight > list.clientHeight + 1;
    let size = start;
    while (size > 12 && over()) {
      if (!list.classList.contains("wrapped") && size * 0.93 < start * 0.75) list.classList.add("wrapped");
      else size = Math.floor(size * 0.93);
      list.style.fontSize = `${size}px`;
    }
  }
}

/** The tables of the round under way: each one's progress and its deals played. */
export function progressSection(view) {
  const rows = view.tables.map((table) => el("li", { class: `progress-row progress-${table.progress}`,
    dataset: { table: table.table, progress: table.progress } },
  el("div", { class: "progress-head" },
    el("strong", { class: "progress-table" }, t("evening.table_n", { table: table.table })),
    el("span", { class: "progress-state" }, t(`screen.progress.${table.progress}`))),
  el("div", { class: "progress-more" },
    ["planned", "waiting"].includes(table.progress) ? null : el("span", { class: "progress-deals" },
      t("deals_played", { count: table.deals_played })),
    el("span", { class: "progress-players" }, table.players.join(", ")))));
  const list = el("ol", { class: "progress-list" }, rows);
  list.style.setProperty("--count", String(Math.max(1, rows.length)));
  return el("section", { id: "progress", class: "progress", dataset: { round: view.round } },
    el("h2", {}, t("screen.tables", { round: view.round })), list);
}
