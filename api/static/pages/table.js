// The table as the pages draw it: the board's five boxes, the seats around the table with
// their chips and hands, the run in the middle; and the settlement of a deal in words.

import { counted, el, formatNumber, t } from "./common.js";
import { cardElement, cardText, rankOf } from "./cards.js";

/** The board's honours in board order (by stake: 10♦, J♣, Q♠, K♥, 7♦), whatever order JSON keys come in. */
export function boardOrder(rules) {
  return Object.entries(rules.board)
    .sort(([a, stakeA], [b, stakeB]) => stakeA - stakeB || rankOf(a) - rankOf(b) || a.localeCompare(b))
    .map(([card]) => card);
}

/** The five boxes and the chips on each. */
export function boardElement(state, highlight = new Set()) {
  return el("ol", { class: "board", "aria-label": t("board") },
    boardOrder(state.rules).map((card) => [card, state.board[card]]).map(([card, chips]) => el("li", {
      class: `box${highlight.has(card) ? " moved" : ""}`, dataset: { box: card },
    }, cardElement(card), el("span", { class: "chips", "aria-label": t("chips") }, formatNumber(chips)))));
}

function seatMarks(state, seat) {
  const deal = state.deal;
  const marks = [];
  if (!deal) return marks;
  // between deals the badge goes to who deals next (the status line's "Deal 2: Ana deals"), not the last dealer
  const dealer = state.status === "ready" && Number.isInteger(state.next_dealer) ? state.next_dealer : deal.dealer;
  if (dealer === seat) marks.push(el("span", { class: "mark dealer", title: t("dealer") }, t("mark.dealer")));
  if (deal.turn === seat) marks.push(el("span", { class: "mark turn" }, t("mark.turn")));
  if ((deal.passed || []).includes(seat)) marks.push(el("span", { class: "mark passed" }, t("mark.passed")));
  if (deal.winner === seat) marks.push(el("span", { class: "mark winner" }, t("mark.winner")));
  return marks;
}

function handElement(state, seat) {
  const deal = state.deal;
  if (!deal) return null;
  const size = deal.hand_sizes[seat];
  const cards = deal.hands ? deal.hands[seat] : null;
  return el("div", { class: "hand" },
    el("span", { class: "hand-size", dataset: { handSize: size } }, t("cards_in_hand", { count: size })),
    cards ? el("div", { class: "cards" }, cards.map((card) => cardElement(card, { small: true }))) : null);
}

/** The seats around an oval table; `changed` names seats whose chips just moved. */
export function tableElement(state, { centre = null, changed = new Set(), onSeat = null, chosen = null } = {}) {
  const seats = state.players.map((player) => {
    const classes = ["seat"];
    if (state.deal && state.deal.turn === player.seat) classes.push("to-act");
    if (changed.has(player.seat)) classes.push("moved");
    if (chosen === player.seat) classes.push("chosen");
    const node = el(onSeat ? "button" : "div", {
      class: classes.join(" "), dataset: { seat: player.seat }, type: onSeat ? "button" : null,
      onclick: onSeat ? () => onSeat(player.seat) : null,
    },
    el("span", { class: "name" }, player.name),
    el("span", { class: "balance", dataset: { chips: player.chips } }, counted(player.chips, "chip")),
    el("span", { class: "marks" }, seatMarks(state, player.seat)),
    handElement(state, player.seat));
    return node;
  });
  // Seat 0 at the bottom, the others clockwise around the felt: each seat goes to the side of the
  // table its place on a circle points to.
  const sides = { top: [], left: [], right: [], bottom: [] };
  seats.forEach((node, index) => {
    const angle = Math.PI / 2 + (2 * Math.PI * index) / seats.length;
    const x = Math.cos(angle);
    const y = Math.sin(angle);
    const side = y > 0.6 ? "bottom" : y < -0.6 ? "top" : x < 0 ? "left" : "right";
    sides[side].push({ node, key: side === "top" || side === "bottom" ? x : y });
  });
  return el("div", { class: `table seats-${seats.length}` },
    Object.entries(sides).map(([side, placed]) => el("div", { class: `side ${side}` },
      placed.sort((a, b) => a.key - b.key).map((p) => p.node))),
    el("div", { class: "felt" }, centre));
}

export function runElement(deal) {
  const run = deal ? deal.run : [];
  return el("div", { class: "run", "aria-label": t("run") },
    run.length ? run.map((card) => cardElement(card)) : el("span", { class: "empty" }, t("run.empty")));
}

export const seatName = (state, seat) => state.players[seat].name;

export function accountName(state, account) {
  const [kind, key] = account.split(":");
  if (kind === "seat") return state.players[Number(key)].name;
  return t("box_of", { card: cardText(key) });
}

const REASONS = ["cannot_ante", "shortfall", "max_deals", "agreed"];

/** The settlement of a deal in sentences, from its `deal_ended` event and the deal's other events. */
export function settlementSentences(state, ended, dealEvents = []) {
  const d = ended.data;
  const winner = seatName(state, d.winner);
  const lines = [t("settle.winner", { name: winner, deal: d.number })];
  if (d.grand_opera) {
    // this settlement's sweep only: the transfers between the action that caused it and its deal_ended (an
    // earlier settlement of the deal may have been withdrawn by an undo, its sweep given back)
    const at = dealEvents.findIndex((e) => e.seq === ended.seq);
    const upTo = at >= 0 ? dealEvents.slice(0, at) : dealEvents;
    const cause = upTo.map((e) => e.type).reduce((found, type, i) => (["play", "reveal"].includes(type) ? i : found), -1);
    const swept = upTo.slice(cause + 1).filter((e) => e.type === "transfer" && e.data.reason === "grand_opera")
      .reduce((sum, e) => sum + e.data.amount, 0);
    lines.push(swept ? t("settle.grand_opera_sweep", { name: winner, amount: counted(swept, "chip") }) : t("settle.grand_opera"));
  }
  for (const p of d.payments) {
    const name = seatName(state, p.seat);
    const left = p.points === null || p.points === undefined
      ? t("settle.cards_left", { cards: counted(p.cards_left, "card") })
      : t("settle.points_left", { points: counted(p.points, "point"), cards: counted(p.cards_left, "card") });
    if (p.paid < p.amount) {
      lines.push(t("settle.pays_short", { name, winner, amount: counted(p.amount, "chip"), paid: formatNumber(p.paid), left }));
    } else {
      lines.push(t("settle.pays", { name, winner, amount: counted(p.paid, "chip"), left }));
    }
  }
  for (const b of d.betes) {
    lines.push(t("settle.bete", { name: seatName(state, b.seat), card: cardText(b.card), amount: counted(b.paid, "chip") }));
  }
  return lines;
}

export function gameOverSentences(state, result) {
  const reason = REASONS.includes(result.reason) ? t(`reason.${result.reason}`) : result.reason;
  const lines = [t("game_over", { reason })];
  lines.push(result.standings.map((row) => t("standing", { rank: row.rank, name: row.name, chips: row.chips })).join(" · "));
  const left = Object.entries(result.board_left || {}).filter(([, chips]) => chips > 0);
  if (left.length) {
    lines.push(t("board_left", { boxes: left.map(([card, chips]) => `${cardText(card)} ${chips}`).join(", ") }));
  }
  return lines;
}
