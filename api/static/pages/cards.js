// Cards and the calls of the game. The calls stay French in every language: they are
// what players say at the table ("sans 10", "Roi et je recommence", "Dame qui prend !").

import { el, lang } from "./common.js";

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const SUITS = ["C", "D", "H", "S"];
export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const NBSP = "\u00a0"; // French typography: a no-break space before "!" in the calls
const RANK_FR = ["As", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Valet", "Dame", "Roi"];
export const DECK = SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));
// How a French deck prints the figures: valet, dame, roi (the ace stays "A"). The API's codes stay "JC", "QS", "KH".
const FIGURES_FR = { J: "V", Q: "D", K: "R" };

/** {rank: 1–13, suit: "C"…} of a canonical card ("10D"). */
export function parseCard(card) {
  return { rank: RANKS.indexOf(card.slice(0, -1)) + 1, suit: card.slice(-1) };
}

/** The rank (and suit, in suit play) of an `expected` label: "8", "10", "JH". */
export function parseExpected(label) {
  if (!label) return null;
  const match = /^(A|[2-9]|10|J|Q|K)([CDHS])?$/.exec(label);
  return match ? { rank: RANKS.indexOf(match[1]) + 1, suit: match[2] || null } : null;
}

/** An `expected` label as a player reads it: "J" → "V" in French, "JH" → "V♥". */
export function expectedText(label) {
  const wanted = parseExpected(label);
  return wanted ? rankText(RANKS[wanted.rank - 1]) + (wanted.suit ? SUIT_SYMBOL[wanted.suit] : "") : label;
}

export const rankOf = (card) => parseCard(card).rank;
export const isRed = (card) => /[DH]$/.test(card);
/** A rank as the page's language prints it: "Q" in English, "D" (dame) in French. */
export const rankText = (rank) => (lang() === "fr" && FIGURES_FR[rank]) || rank;
/** A card as a player reads it: "Q♠", "10♦" in English; "D♠", "V♣", "R♥" in French. */
export const cardText = (card) => rankText(card.slice(0, -1)) + SUIT_SYMBOL[card.slice(-1)];

export function cardElement(card, { small = false } = {}) {
  const classes = `card${small ? " small" : ""} ${isRed(card) ? "red" : "black"}`;
  return el("span", { class: classes, dataset: { card } }, cardText(card));
}

/** What a rank is called at the table ("Valet"), with its suit in suit play. */
export function wantedCall(expected) {
  const wanted = parseExpected(expected);
  if (!wanted) return null;
  return `sans ${RANK_FR[wanted.rank - 1]}${wanted.suit ? ` ${SUIT_SYMBOL[wanted.suit]}` : ""}`;
}

const callName = (card) => (card === "7D" ? "Nain jaune" : RANK_FR[rankOf(card) - 1]);

/** "Roi et je recommence": a card that ends the run, its player going on (a hoc, in the 1760 rules). */
export const restartCall = (card) => `${callName(card)} et je recommence`;

export function honourCall(card) {
  return `${callName(card)} qui prend${NBSP}!`;
}

/**
 * The calls of a play, as the rules decide them (a replay step's `calls`), said as the table says them: "Valet qui
 * prend !", "Hoc !", "Roi et je recommence", "J'arrête !", "Grand Opéra !", "sans 8".
 */
export function spoken(calls, rules) {
  return calls.map((call) => {
    switch (call.call) {
      case "takes": return call.card in rules.board ? honourCall(call.card) : `Hoc${NBSP}!`;
      case "restarts": return restartCall(call.card);
      case "out": return `J'arrête${NBSP}!`;
      case "grand_opera": return `Grand Opéra${NBSP}!`;
      default: return wantedCall(call.expected);
    }
  });
}
