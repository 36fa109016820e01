// The big screen of a club evening, for a television or a projector across the room (GET …/leaderboard and
// GET …/screen). Between rounds — before the first, or a round drawn whose games have not begun — it shows where
// everyone sits: each table's number, its players in seat order, its code and the QR code of its page. During a
// round, the leaderboard with each table's progress beside it; once the evening is closed, the final leaderboard.
// A player with no result yet has no rank ("–"), never "1st with 0". While the director keeps the leaderboard
// frozen, it shows the rounds up to the frozen one and says so; revealed, every round.
// It is drawn again when the director decides something (the evening's stream: a round started, a result
// confirmed, a mend, the leaderboard frozen or revealed, the evening closed), when a deal or a game ends at one of
// the club's tables (the club's stream, signed in), and every few seconds (games begun, and a share, opened with
// #share=… from the director's big-screen link, cannot read the club's stream).

import { $, api, el, requireSession, session, sharedSecret, start, t } from "./common.js";
import { follow } from "./follow.js";
import { eveningPath, scoreText } from "./marks.js";
import { fitSeating, progressSection, seatingSection } from "./screen_tables.js";

const club = document.body.dataset.club;
const evening = document.body.dataset.evening;
const path = (...rest) => eveningPath(club, evening, ...rest);
const POLL_EVERY = 10_000;
const SETTLE = 300;
const PER_COLUMN = 12;

/** How many of the current round's tables have their result in (counted or voided), as the rows tell. */
function tablesIn(board) {
  const games = new Map();
  for (const row of board.rows) {
    for (const r of row.rounds) if (r.round === board.current_round && r.game) games.set(r.game, r.mark);
  }
  if (!games.size) return "";
  const done = [...games.values()].filter((mark) => mark === "counted" || mark === "voided").length;
  return t("screen.tables_in", { done, count: games.size });
}

/** A player the ranking leaves unranked (rank null) who has not withdrawn: no result yet. The ranking alone
 * says who has a result (an adjustment is one, whatever its amount); the page does not decide again. */
const unranked = (row) => !row.withdrawn && row.rank === null;

/** The leaderboard's rows in the ranking's order: the ranked players, then those with no result yet, then the
 * withdrawn. */
function leaderboard(board) {
  const rows = board.rows.map((row) => {
    const none = unranked(row);
    const kind = row.withdrawn ? "withdrawn" : none ? "unranked" : row.rank <= 3 ? "podium" : "";
    return el("tr", { class: kind, dataset: { name: row.name } },
      el("td", { class: "rank" }, row.rank ?? "–"),
      el("td", { class: "name" }, row.name, row.withdrawn ? el("span", { class: "hint" }, ` (${t("screen.withdrawn")})`) : null),
      el("td", { class: "num score" }, none ? "–" : scoreText(row.score)),
      el("td", { class: "num games" }, row.games));
  });
  // Read across the room: more players than fit one column go on in a second (a third past 36), side by side.
  const columns = Math.min(3, Math.ceil(rows.length / PER_COLUMN)) || 1;
  const height = Math.ceil(rows.length / columns);
  const tables = [...Array(columns)].map((_, c) => el("table", { class: "leaderboard" },
    el("thead", {}, el("tr", {}, el("th", { class: "rank" }, t("screen.rank")), el("th", {}, t("player")),
      el("th", { class: "num" }, t("screen.score")), el("th", { class: "num" }, t("screen.games")))),
    el("tbody", {}, rows.slice(c * height, (c + 1) * height))));
  return el("div", { id: "leaderboard", class: `leaderboards columns-${columns}` }, tables);
}

function stateLine(board) {
  if (board.status === "closed") return t("screen.final");
  if (board.frozen) return `❄ ${t("screen.frozen_after", { round: board.through_round })}`;
  if (board.current_round === 0) return t("screen.not_started");
  return [t("screen.after_round", { round: board.current_round, rule: t(`evening.rule.${board.rule}`) }),
    tablesIn(board)].filter(Boolean).join(" · ");
}

let draws = 0;
/** Read the leaderboard and the tables and draw them; an answer overtaken by a later read is dropped. */
async function draw() {
  const ticket = ++draws;
  const [board, view] = await Promise.all([api(path("leaderboard")), api(path("screen"))]);
  if (ticket !== draws) return;
  const screen = $("#screen");
  screen.dataset.frozen = String(board.frozen);
  screen.dataset.version = String(board.version);
  screen.dataset.phase = view.phase;
  $("#title").textContent = board.name;
  $("#screen-state").textContent = stateLine(board);
  $("#screen-state").classList.toggle("frozen", board.frozen);
  if (view.phase === "seating" && view.tables.length) {
    $("#board").replaceChildren(seatingSection(view));
    fitSeating();
  } else if (view.phase === "playing" && view.tables.length) {
    $("#board").replaceChildren(el("div", { class: "screen-columns" }, leaderboard(board), progressSection(view)));
  } else {
    $("#board").replaceChildren(leaderboard(board));
  }
}

let timer = null;
function soon() {
  if (timer) return;
  timer = setTimeout(() => { timer = null; draw().catch(() => {}); }, SETTLE);
}

async function main() {
  requireSession();
  document.body.classList.add("screen-page");
  await draw();
  window.addEventListener("resize", fitSeating);
  follow(path("stream"), { after: Number($("#screen").dataset.version), onEvent: soon });
  if (!sharedSecret() && session()) {
    follow(`/clubs/${encodeURIComponent(club)}/stream`, {
      onEvent: (data) => { if (data.type === "deal_ended" || data.type === "game_ended") soon(); },
    });
  }
  setInterval(soon, POLL_EVERY); // a game begun is no decision nor a deal ended: the seating gives way to it here
}

start(main);
