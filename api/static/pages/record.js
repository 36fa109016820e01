// The table scorer, for a phone: whose turn it is, tap the cards played (only cards that can
// be played are enabled), honours pre-ticked as announced, pass, undo, reveal, the settlement
// in words. Every action goes out with its own Idempotency-Key, reused on retry.

import {
  $, ApiError, allEvents, api, clearNotice, el, isSigningIn, notify, recordActions, requireSession, start, t,
} from "./common.js";
import {
  DECK, announceable, cardElement, cardText, dealProgress, endsRun, honourCall, parseCard, parseExpected, wantedCall,
} from "./cards.js";
import { describe } from "./describe.js";
import { boardElement, gameOverSentences, runElement, seatName, settlementSentences, tableElement } from "./table.js";

const page = {
  game: document.body.dataset.game,
  state: null,
  events: [],
  seat: null, // who plays the cards being tapped (default: the seat to act)
  pending: [], // cards tapped, in order
  unticked: new Set(), // honours the player forgot to call
  revealSeat: null,
  revealing: [],
  dealer: null, // first deal: the dealer chosen
  confirmEnd: false,
  busy: false,
  retry: null, // {actions, key}: a submission that never got an answer
};

const gameUrl = () => `/games/${encodeURIComponent(page.game)}`;
const deal = () => page.state.deal;
const rules = () => page.state.rules;

function dealEvents() {
  let start = 0;
  page.events.forEach((event, index) => { if (event.type === "deal") start = index; });
  return page.events.slice(start);
}

// --- what may be tapped -----------------------------------------------------------------------------
function playingSeat() {
  return page.seat ?? deal().turn;
}

/**
 * The cards that may open the play being tapped: [] for any card, else the wanted {rank, suit}s.
 * A play from a later seat records the passes in between; when they complete the round (the
 * play comes from the seat that stopped, or from the first passer) the run is blocked first.
 */
function openings(progress) {
  const d = deal();
  const expected = parseExpected(d.expected);
  const seat = playingSeat();
  if (!expected || seat === d.turn) return expected ? [expected] : [];
  const completes = seat === progress.lastPlayer || (d.passed.length > 0 && seat === d.passed[0]);
  if (!completes) return [expected];
  if (rules().blocked === "restart" || expected.rank === 13) return [];
  return [expected, { rank: expected.rank + 1, suit: expected.suit }]; // skip: the missing rank moves up
}

function nextWanted(progress) {
  if (page.pending.length === 0) return openings(progress);
  const last = page.pending[page.pending.length - 1];
  if (endsRun(rules(), last)) return [];
  const { rank, suit } = parseCard(last);
  return [{ rank: rank + 1, suit: rules().sequence === "suit" ? suit : null }];
}

function tappable(card, progress) {
  const d = deal();
  const seat = playingSeat();
  if (progress.seen.has(card) || page.pending.includes(card)) return false;
  if (page.pending.length >= d.hand_sizes[seat]) return false;
  if (d.hands && !d.hands[seat].includes(card)) return false;
  if (rules().wild === card) return true;
  const wanted = nextWanted(progress);
  const { rank, suit } = parseCard(card);
  return wanted.length === 0 || wanted.some((w) => rank === w.rank && (!w.suit || suit === w.suit));
}

function revealable(card, progress) {
  const d = deal();
  if (progress.seen.has(card) || page.revealing.includes(card)) return false;
  return page.revealing.length < d.hand_sizes[page.revealSeat];
}

function keypad(enabled, onTap) {
  return el("div", { class: "keypad", role: "group", "aria-label": t("keypad") }, DECK
    .slice()
    .sort((a, b) => parseCard(a).rank - parseCard(b).rank || a.slice(-1).localeCompare(b.slice(-1)))
    .map((card) => el("button", {
      type: "button", class: `key ${/[DH]$/.test(card) ? "red" : "black"}`, dataset: { card },
      disabled: !enabled(card) || page.busy, onclick: () => onTap(card),
    }, cardText(card))));
}

// --- sending --------------------------------------------------------------------------------------------
function merge(records) {
  const last = page.events.length ? page.events[page.events.length - 1].seq : 0;
  page.events.push(...records.filter((record) => record.seq > last));
}

function resetTurn() {
  page.seat = null;
  page.pending = [];
  page.unticked = new Set();
  page.revealing = [];
  page.revealSeat = null;
  page.confirmEnd = false;
}

async function reload() {
  const [state, events] = await Promise.all([api(gameUrl()), allEvents(page.game)]);
  page.state = state;
  page.events = events;
}

