// One event of the log told in a sentence (in the page's language) with the calls made at the table.

import { counted, t } from "./common.js";
import { cardText, spoken, wantedCall } from "./cards.js";
import { accountName, gameOverSentences, seatName, settlementSentences } from "./table.js";

const cardsText = (cards) => cards.map(cardText).join(" ");

function transferSentence(state, data) {
  const params = {
    from: accountName(state, data.from), to: accountName(state, data.to), amount: data.amount,
  };
  const known = ["ante", "take", "payment", "grand_opera", "bete", "hoc", "adjust", "undo"];
  return t(known.includes(data.reason) ? `transfer.${data.reason}` : "transfer.other", params);
}

/**
 * A hand told by count at settlement, as the table says it: "10 cards, 62 points, K♥ held"; a hand shown card
 * by card: its cards.
 */
export function handText(data) {
  if (data.cards) return cardsText(data.cards);
  const parts = [
    counted(data.count, "card"),
    counted(data.points, "point"),
  ];
  if (data.honours && data.honours.length) parts.push(t("hand.held", { honours: cardsText(data.honours) }));
  return parts.join(", ");
}

/**
 * The hands the losers have shown so far in a deal's events, by seat: `{cards}` or the count form
 * `{count, points, honours}`. An undo withdraws the latest play, pass or reveal, as the engine does (inferred
 * passes belong to the play they precede).
 */
export function shownHands(events) {
  const groups = [];
  for (const { type, data } of events) {
    if (type === "deal") groups.length = 0;
    else if (type === "reveal") groups.push(data);
    else if (type === "play" || (type === "pass" && !data.inferred)) groups.push(null);
    else if (type === "undo") groups.pop();
  }
  const shown = new Map();
  for (const data of groups) if (data) shown.set(data.seat, data);
  return shown;
}

/**
 * {text: [sentences], calls: [French calls]} for `event`, given the states before and after it, the deal's events
 * (for the settlement) and, for a play, its calls as the rules decide them (the replay step's `calls`).
 */
export function describe(event, before, after, dealEvents = [], calls = []) {
  if (!event) return { text: [t("step.start")], calls: [] };
  const { type, data } = event;
  const state = after;
  switch (type) {
    case "deal":
      return { text: [t("event.deal", { name: seatName(state, data.dealer), deal: state.deal.number })], calls: [] };
    case "transfer":
      return { text: [transferSentence(state, data)], calls: [] };
    case "play":
      return {
        text: [t("event.play", { name: seatName(state, data.seat), cards: cardsText(data.cards) })],
        calls: spoken(calls, state.rules),
      };
    case "pass": {
      const text = [t(data.inferred ? "event.pass_inferred" : "event.pass", { name: seatName(state, data.seat) })];
      const calls = ["Passe"];
      const was = before && before.deal ? before.deal.expected : null;
      const now = after.deal ? after.deal.expected : null;
      if (was && !now && after.deal.turn !== null) {
        text.push(t("event.blocked", { name: seatName(state, after.deal.turn) }));
      } else if (was && now && was !== now) {
        text.push(t("event.skipped", { name: seatName(state, after.deal.turn) }));
        calls.push(wantedCall(now));
      }
      return { text, calls };
    }
    case "reveal":
      if (!data.cards) return { text: [t("event.reveal_count", { name: seatName(state, data.seat), hand: handText(data) })], calls: [] };
      return { text: [t("event.reveal", { name: seatName(state, data.seat), cards: cardsText(data.cards) })], calls: [] };
    case "undo":
      return { text: [t("event.undo")], calls: [] };
    case "adjust":
      return { text: [t("event.adjust", { reason: data.reason || "–" })], calls: [] };
    case "end":
      return { text: [t("event.end")], calls: [] };
    case "deal_ended":
      return { text: settlementSentences(state, event, dealEvents), calls: [] };
    case "game_ended":
      return { text: gameOverSentences(state, data), calls: [] };
    default:
      return { text: [type], calls: [] };
  }
}
