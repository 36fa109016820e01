// The game as the server has it: read (and kept on this phone for a later visit with no connection), read again
// when another phone recorded something, and moved on by each answer the outbox gets.

import { ApiError, allEvents, api, isSigningIn } from "./common.js";
import { acknowledge, keepGame, update } from "./outbox.js";
import { project } from "./record_core.js";
import { gameUrl, page, render } from "./record_page.js";

/** Whether a failure is no answer at all (no connection, or the server unavailable), not a refusal. */
export const noAnswer = (failure) => failure instanceof TypeError
  || (failure instanceof ApiError && (failure.status === 0 || failure.status >= 500));

/** Add records to the log shown; answers false when they do not follow it (a gap: the log is read again). */
function merge(records) {
  const events = page.known.events;
  const last = events.length ? events[events.length - 1].seq : 0;
  const fresh = records.filter((record) => record.seq > last);
  if (fresh.length && fresh[0].seq !== last + 1) return false;
  events.push(...fresh);
  return true;
}

/** The game as the server has it now (its state and its whole log), kept on this phone for a later offline visit. */
export async function reload() {
  const [state, events] = await Promise.all([api(gameUrl()), allEvents(page.game)]);
  page.known = { state, events };
  page.keptCopy = false;
  project();
  await keepGame(page.game, state, events);
}

/**
 * Catch up with what other phones recorded: the state and log read again and drawn. Today the page calls it when
 * it opens, when the connection returns and when it comes back into view; the game's stream
 * (GET /api/v1/games/{game}/stream) plugs in here: call it on each event the stream brings (or merge the event).
 */
export async function catchUp() {
  if (page.sending || page.busy) return;
  try {
    await reload();
  } catch (failure) {
    if (isSigningIn(failure) || failure instanceof TypeError || (failure instanceof ApiError && failure.status === 0)) return;
    throw failure;
  }
  render();
}

let following = null; // a catch-up waiting for the page to be free (an action on its way)

/**
 * An event the game's stream brings: when the page has not shown it yet (another phone recorded it), the page
 * catches up at once, or as soon as what this phone is sending has been answered.
 */
export function streamed(event) {
  if (!page.known || event.seq <= page.known.state.version) return;
  if (page.sending || page.busy || page.outbox.length) {
    if (!following) following = setTimeout(() => { following = null; streamed(event); }, 250);
    return;
  }
  catchUp();
}

/** The outbox's first entry acknowledged: out of the outbox, the next one told the version it goes on. */
export async function acknowledged(entry, answer) {
  const next = page.outbox[1];
  await acknowledge(entry.id, next, answer.state.version);
  page.outbox.shift();
  page.offline = false;
  page.known.state = answer.state;
  const events = page.known.events;
  if (!merge(answer.events) || events.length === 0 || events[events.length - 1].seq !== answer.state.version) {
    await reload(); // an answer kept from a first attempt, older than the game now: read it all again
  } else {
    project();
    await keepGame(page.game, page.known.state, page.known.events);
  }
}

/** Keep an entry in the outbox, out of the way of sending, with what happened and what to do. */
export async function hold(entry, status, problem) {
  entry.status = status;
  entry.problem = problem;
  await update(entry);
  project();
}
