// Two phones: a tap made on a state another phone has moved on (a 409), and the actions told in words for the
// outbox and its conflicts.

import { ApiError, allEvents, isSigningIn, notify, recordActions, t } from "./common.js";
import { remove, update } from "./outbox.js";
import { cardText } from "./cards.js";
import { seatName } from "./table.js";
import { project } from "./record_core.js";
import { acknowledged, hold, noAnswer, reload } from "./record_server.js";
import { page } from "./record_page.js";

const TABLE_ACTIONS = ["deal", "play", "pass", "reveal", "undo", "adjust", "end", "game_ended"];

/** Whether the log's records since the tap already hold `action` (the same action by the same seat). */
function alreadyRecorded(action, since) {
  const sameCards = (a, b) => a.length === b.length && a.every((card, index) => card === b[index]);
  return since.some((record) => {
    const data = record.data || {};
    switch (action.type) {
      case "deal": return record.type === "deal";
      case "play": return record.type === "play" && data.seat === action.seat && sameCards(data.cards, action.cards);
      case "pass": return record.type === "pass" && data.seat === action.seat; // inferred by a later play, or tapped
      case "reveal": return record.type === "reveal" && data.seat === action.seat;
      case "end": return record.type === "game_ended";
      default: return false; // an undo, an adjustment: never taken for another one
    }
  });
}

/**
 * A 409: the game moved on since the tap (another phone recorded something). Each action found in the records
 * since is taken as recorded; else a play, pass or reveal still legal on the fresh state is sent again on it (the
 * server decides); an undo or a redo is never sent on a state it was not tapped on (it would withdraw something
 * else). Whatever is not recorded is held in the outbox with a sentence naming both actions.
 */
export async function reconcile(entry) {
  const since = (await allEvents(page.game)).filter((record) => record.seq > (entry.base ?? 0));
  await reload();
  const theirs = othersText(since);
  if (entry.actions.every((action) => alreadyRecorded(action, since))) {
    await remove(entry.id);
    page.outbox.shift();
    if (page.outbox[0] && (page.outbox[0].base === null || page.outbox[0].base === undefined)) {
      page.outbox[0].base = page.known.state.version;
      await update(page.outbox[0]);
    }
    project();
    notify(t("outbox.already", { action: actionsText(entry.actions) }), "info");
    return true;
  }
  if (entry.actions.some((action) => ["undo", "adjust", "deal", "end"].includes(action.type)) || entry.redo) {
    await hold(entry, "conflict", t("outbox.conflict_undo", { action: actionsText(entry.actions), other: theirs }));
    return false;
  }
  entry.base = page.known.state.version;
  await update(entry);
  try {
    const answer = await recordActions(page.game, entry.actions, { key: entry.key, version: entry.base });
    await acknowledged(entry, answer);
    notify(t("outbox.applied", { action: actionsText(entry.actions), other: theirs }), "info");
    return true;
  } catch (failure) {
    if (isSigningIn(failure)) throw failure;
    if (noAnswer(failure)) {
      page.offline = true;
      return false;
    }
    if (!(failure instanceof ApiError)) throw failure;
    if (failure.status === 409) return false; // moved on again: sent again with the next try
    await hold(entry, "conflict", t("outbox.conflict", {
      action: actionsText(entry.actions), other: theirs, detail: failure.message,
    }));
    return false;
  }
}

/** An action in words, for the outbox and its conflicts ("Ana lays 5♥ 6♥"). */
function actionText(action) {
  const name = action.seat === undefined || action.seat === null ? "" : seatName(page.state, action.seat);
  switch (action.type) {
    case "play": return t("outbox.play", { name, cards: action.cards.map(cardText).join(" ") });
    case "pass": return t("outbox.pass", { name });
    case "reveal": return t("outbox.reveal", { name });
    case "deal": return t("outbox.deal");
    case "undo": return t("outbox.undo");
    case "end": case "game_ended": return t("outbox.end");
    default: return t("outbox.other");
  }
}

export const actionsText = (actions) => actions.map(actionText).join(", ");

/** What the other phone recorded, from the log's records since the tap (inferred passes go with their play). */
function othersText(since) {
  const told = since.filter((record) => TABLE_ACTIONS.includes(record.type) && !(record.type === "pass" && record.data.inferred))
    .map((record) => actionText({ type: record.type, ...(record.data || {}) }));
  return told.length ? told.join(", ") : t("outbox.other");
}
