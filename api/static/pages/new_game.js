// A new game: players in seat order (club members are suggested), rules, starting chips,
// first dealer. Then straight to the scorer.

import { $, api, el, notify, newKey, requireSession, start, t } from "./common.js";

function names() {
  return [...document.querySelectorAll("#players input")].map((input) => input.value.trim()).filter(Boolean);
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
    placeholder: t("player_n", { n: index }), oninput: refreshDealers,
  });
  const remove = el("button", {
    type: "button", class: "quiet", "aria-label": t("remove"), title: t("remove"),
    onclick: () => { item.remove(); refreshDealers(); },
  }, "✕");
  const item = el("li", {}, input, remove);
  list.append(item);
  return input;
}

async function main() {
  const session = requireSession();
  const club = encodeURIComponent(session.club);
  for (let i = 0; i < 3; i += 1) addPlayer();
  refreshDealers();
  $("#add-player").addEventListener("click", () => addPlayer().focus());
  $("#dealer").addEventListener("change", (event) => { dealerChosen = Number(event.target.value); });
  $("#new-game").addEventListener("submit", async (event) => {
    event.preventDefault();
    const players = names();
    const body = { players, rules: $("#profile").value, starting_chips: Number($("#chips").value) };
    if (players.length && $("#dealer").value !== "") body.dealer = Number($("#dealer").value);
    const button = event.submitter || $("#new-game button[type=submit]");
    button.disabled = true;
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
