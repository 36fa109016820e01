// The replay viewer: pick a deal, step through it with the buttons, ←/→ or the slider;
// the address always names the step shown (#deal=2&seq=57; ?deal=2&at=57 is read too). "Live" follows the open
// deal: the game's stream (follow.js) brings each new event, and the page shows the deal's last step.

import { $, ApiError, api, el, formatNumber, notify, requireSession, shareFragment, start, t } from "./common.js";
import { downloadButtons } from "./exchange.js";
import { follow } from "./follow.js";
import { dropForShare, setupSharing, withShare } from "./share.js";
import { boardElement, runElement, tableElement } from "./table.js";
import { cardElement, expectedText } from "./cards.js";
import { showAnalysis } from "./analysis_panel.js";
import { describe, handText, shownHands } from "./describe.js";

const page = { game: document.body.dataset.game, deal: null, steps: [], index: 0, deals: 0, version: 0, live: null,
  analysis: null };

function wanted() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const deal = Number(hash.get("deal") || query.get("deal")) || null;
  const seq = Number(hash.get("seq") || query.get("at"));
  return { deal, seq: Number.isInteger(seq) && seq > 0 ? seq : null };
}

function changedSeats(before, after) {
  const moved = new Set();
  if (!before) return moved;
  after.players.forEach((p, i) => { if (before.players[i].chips !== p.chips) moved.add(p.seat); });
  return moved;
}

function changedBoxes(before, after) {
  const moved = new Set();
  if (!before) return moved;
  for (const [card, chips] of Object.entries(after.board)) if (before.board[card] !== chips) moved.add(card);
  return moved;
}

function balancesTable(state, before) {
  return el("table", { class: "balances" },
    el("thead", {}, el("tr", {}, el("th", {}, t("player")), el("th", { class: "num" }, t("chips")),
      el("th", { class: "num" }, t("net")))),
    el("tbody", {}, state.players.map((p) => {
      const delta = before ? p.chips - before.players[p.seat].chips : 0;
      return el("tr", { dataset: { seat: p.seat } },
        el("td", {}, p.name),
        el("td", { class: "num", dataset: { chips: p.chips } }, formatNumber(p.chips),
          delta ? el("span", { class: delta > 0 ? "delta up" : "delta down" }, ` (${delta > 0 ? "+" : ""}${delta})`) : null),
        el("td", { class: "num" }, formatNumber(p.chips - state.starting_chips)));
    })));
}

/** The hands the losers showed at settlement, in their seats (hands dealt face up are drawn already). */
function showHands(table, events) {
  for (const [seat, data] of shownHands(events)) {
    const hand = table.querySelector(`.seat[data-seat="${seat}"] .hand`);
    if (!hand) continue;
    hand.append(data.cards
      ? el("div", { class: "cards shown", dataset: { shown: seat } }, data.cards.map((card) => cardElement(card, { small: true })))
      : el("p", { class: "told", dataset: { shown: seat } }, handText(data)));
  }
}

function render() {
  const step = page.steps[page.index];
  const before = page.index > 0 ? page.steps[page.index - 1].state : null;
  const state = step.state;
  const dealEvents = page.steps.map((s) => s.event).filter(Boolean);
  const told = describe(step.event, before, state, dealEvents, step.calls);
  $("#step-text").replaceChildren(...told.text.map((line) => el("p", {}, line)));
  $("#calls").replaceChildren(...told.calls.map((call) => el("li", { class: "call" }, call)));
  const centre = [boardElement(state, changedBoxes(before, state)), runElement(state.deal)];
  if (state.deal && state.deal.expected) centre.push(el("p", { class: "expected" }, t("expected", { rank: expectedText(state.deal.expected) })));
  const table = tableElement(state, { centre, changed: changedSeats(before, state) });
  if (!(state.deal && state.deal.hands)) showHands(table, page.steps.slice(1, page.index + 1).map((s) => s.event));
  $("#table").replaceChildren(table);
  $("#balances").replaceChildren(balancesTable(state, before));
  $("#slider").value = String(page.index);
  $("#position").textContent = t("position", { step: page.index + 1, steps: page.steps.length });
  $("#position").dataset.seq = String(step.seq); // the log's event shown (the address names it too)
  $("#prev").disabled = $("#first").disabled = page.index === 0;
  $("#next").disabled = $("#last").disabled = page.index === page.steps.length - 1;
  const hash = `#${shareFragment()}deal=${page.deal}&seq=${step.seq}`; // a share's link keeps its secret
  history.replaceState(null, "", location.pathname + hash);
  $("#permalink").href = location.pathname + hash;
}

/** The analysis panel of the current step (analysis_panel.js). */
const renderAnalysis = () => showAnalysis(page);

