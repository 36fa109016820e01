// The club's home: live games (to score or watch), then every game newest first (by the day played), a page at a
// time, found by title, player, status and day; links to everything else. The filters are kept in the address,
// so a reload or a shared link shows the same list. The live games update by themselves: the club's stream
// (follow.js) tells of games started, deals ended and games ended, and of deals and games an undo brought back
// (deal_undone, game_reopened), and the live list is read again; the rows of those games in the list below are
// redrawn with what it read (their status, their deals played).

import { $, api, el, requireSession, start, t } from "./common.js";
import { setupImport } from "./exchange.js";
import { follow } from "./follow.js";
import { setupPhones } from "./phones.js";

const STATUS = (status) => t(`status.${status}`);
const PAGE = 20;
const LIVE = 5;
const FILTERS = ["title", "player", "status", "date"];

function gameRow(game) {
  const id = encodeURIComponent(game.id);
  const live = game.status !== "ended";
  return el("li", { class: `game ${game.status}`, dataset: { game: game.id } },
    el("div", { class: "what" },
      el("strong", {}, game.title || game.players.join(", ")),
      el("span", { class: "meta" }, [
        game.date, t(`profile.${game.profile}`), STATUS(game.status),
        t("deals_played", { count: game.deals_played }),
      ].join(" · ")),
      game.title ? el("span", { class: "meta" }, game.players.join(", ")) : null),
    el("div", { class: "go" },
      live ? el("a", { class: "button primary", href: `/games/${id}/record` }, t("link.record")) : null,
      el("a", { class: "button", href: `/games/${id}/replay` }, t("link.replay")),
      el("a", { class: "button", href: `/games/${id}/audit` }, t("link.audit"))));
}

function list(games, empty) {
  return games.length ? el("ul", { class: "games" }, games.map(gameRow)) : el("p", { class: "empty" }, empty);
}

/** The filters as the form holds them (blank ones left out). */
function chosenFilters() {
  const chosen = {};
  for (const name of FILTERS) {
    const value = $(`#f-${name}`).value.trim();
    if (value) chosen[name] = value;
  }
  return chosen;
}

function filtersFromAddress() {
  const query = new URLSearchParams(location.search);
  for (const name of FILTERS) $(`#f-${name}`).value = query.get(name) || "";
}

let next = null; // the API's URL of the next page, or null on the last
let shown = [];
let asked = 0; // the latest request: an older answer arriving late is dropped

async function showPage(path, append) {
  const ticket = ++asked;
  const more = $("#more");
  more.disabled = true;
  const page = await api(path);
  if (ticket !== asked) return;
  shown = append ? [...shown, ...page.games] : page.games;
  next = page.next ? page.next.replace(/^\/api\/v1/, "") : null;
  const filtered = Object.keys(chosenFilters()).length > 0;
  $("#games").replaceChildren(list(shown, t(filtered ? "home.none_found" : "home.no_games")));
  more.hidden = !next;
  more.disabled = false;
  $("#shown").textContent = shown.length ? t(next ? "home.shown_more" : "home.shown", { count: shown.length }) : "";
  if (append) {
    const first = document.querySelectorAll("#games li.game")[shown.length - page.games.length];
    if (first) first.querySelector("a").focus({ preventScroll: false });
  }
}

function search(club) {
  const chosen = chosenFilters();
  const query = new URLSearchParams(chosen);
  history.replaceState(null, "", query.toString() ? `?${query}` : location.pathname);
  query.set("limit", PAGE);
  return showPage(`/clubs/${club}/games?${query}`, false);
}

/** The newest few live games: every game, live ones too, is in the list below. The games read, newest first. */
async function showLive(club) {
  const live = await api(`/clubs/${club}/games?limit=50`);
  $("#live").replaceChildren(list(live.games.filter((g) => g.status !== "ended").slice(0, LIVE), t("home.no_live")));
  return live.games;
}

/** Redraw the rows of the list below whose game is among `games` as read now (a game ended, or reopened by an
 * undo, shows its new status), leaving the rest of the list, and the pages loaded, as they are. */
function refreshShown(games) {
  const fresh = new Map(games.map((game) => [game.id, game]));
  shown = shown.map((game) => {
    const now = fresh.get(game.id);
    if (!now || (now.status === game.status && now.deals_played === game.deals_played)) return game;
    const row = [...document.querySelectorAll("#games li.game")].find((li) => li.dataset.game === game.id);
    if (row) row.replaceWith(gameRow(now));
    return now;
  });
}

const SETTLE = 250; // events that come together (the feed read from its start when the page opens) read the list once

/** Follow the club's stream: each game started, deal ended, game ended, deal undone or game reopened reads the
 * live games again, and redraws the rows below of the games it read. */
function followLive(club) {
  let timer = null;
  follow(`/clubs/${club}/stream`, {
    onEvent: () => {
      if (timer) return;
      timer = setTimeout(() => { timer = null; showLive(club).then(refreshShown).catch(() => {}); }, SETTLE);
    },
  });
}

async function main() {
  const session = requireSession();
  const club = encodeURIComponent(session.club);
  $("#scoreboard-link").href = `/clubs/${club}/scoreboard`;
  $("#evenings-link").href = `/clubs/${club}/evenings`;
  filtersFromAddress();
  $("#filters").addEventListener("submit", (event) => { event.preventDefault(); search(club); });
  $("#filters").addEventListener("reset", () => { setTimeout(() => search(club)); });
  $("#f-status").addEventListener("change", () => search(club));
  $("#f-date").addEventListener("change", () => search(club));
  $("#more").addEventListener("click", () => { if (next) showPage(next, true); });
  setupPhones(club); // the address phones open, and the code that signs one in
  // an imported game joins the lists at once
  document.addEventListener("nj:imported", () => Promise.all([showLive(club), search(club)]));
  const [info] = await Promise.all([api(`/clubs/${club}`), showLive(club), search(club)]);
  followLive(club);
  $("#club-title").textContent = info.name;
  $("#club-name").textContent = info.name;
  const members = await api(`/clubs/${club}/players?limit=500`);
  $("#members").replaceChildren(...members.players.map((p) => el("option", { value: p.name })));
}

setupImport();
start(main);
