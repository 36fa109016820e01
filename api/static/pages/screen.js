// The big screen: the evening's leaderboard in large type for a projector. It is drawn again when a deal or a game
// ends at one of the club's tables (the club's stream) and when the director decides something (the evening's
// stream: a round started, a result confirmed, a mend, the leaderboard frozen or revealed, the evening closed).
// While the director keeps it frozen, it shows the rounds up to the frozen one and says so; revealed, every round.
// Opened with an evening's share (#share=…), it follows the evening's stream and reads the leaderboard every
// few seconds (a share cannot read the club's stream).

import { $, api, el, requireSession, session, sharedSecret, start, t } from "./common.js";
import { follow } from "./follow.js";
import { eveningPath, scoreText } from "./marks.js";

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

let draws = 0;
/** Read the leaderboard and draw it; an answer overtaken by a later read is dropped (never drawn over it). */
async function draw() {
  const ticket = ++draws;
  const board = await api(path("leaderboard"));
  if (ticket !== draws) return;
  const screen = $("#screen");
  screen.dataset.frozen = String(board.frozen);
  screen.dataset.version = String(board.version);
  $("#title").textContent = board.name;
  let state;
  if (board.status === "closed") state = t("screen.final");
  else if (board.frozen) state = `❄ ${t("screen.frozen_after", { round: board.through_round })}`;
  else if (board.current_round === 0) state = t("screen.not_started");
  else state = [t("screen.after_round", { round: board.current_round, rule: t(`evening.rule.${board.rule}`) }),
    tablesIn(board)].filter(Boolean).join(" · ");
  $("#screen-state").textContent = state;
  $("#screen-state").classList.toggle("frozen", board.frozen);
  const rows = board.rows.map((row) => el("tr", { class: row.withdrawn ? "withdrawn" : row.rank <= 3 ? "podium" : "", dataset: { name: row.name } },
    el("td", { class: "rank" }, row.rank ?? "–"),
    el("td", { class: "name" }, row.name, row.withdrawn ? el("span", { class: "hint" }, ` (${t("screen.withdrawn")})`) : null),
    el("td", { class: "num score" }, scoreText(row.score)),
    el("td", { class: "num games" }, row.games)));
  // Read across the room: more players than fit one column go on in a second (a third past 36), side by side.
  const columns = Math.min(3, Math.ceil(rows.length / PER_COLUMN)) || 1;
  const height = Math.ceil(rows.length / columns);
  const tables = [...Array(columns)].map((_, c) => el("table", { class: "leaderboard" },
    el("thead", {}, el("tr", {}, el("th", { class: "rank" }, t("screen.rank")), el("th", {}, t("player")),
      el("th", { class: "num" }, t("screen.score")), el("th", { class: "num" }, t("screen.games")))),
    el("tbody", {}, rows.slice(c * height, (c + 1) * height))));
  $("#board").replaceChildren(el("div", { id: "leaderboard", class: `leaderboards columns-${columns}` }, tables));
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
  follow(path("stream"), { after: Number($("#screen").dataset.version), onEvent: soon });
  if (!sharedSecret() && session()) {
    follow(`/clubs/${encodeURIComponent(club)}/stream`, {
      onEvent: (data) => { if (data.type === "deal_ended" || data.type === "game_ended") soon(); },
    });
  } else {
    setInterval(soon, POLL_EVERY);
  }
}

start(main);