/** The deal's analysis, once it is settled: asked again while the server computes it (202). */
async function loadAnalysis(number) {
  page.analysis = null;
  if (!page.steps.some((step) => step.event && step.event.type === "deal_ended")) { renderAnalysis(); return; }
  for (;;) {
    let answer;
    try {
      answer = await api(`/games/${encodeURIComponent(page.game)}/deals/${number}/analysis`);
    } catch (error) {
      return; // the replay stays; the panel stays hidden
    }
    if (page.deal !== number) return;
    page.analysis = { ...answer, deal: number };
    renderAnalysis();
    if (answer.status !== "computing") return;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function go(index) {
  page.index = Math.max(0, Math.min(page.steps.length - 1, index));
  render();
  renderAnalysis();
}

async function loadDeal(number, seq = null, last = false) {
  const replay = await api(`/games/${encodeURIComponent(page.game)}/deals/${number}/replay`);
  page.deal = number;
  page.steps = replay.steps;
  $("#deal-select").value = String(number);
  const slider = $("#slider");
  slider.max = String(page.steps.length - 1);
  const found = seq === null ? -1 : page.steps.findIndex((s) => s.seq === seq);
  go(last ? page.steps.length - 1 : found >= 0 ? found : 0);
  loadAnalysis(number);
}

/** A deal the stream told of: in the deal picker. */
function addDeals(upTo) {
  const select = $("#deal-select");
  for (let n = page.deals + 1; n <= upTo; n += 1) select.append(el("option", { value: n }, t("deal_n", { deal: n })));
  page.deals = Math.max(page.deals, upTo);
}

let catching = null; // the open deal being read again (one at a time)
let again = false;

/** The open deal read again and its last step shown (live mode). */
async function showOpenDeal() {
  if (catching) { again = true; return; }
  catching = loadDeal(page.deals, null, true);
  try {
    await catching;
  } finally {
    catching = null;
  }
  if (again) { again = false; await showOpenDeal(); }
}

/** Live mode on: the open deal's last step, then each event the stream brings; off: the stream closed. */
function setLive(on) {
  if (page.live) page.live.stop();
  page.live = null;
  if (!on) return;
  page.live = follow(`/games/${encodeURIComponent(page.game)}/stream`, {
    after: page.version,
    onEvent: (event) => {
      if (event.seq <= page.version) return;
      page.version = event.seq;
      if (event.deal) addDeals(event.deal);
      showOpenDeal().catch((failure) => notify(failure instanceof ApiError ? failure.message : t("error.unexpected")));
    },
  });
  showOpenDeal().catch((failure) => notify(failure instanceof ApiError ? failure.message : t("error.unexpected")));
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) {
    return; // the slider and the deal picker handle their own keys
  }
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (event.key in moves) go(page.index + moves[event.key]);
  else if (event.key === "Home") go(0);
  else if (event.key === "End") go(page.steps.length - 1);
  else return;
  event.preventDefault();
}

async function main() {
  requireSession();
  const game = await api(`/games/${encodeURIComponent(page.game)}`);
  page.deals = game.deal ? game.deal.number : 0;
  page.version = game.version;
  $("#title").textContent = t("replay.title", { players: game.title || game.players.map((p) => p.name).join(", ") });
  $("#record-link").href = `/games/${encodeURIComponent(page.game)}/record`;
  $("#audit-link").href = withShare(`/games/${encodeURIComponent(page.game)}/audit`);
  $("#sheet-link").href = withShare(`/games/${encodeURIComponent(page.game)}/sheet`);
  $("#downloads").replaceChildren(...downloadButtons(page.game,
    (failure) => notify(failure instanceof ApiError ? failure.message : t("error.unexpected"))));
  dropForShare($("#record-link"));
  setupSharing($("#audit-link").parentElement, { game: page.game });
  if (page.deals === 0) {
    $("#replay").replaceChildren(el("p", { class: "empty" }, t("replay.no_deal")));
    return;
  }
  const select = $("#deal-select");
  const deals = page.deals;
  page.deals = 0;
  addDeals(deals);
  $("#live").addEventListener("change", (event) => setLive(event.target.checked));
  select.addEventListener("change", () => loadDeal(Number(select.value)));
  $("#first").addEventListener("click", () => go(0));
  $("#prev").addEventListener("click", () => go(page.index - 1));
  $("#next").addEventListener("click", () => go(page.index + 1));
  $("#last").addEventListener("click", () => go(page.steps.length - 1));
  $("#slider").addEventListener("input", (event) => go(Number(event.target.value)));
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => {
    const target = wanted();
    const deal = target.deal && target.deal <= page.deals ? target.deal : page.deal;
    if (deal !== page.deal) loadDeal(deal, target.seq);
    else if (target.seq !== page.steps[page.index].seq) {
      const found = page.steps.findIndex((s) => s.seq === target.seq);
      if (found >= 0) go(found);
    }
  });
  const target = wanted();
  const deal = target.deal && target.deal >= 1 && target.deal <= page.deals ? target.deal : 1;
  await loadDeal(deal, target.seq);
}

start(main);
