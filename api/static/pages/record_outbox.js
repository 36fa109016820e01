// Sending: each action tapped is first written to the outbox (IndexedDB, outbox.js), then sent, in order, and
// removed only when the server acknowledged it; the badge and the list of what waits.

import { $, ApiError, clearNotice, el, isSigningIn, newKey, notify, recordActions, t } from "./common.js";
import { enqueue, remove, update } from "./outbox.js";
import { project } from "./record_core.js";
import { page, render, resetTurn } from "./record_page.js";
import { actionsText, reconcile } from "./record_reconcile.js";
import { acknowledged, hold, noAnswer } from "./record_server.js";

let atOnce = null; // {entry, refused}: the action just tapped, while it is sent at once

/** A tapped action: kept in the outbox first (with its key and the version it was tapped on), then sent. */
export async function send(actions, { redo = false } = {}) {
  const base = page.outbox.length ? null : page.known.state.version;
  const entry = await enqueue({ game: page.game, actions, key: newKey(), base, redo });
  atOnce = { entry, refused: false }; // sent at once: a refusal goes back to the controls, the tap kept to correct
  page.outbox.push(entry);
  project();
  render();
  await flush();
  const refused = atOnce.refused;
  atOnce = null;
  if (refused) return;
  resetTurn();
  project();
  render();
  const waits = $("#outbox"); // not sent and held: what waits, and why the cards are held, in view
  if (waits && !page.core) waits.scrollIntoView({ block: "center" });
}

/** Send what waits, oldest first; stops at the first action not acknowledged (no answer, or a refusal). */
export async function flush() {
  if (page.sending || !page.outbox.length) return;
  page.sending = true;
  page.busy = true;
  render();
  try {
    while (page.outbox.length && page.outbox[0].status === "waiting") {
      if (!navigator.onLine) {
        page.offline = true;
        break;
      }
      notify(t("saving"), "info");
      if (!(await sendFirst())) break;
    }
    if (page.offline) notify(t("outbox.offline"), "info");
  } catch (failure) {
    if (!isSigningIn(failure)) notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    if (!(failure instanceof ApiError) && !isSigningIn(failure)) console.error(failure);
  } finally {
    page.sending = false;
    page.busy = false;
    render();
  }
}

/** Send the outbox's first entry; answers whether the next one may go. */
async function sendFirst() {
  const entry = page.outbox[0];
  try {
    const answer = await recordActions(page.game, entry.actions, {
      key: entry.key, version: entry.base ?? page.known.state.version,
      onRetry: (attempt) => notify(t("retrying", { attempt }), "info"),
    });
    await acknowledged(entry, answer);
    clearNotice();
    return true;
  } catch (failure) {
    if (isSigningIn(failure)) throw failure;
    if (noAnswer(failure)) {
      page.offline = true;
      return false;
    }
    if (!(failure instanceof ApiError)) throw failure;
    page.offline = false;
    clearNotice();
    if (failure.status === 409 && failure.code === "version-conflict") return reconcile(entry);
    if (atOnce && atOnce.entry === entry && failure.status === 422 && page.outbox.length === 1) {
      await remove(entry.id); // refused at once: nothing waits, the tap is still on screen to be corrected
      page.outbox.shift();
      project();
      atOnce.refused = true;
      notify(failure.message);
      return false;
    }
    await hold(entry, "refused", t("outbox.refused", { action: actionsText(entry.actions), detail: failure.message }));
    return false;
  }
}

/** The scorer takes an action out of the outbox (a refusal, a conflict, or a tap made by mistake while waiting). */
async function takeOut(entry) {
  await remove(entry.id);
  const at = page.outbox.findIndex((kept) => kept.id === entry.id);
  page.outbox.splice(at, 1);
  const first = page.outbox[0];
  if (first && (first.base === null || first.base === undefined)) {
    first.base = page.known.state.version;
    await update(first);
  }
  if (!page.outbox.length) clearNotice();
  project();
  render();
  flush();
}

/** The badge and the list of what waits, each with what happened to it and what to do. */
export function outboxElement() {
  if (!page.outbox.length) return null;
  return el("section", { class: "outbox", id: "outbox", "aria-live": "polite" },
    el("p", { class: "outbox-head" },
      el("span", { class: "badge", id: "outbox-badge", dataset: { count: page.outbox.length } },
        t("outbox.badge", { count: page.outbox.length })),
      " ", el("span", { class: "hint" }, t(page.offline ? "outbox.offline_short"
        : page.outbox[0].status !== "waiting" ? "outbox.stopped" : "outbox.held"))),
    page.local ? el("p", { class: "hint local-state", id: "local-state" }, t("outbox.local")) : null,
    // while the page goes on from what waits, the list is folded (a whole deal would push the cards away)
    el("details", { class: "outbox-waiting", open: !page.local },
      el("summary", {}, t("outbox.list")),
      el("ol", { class: "outbox-list" }, page.outbox.map((entry) => el("li", {
      class: `outbox-entry ${entry.status}`, dataset: { status: entry.status, key: entry.key },
    },
    el("span", { class: "what" }, actionsText(entry.actions)),
    entry.problem ? el("p", { class: "problem" }, entry.problem) : null,
    el("span", { class: "buttons" },
      entry.status === "waiting" && !page.sending
        ? el("button", { type: "button", class: "quiet send-now", onclick: () => flush() }, t("outbox.send_now")) : null,
      page.sending && entry.status === "waiting" ? null
        : el("button", { type: "button", class: "quiet take-out", onclick: () => takeOut(entry) }, t("outbox.remove"))))))));
}