async function send(actions, key = undefined) {
  page.busy = true;
  page.retry = null;
  notify(t("saving"), "info");
  render();
  try {
    const answer = await recordActions(page.game, actions, {
      key, version: page.state.version, onRetry: (attempt) => notify(t("retrying", { attempt }), "info"),
    });
    page.state = answer.state;
    merge(answer.events);
    resetTurn();
    clearNotice();
  } catch (failure) {
    if (isSigningIn(failure)) return;
    if (!(failure instanceof ApiError)) throw failure;
    if (failure.status === 0) {
      page.retry = { actions, key: failure.key };
    } else if (failure.status === 409) {
      await reload();
      resetTurn();
    }
    notify(failure.message);
  } finally {
    page.busy = false;
    render();
  }
}

// --- the controls of each moment -------------------------------------------------------------------------
function button(label, onclick, { primary = false, disabled = false, id = null } = {}) {
  return el("button", {
    type: "button", id, class: primary ? "primary" : null, disabled: disabled || page.busy, onclick,
  }, label);
}

function readyControls() {
  const state = page.state;
  const first = state.deals_played === 0 && !state.deal;
  const dealer = first && page.dealer !== null ? page.dealer : state.next_dealer;
  const parts = [];
  if (first) {
    parts.push(el("label", {}, t("dealer"), " ", el("select", {
      id: "dealer", onchange: (event) => { page.dealer = Number(event.target.value); render(); },
    }, state.players.map((p) => el("option", { value: p.seat, selected: p.seat === dealer }, p.name)))));
  }
  const action = { type: "deal" };
  if (first) action.dealer = dealer;
  parts.push(el("div", { class: "buttons" },
    button(t("deal_button", { name: seatName(state, dealer), deal: state.deals_played + 1 }),
      () => send([action]), { primary: true, id: "deal" }),
    page.confirmEnd
      ? button(t("end_confirm"), () => send([{ type: "end", reason: "agreed at the table" }]), { id: "end" })
      : button(t("end_button"), () => { page.confirmEnd = true; render(); }, { id: "end" })));
  return parts;
}

function playingControls(progress) {
  const state = page.state;
  const d = deal();
  const seat = playingSeat();
  const wanted = nextWanted(progress);
  const parts = [];
  const who = seat === d.turn ? t("plays_now", { name: seatName(state, seat) })
    : t("plays_out_of_turn", { name: seatName(state, seat), turn: seatName(state, d.turn) });
  parts.push(el("p", { class: "who" }, who, " ", el("span", { class: "hint" }, t("tap_seat"))));
  parts.push(el("div", { class: "pending", "aria-label": t("play_in_progress") },
    page.pending.length ? page.pending.map((card) => cardElement(card)) : el("span", { class: "empty" }, t("tap_cards")),
    page.pending.length ? button("⌫", () => { page.pending.pop(); render(); }, { id: "backspace" }) : null));
  const honours = page.pending.filter((card) => announceable(rules(), card));
  if (honours.length) {
    parts.push(el("div", { class: "announce" }, honours.map((card) => el("label", { class: "check" },
      el("input", {
        type: "checkbox", dataset: { announce: card }, checked: !page.unticked.has(card),
        onchange: (event) => {
          if (event.target.checked) page.unticked.delete(card); else page.unticked.add(card);
        },
      }), " ", cardText(card), " ", el("span", { class: "call" }, card in rules().board ? honourCall(card) : "Hoc !")))));
  }
  parts.push(keypad((card) => tappable(card, progress), (card) => { page.pending.push(card); render(); }));
  const out = page.pending.length > 0 && page.pending.length === d.hand_sizes[seat];
  let preview = "";
  if (out) preview = "J'arrête !";
  else if (page.pending.length && wanted.length) preview = wantedCall(labelOf(wanted[0]));
  else if (page.pending.length) preview = "Roi et je recommence";
  const play = () => ({ // read when pressed: a box may have been unticked since
    type: "play", seat, cards: [...page.pending], announced: honours.filter((card) => !page.unticked.has(card)),
  });
  parts.push(el("div", { class: "buttons sticky" },
    button(page.pending.length ? `${t("play_button")} — ${preview}` : t("play_button"), () => send([play()]),
      { primary: true, disabled: !page.pending.length, id: "play" }),
    button(t("pass_button", { name: seatName(state, d.turn) }), () => send([{ type: "pass", seat: d.turn }]),
      { disabled: !d.expected, id: "pass" }),
    button(t("undo_button"), () => send([{ type: "undo" }]), { id: "undo" })));
  return parts;
}

function labelOf(wanted) {
  const ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  return ranks[wanted.rank - 1] + (wanted.suit || "");
}

