// A table of a club evening, on the table's phone. Opened by its QR code, the address carries the table's token
// (`/tables/{code}#token=…`): it is kept on this phone and the address keeps only `#table={code}`, so a reload
// still works and the secret does not stay on the screen. Typed by hand (`/tables`), the code opens the table with
// the club's session. The page shows the table's game of the current round and opens its scorer; when the evening
// asks for confirmation, a player of the table confirms the result here. It follows the table's stream (each
// decision of the evening: a round started by the director, a result confirmed) and reads the table again at
// once; it also reads it every few seconds (a game played on another phone, or the stream dropped).

import {
  $, ApiError, api, cleanCode, el, keepTableToken, notify, requireSession, start, t, tableSession,
} from "./common.js";
import { follow } from "./follow.js";
import { markText } from "./marks.js";

const POLL_EVERY = 8000;
const page = { code: cleanCode(document.body.dataset.code), session: null, view: null, game: null, confirming: "" };

/** The table's token from the address (`#token=…`), kept on this phone; the address then names the table only. */
function takeToken() {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (token && /^[\w-]{20,200}$/.test(token)) keepTableToken(page.code, token);
  if (token || !location.hash) history.replaceState(null, "", `${location.pathname}#table=${page.code}`);
}

let loads = 0;
/** Read the table and its current game; an answer overtaken by a later read is dropped. */
async function load() {
  const ticket = ++loads;
  const view = await api(`/tables/${page.code}`, { session: page.session });
  const game = view.current && view.current.game
    ? await api(`/games/${encodeURIComponent(view.current.game)}`, { session: page.session }) : null;
  if (ticket !== loads) return;
  page.view = view;
  page.game = game;
  render();
}

function scorerHref(game) {
  return `/games/${encodeURIComponent(game)}/record${page.session.table ? `#table=${page.code}` : ""}`;
}

function standings() {
  const players = [...page.game.players].sort((a, b) => b.chips - a.chips);
  return el("table", { class: "data standings" },
    el("thead", {}, el("tr", {}, el("th", {}, t("player")), el("th", { class: "num" }, t("chips")))),
    el("tbody", {}, players.map((p) => el("tr", {}, el("td", {}, p.name), el("td", { class: "num" }, p.chips)))));
}

function confirmPanel(current) {
  const choices = current.players.map((name) => el("label", { class: "check pick-player" },
    el("input", { type: "radio", name: "confirmer", value: name, checked: page.confirming === name,
      onchange: () => { page.confirming = name; button.disabled = false; } }), " ", name));
  const button = el("button", { type: "button", id: "confirm", class: "primary", disabled: !page.confirming,
    onclick: () => confirm(current.game) }, t("table.confirm_button"));
  return el("section", { id: "confirm-panel", class: "confirm-panel" },
    el("h2", {}, t("table.confirm_title")),
    el("p", {}, t("table.confirm_explain")),
    el("fieldset", {}, el("legend", {}, t("table.confirm_who")), choices),
    button);
}

async function confirm(game) {
  try {
    page.view = await api(`/tables/${page.code}/confirmations`, {
      method: "POST", body: { game, player: page.confirming }, session: page.session,
    });
    notify(t("table.confirmed", { player: page.confirming }), "info");
    page.confirming = "";
    render();
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  }
}

function render() {
  const view = page.view;
  $("#title").textContent = t("table.title", { table: view.table, name: view.name });
  const parts = [];
  parts.push(el("p", { class: "table-code" }, t("table.code", { code: view.code }), " · ",
    view.current_round ? t("table.round", { round: view.current_round }) : t("table.not_started")));
  if (view.status === "closed") parts.push(el("p", { class: "notice info" }, t("table.closed")));
  const current = view.current;
  if (current) {
    parts.push(el("section", { id: "current", class: "table-current", dataset: { mark: current.mark } },
      el("h2", {}, t("table.current", { round: current.round })),
      el("p", { class: `cell-mark mark-${current.mark}` }, markText(current.mark)),
      el("ol", { class: "seat-list" }, current.players.map((name) => el("li", {}, name))),
      page.game ? el("p", { class: "hint" }, t("deals_played", { count: page.game.deals_played })) : null,
      page.game && page.game.status === "ended" ? standings() : null,
      current.confirmed_by ? el("p", { id: "confirmed-by", class: "ok-line" }, "✓ ",
        t("table.confirmed_by", { player: current.confirmed_by })) : null,
      current.mark !== "voided" && view.status !== "closed" && page.game?.status !== "ended"
        ? el("a", { id: "score", class: "button primary big-button", href: scorerHref(current.game) }, t("table.score"))
        : el("a", { id: "score", class: "button", href: scorerHref(current.game) }, t("table.see_game"))));
    if (view.confirmation && current.mark === "unconfirmed" && view.status !== "closed") parts.push(confirmPanel(current));
  } else {
    parts.push(el("p", { class: "empty" }, t("table.waiting")));
  }
  if (view.next) {
    parts.push(el("p", { id: "next", class: "hint" }, t("table.next", { players: view.next.join(", ") })));
  }
  if (view.games.length) {
    parts.push(el("h2", {}, t("table.games")), el("ul", { class: "table-games" }, view.games.map((g) =>
      el("li", {}, t("table.round", { round: g.round }), " · ", g.players.join(", "), " · ",
        el("span", { class: `cell-mark mark-${g.mark}` }, markText(g.mark))))));
  }
  $("#table-view").replaceChildren(...parts);
}

function askCode() {
  const form = $("#code-form");
  form.hidden = false;
  $("#title").textContent = t("table.enter_code");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const code = cleanCode($("#code").value);
    if (!code) {
      notify(t("table.bad_code"));
      return;
    }
    location.assign(`/tables/${code}`);
  });
}

async function main() {
  if (!page.code) {
    askCode();
    return;
  }
  page.session = tableSession(page.code) ?? requireSession();
  try {
    await load();
  } catch (failure) {
    if (failure instanceof ApiError && (failure.status === 404 || failure.status === 401)) {
      notify(t("table.unknown", { code: page.code }));
      return;
    }
    throw failure;
  }
  let soon = null; // decisions that come together (the log from its start, when the stream opens) read once
  follow(`/tables/${page.code}/stream`, { onEvent: () => {
    if (soon === null) soon = setTimeout(() => { soon = null; load().catch(() => {}); }, 250);
  } });
  setInterval(() => { if (!document.hidden) load().catch(() => {}); }, POLL_EVERY);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) load().catch(() => {}); });
}

if (page.code) takeToken(); // before the header is set up: a table's phone shows no club links
start(main);
