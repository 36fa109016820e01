// The club's evenings and the form that opens one: the players present (ticked among the club's, or typed), the
// table rule (smallest, preferred, largest: the planner splits the players), the rounds or the end time, the rules
// every table plays, the ranking and whether results are confirmed. The scorer links answered when the evening
// opens are shown once on the director's page (kept for it in this tab).

import { $, ApiError, api, el, notify, requireSession, start, t } from "./common.js";
import { split } from "./seating.js";

const club = document.body.dataset.club;
const profiles = JSON.parse(document.body.dataset.profiles || "{}");
export const LINKS_KEY = "nj-ledger.evening-links.";

function today() {
  const now = new Date();
  return new Date(now.getTime() - now.getTimezoneOffset() * 60000).toISOString().slice(0, 10);
}

/** The names typed in the "new players" box, one per line or separated by commas. */
const typed = () => $("#new-players").value.split(/[\n,;]/).map((name) => name.trim()).filter(Boolean);

function present() {
  const ticked = [...document.querySelectorAll("#members input:checked")].map((box) => box.value);
  const seen = new Set(ticked.map((name) => name.toLocaleLowerCase()));
  const names = [...ticked];
  for (const name of typed()) {
    if (!seen.has(name.toLocaleLowerCase())) { seen.add(name.toLocaleLowerCase()); names.push(name); }
  }
  return names;
}

function showCount() {
  const names = present();
  const sizes = split(names.length, Number($("#smallest").value), Number($("#preferred").value),
    Number($("#largest").value));
  $("#present-count").textContent = t("evenings.present", { count: names.length });
  $("#split").textContent = sizes ? t("evenings.split", { count: sizes.length, sizes: sizes.join(" + ") })
    : t("evenings.no_split");
}

async function listEvenings() {
  const found = await api(`/clubs/${encodeURIComponent(club)}/evenings?limit=50`);
  const box = $("#evening-list");
  if (!found.evenings.length) {
    box.replaceChildren(el("p", { class: "empty" }, t("evenings.none")));
    return;
  }
  box.replaceChildren(el("ul", { class: "games" }, found.evenings.map((evening) => el("li", { class: "game" },
    el("a", { href: `/clubs/${encodeURIComponent(club)}/evenings/${encodeURIComponent(evening.id)}` }, evening.name),
    " ", el("span", { class: "hint" }, evening.date, " · ", t(`evening.status.${evening.status}`))))));
}

async function members() {
  const found = await api(`/clubs/${encodeURIComponent(club)}/players?limit=500`);
  $("#members").replaceChildren(...found.players.map((player) => el("label", { class: "check member" },
    el("input", { type: "checkbox", value: player.name, onchange: showCount }), " ", player.name)));
}

async function submit(event) {
  event.preventDefault();
  const players = present();
  if (players.length < 3) {
    notify(t("evenings.too_few"));
    return;
  }
  const body = {
    name: $("#name").value.trim(), date: $("#date").value, players, rounds: Number($("#rounds").value),
    starting_chips: Number($("#chips").value), rules: $("#profile").value, ranking: $("#ranking").value,
    confirmation: $("#confirmation").checked,
    tables: { smallest: Number($("#smallest").value), preferred: Number($("#preferred").value),
      largest: Number($("#largest").value) },
  };
  if ($("#ends-at").value) body.ends_at = new Date($("#ends-at").value).toISOString().slice(0, 16);
  const button = event.submitter || $("#new-evening button[type=submit]");
  button.disabled = true;
  try {
    const made = await api(`/clubs/${encodeURIComponent(club)}/evenings`, { method: "POST", body });
    sessionStorage.setItem(LINKS_KEY + made.id, JSON.stringify(made.links));
    location.assign(`/clubs/${encodeURIComponent(club)}/evenings/${encodeURIComponent(made.id)}`);
  } catch (failure) {
    button.disabled = false;
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  }
}

async function main() {
  requireSession();
  $("#date").value = today();
  for (const [id, value] of [["smallest", 3], ["preferred", 4], ["largest", 8]]) {
    $(`#${id}`).replaceChildren(...[3, 4, 5, 6, 7, 8].map((n) => el("option", { value: n, selected: n === value }, n)));
    $(`#${id}`).addEventListener("change", showCount);
  }
  const chips = () => { $("#chips").value = profiles[$("#profile").value]?.starting_chips ?? 60; };
  chips();
  $("#profile").addEventListener("change", chips);
  $("#new-players").addEventListener("input", showCount);
  $("#new-evening").addEventListener("submit", submit);
  showCount();
  await Promise.all([listEvenings(), members()]);
}

start(main);