function revealControls(progress) {
  const state = page.state;
  const d = deal();
  const awaiting = d.awaiting_reveal;
  if (page.revealSeat === null || !awaiting.includes(page.revealSeat)) page.revealSeat = awaiting[0];
  const seat = page.revealSeat;
  const size = d.hand_sizes[seat];
  const parts = [el("p", { class: "who" }, t("reveal_who", { name: seatName(state, seat), count: size }))];
  if (awaiting.length > 1) {
    parts.push(el("div", { class: "buttons" }, awaiting.map((s) => button(seatName(state, s), () => {
      page.revealSeat = s;
      page.revealing = [];
      render();
    }, { disabled: s === seat }))));
  }
  parts.push(el("div", { class: "pending" },
    page.revealing.length ? page.revealing.map((card) => cardElement(card)) : el("span", { class: "empty" }, t("tap_cards")),
    page.revealing.length ? button("⌫", () => { page.revealing.pop(); render(); }, { id: "backspace" }) : null));
  parts.push(keypad((card) => revealable(card, progress), (card) => { page.revealing.push(card); render(); }));
  parts.push(el("div", { class: "buttons sticky" },
    button(t("reveal_button", { name: seatName(state, seat), count: page.revealing.length, size }),
      () => send([{ type: "reveal", seat, cards: [...page.revealing] }]),
      { primary: true, disabled: page.revealing.length !== size, id: "reveal" }),
    button(t("undo_button"), () => send([{ type: "undo" }]), { id: "undo" })));
  return parts;
}

// --- the page ----------------------------------------------------------------------------------------------
function statusLine() {
  const state = page.state;
  const d = state.deal;
  switch (state.status) {
    case "ready":
      return [t("status_line.ready", { name: seatName(state, state.next_dealer), deal: state.deals_played + 1 })];
    case "playing":
      return d.expected
        ? [t("status_line.turn", { name: seatName(state, d.turn), deal: d.number }), " ",
          el("span", { class: "call" }, wantedCall(d.expected))]
        : [t("status_line.new_run", { name: seatName(state, d.turn), deal: d.number })];
    case "revealing":
      return [t("status_line.revealing", { names: d.awaiting_reveal.map((s) => seatName(state, s)).join(", ") })];
    default:
      return [t("status_line.ended")];
  }
}

function lastAction() {
  const actions = dealEvents().filter((e) => ["play", "pass", "reveal", "undo", "deal"].includes(e.type));
  const last = actions[actions.length - 1];
  if (!last || page.state.status === "ready" || page.state.status === "ended") return null;
  const told = describe(last, null, page.state, dealEvents());
  return el("p", { class: "last" }, t("last_action"), " ", told.text.join(" "));
}

function settlement() {
  const state = page.state;
  if (!state.deal || !["ready", "ended"].includes(state.status)) return [];
  const events = dealEvents();
  const ended = events.find((e) => e.type === "deal_ended");
  const lines = ended ? settlementSentences(state, ended, events) : [];
  if (state.status === "ended" && state.result) lines.push(...gameOverSentences(state, state.result));
  return lines.map((line) => el("p", {}, line));
}

function render() {
  const state = page.state;
  const d = state.deal;
  const progress = d ? dealProgress(dealEvents()) : { seen: new Set(), lastPlayer: null };
  $("#status").replaceChildren(...statusLine());
  $("#settlement").replaceChildren(...settlement());
  const centre = [boardElement(state)];
  if (d && state.status === "playing") centre.push(runElement(d));
  const choose = state.status === "playing" ? (seat) => {
    page.seat = seat === d.turn ? null : seat;
    page.pending = [];
    render();
  } : null;
  $("#table").replaceChildren(tableElement(state, {
    centre, onSeat: choose, chosen: state.status === "playing" ? playingSeat() : null,
  }));
  const controls = [];
  if (page.retry) {
    controls.push(el("div", { class: "buttons" }, button(t("retry_button"), () => send(page.retry.actions, page.retry.key),
      { primary: true, id: "retry" })));
  }
  const last = lastAction();
  if (last) controls.push(last);
  if (state.status === "ready") controls.push(...readyControls());
  else if (state.status === "playing") controls.push(...playingControls(progress));
  else if (state.status === "revealing") controls.push(...revealControls(progress));
  $("#controls").replaceChildren(...controls);
}

async function main() {
  requireSession();
  await reload();
  const names = page.state.players.map((p) => p.name).join(", ");
  $("#title").textContent = t("record.title", { players: names });
  $("#replay-link").href = `${gameUrl()}/replay`;
  $("#audit-link").href = `${gameUrl()}/audit`;
  render();
}

start(main);
