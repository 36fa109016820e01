// A new game: a title and the day played, players in seat order (club members are suggested), rules with the
// options a table argues about (prefilled with the chosen profile's values and its starting chips), first
// dealer. A name that looks like a member's ("Аna", its А Cyrillic, and "Ana") is asked about before the game
// starts: the member, or another player? Then straight to the scorer.

import { $, api, el, notify, newKey, requireSession, start, t } from "./common.js";

// Each profile's values of the form's options and its starting chips (api/pages.py, from nj_ledger.profiles).
const PROFILES = JSON.parse(document.body.dataset.profiles || "{}");
const OPTIONS = ["payment", "bete", "shortfall"];

function names() {
  return [...document.querySelectorAll("#players input")].map((input) => input.value.trim()).filter(Boolean);
}

const answered = new Set(); // the look-alikes the table answered: "name" and "the member it looks like"
const pair = (alike) => JSON.stringify([alike.name, alike.looks_like]);

/** The names that look like a member's (or like another seat's) and were not asked about yet (api/lookalikes.py);
 * none when the server cannot tell: the game's own creation says what is wrong then. */
async function unanswered(club, players) {
  if (!players.length) return [];
  try {
    const found = await api(`/clubs/${club}/players/look-alikes`, { method: "POST", body: { players } });
    return found.look_alikes.filter((alike) => !answered.has(pair(alike)));
  } catch {
    return [];
  }
}

/** Ask, for each look-alike, whether it is the member: yes seats the member's name, no keeps the name typed.
 * Once every one is answered, the game starts as asked. */
function ask(lookAlikes, form) {
  const box = $("#look-alikes");
  const settle = (alike, item) => {
    answered.add(pair(alike));
    item.remove();
    refreshDealers();
    if (!box.children.length) {
      box.hidden = true;
      form.requestSubmit();
    }
  };
  box.replaceChildren(...lookAlikes.map((alike) => {
    const item = el("p", { class: "look-alike" }, t("lookalike.ask", { name: alike.name, other: alike.looks_like }), " ");
    const same = el("button", { type: "button", class: "same" }, t("lookalike.same", { other: alike.looks_like }));
    const other = el("button", { type: "button", class: "other quiet" }, t("lookalike.other"));
    same.addEventListener("click", () => {
      for (const input of document.querySelectorAll("#players input")) {
        if (input.value.trim() === alike.name) input.value = alike.looks_like;
      }
      settle(alike, item);
    });
    other.addEventListener("click", () => settle(alike, item));
    item.append(same, " ", other);
    return item;
  }));
  box.hidden = false;
  box.querySelector("button").focus();
}

let dealerChosen = null; // the seat picked by hand; by default the last seat deals

function refreshDealers() {
  const select = $("#dealer");
  const players = names();
  select.replaceChildren(...players.map((name, seat) => el("option", { value: seat }, name)));
  const seat = dealerChosen !== null && dealerChosen < players.length ? dealerChosen : players.length - 1;
  if (seat >= 0) select.value = String(seat);
}

function addPlayer(name = "") {
  const list = $("#players");
  const index = list.children.length + 1;
  const input = el("input", {
    name: "player", list: "members", maxlength: 80, value: name, "aria-label": t("player_n", { n: index }),
    placeholder: t("player_n", { n: index }), oninput: refreshDealers, autocomplete: "off",
  });
  const remove = el("button", {
    type: "button", class: "quiet", "aria-label": t("remove"), title: t("remove"),
    onclick: () => { item.remove(); refreshDealers(); },
  }, "✕");
  const item = el("li", {}, input, remove);
  list.append(item);
  return input;
}

/** Put the chosen profile's values in the table's options. */
function fillProfile() {
  const values = PROFILES[$("#profile").value];
  if (!values) return;
  for (const option of OPTIONS) $(`#${option}`).value = values[option];
  $("#may-stop").checked = Boolean(values.may_stop);
  $("#chips").value = values.starting_chips;
}

/** The rules as the API takes them: the profile's name, with the options the table changed as overrides. */
function chosenRules() {
  const profile = $("#profile").value;
  const values = PROFILES[profile] || {};
  const overrides = {};
  for (const option of OPTIONS) {
    if ($(`#${option}`).value !== values[option]) overrides[option] = $(`#${option}`).value;
  }
  if ($("#may-stop").checked !== Boolean(values.may_stop)) overrides.may_stop = $("#may-stop").checked;
  return Object.keys(overrides).length ? { profile, ...overrides } : profile;
}

/** Today in this device's calendar, YYYY-MM-DD. */
function today() {
  const now = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

async function main() {
  const session = requireSession();
  const club = encodeURIComponent(session.club);
  for (let i = 0; i < 3; i += 1) addPlayer();
  refreshDealers();
  $("#date").value = today();
  fillProfile();
  $("#profile").addEventListener("change", fillProfile);
  $("#add-player").addEventListener("click", () => addPlayer().focus());
  $("#dealer").addEventListener("change", (event) => { dealerChosen = Number(event.target.value); });
  $("#new-game").addEventListener("submit", async (event) => {
    event.preventDefault();
    const players = names();
    const body = { players, rules: chosenRules(), starting_chips: Number($("#chips").value) };
    if (players.length && $("#dealer").value !== "") body.dealer = Number($("#dealer").value);
    const title = $("#title").value.trim();
    if (title) body.title = title;
    if ($("#date").value) body.date = $("#date").value;
    const button = event.submitter || $("#new-game button[type=submit]");
    button.disabled = true;
    const lookAlikes = await unanswered(club, players);
    if (lookAlikes.length) {
      ask(lookAlikes, event.target);
      button.disabled = false;
      return;
    }
    try {
      const game = await api(`/clubs/${club}/games`, { method: "POST", body, key: newKey() });
      location.assign(`/games/${encodeURIComponent(game.id)}/record`);
    } catch (failure) {
      notify(failure.message);
      button.disabled = false;
    }
  });
  const members = await api(`/clubs/${club}/players?limit=500`);
  $("#members").replaceChildren(...members.players.map((p) => el("option", { value: p.name })));
}

start(main);
