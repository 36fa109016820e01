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

async function draw() {
  const board = await api(path("leaderboard"));
  const screen = $("#screen");
  screen.dataset.frozen = String(board.frozen);
  screen.dataset.version = String(board.version);
  $("#title").textContent = board.name;
  let state;
  if (board.status === "closed") state = t("screen.final");
  else if (board.frozen) state = `❄ ${t("screen.frozen_after", { round: board.through_round })}`;
  else if (board.current_round === 0) state = t("screen.not_started");
  else state = t("screen.after_round", { round: board.current_round, rule: t(`evening.rule.${board.rule}`) });
  $("#screen-state").textContent = state;
  $("#screen-state").classList.toggle("frozen", board.frozen);
  const rows = board.rows.map((row) => el("tr", { class: row.withdrawn ? "withdrawn" : "", dataset: { name: row.name } },
    el("td", { class: "rank" }, row.rank ?? "–"),
    el("td", { class: "name" }, row.name, row.withdrawn ? el("span", { class: "hint" }, ` (${t("screen.withdrawn")})`) : null),
    el("td", { class: "num score" }, scoreText(row.score)),
    el("td", { class: "num games" }, row.games)));
  $("#board").replaceChildren(el("table", { id: "leaderboard", class: "leaderboard" },
    el("thead", {}, el("tr", {}, el("th", { class: "rank" }, t("screen.rank")), el("th", {}, t("player")),
      el("th", { class: "num" }, t("screen.score")), el("th", { class: "num" }, t("screen.games")))),
    el("tbody", {}, rows)));
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
