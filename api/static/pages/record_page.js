// The scorer page's state, shared by its modules (record.js draws it): the game shown, the turn being tapped, the
// outbox, and whether the taps are held.

export const page = {
  game: document.body.dataset.game,
  known: null, // {state, events}: the game as the server last answered (or as this phone kept it)
  state: null, // the state shown: the server's, or the state the waiting actions give (`local`)
  events: [], // the log shown: the server's, then the records the waiting actions will make
  core: null, // the core's rules in the page (core.js), once loaded
  coreLoading: false,
  computing: false, // the core is computing the state shown (taps held until it answers)
  tapsKey: null, // what `taps` answers for: the projection, the cards tapped, the seat chosen
  tapsAsked: null,
  projected: 0, // how many projections the page has shown (a new one asks `taps` again)
  local: false, // the state shown is the core's, after every waiting action
  taps: null, // the rules' answer of what may be tapped (the core's in the page, or the server's), for `tapsKey`
  seat: null, // who plays the cards being tapped (default: the seat to act)
  pending: [], // cards tapped, in order
  unticked: new Set(), // honours the player forgot to call
  revealSeat: null,
  revealing: [], // a loser's cards tapped one by one
  revealByCards: false, // the table shows the cards: tap them instead of counting
  points: "", // a loser's points said aloud
  held: new Set(), // honours a loser still holds
  undoing: false, // the undo panel is open (reason, confirmation)
  reason: "", // the undo's reason, as typed
  dealer: null, // first deal: the dealer chosen
  confirmEnd: false,
  busy: false,
  outbox: [], // the actions tapped and not yet acknowledged, oldest first (as kept in IndexedDB)
  sending: false, // the outbox is being sent
  offline: false, // the last attempt got no answer
  keptCopy: false, // the game shown is the copy this phone kept (no connection when the page opened)
};

let draw = () => {};

/** Draw the page again, from `page` (record.js gives the drawing once its modules are read). */
export function render() {
  draw();
}

export function drawWith(drawing) {
  draw = drawing;
}

/** What an answer of what may be tapped is for: the state shown and the cards tapped (it answers for every seat). */
export const tapsKey = () => JSON.stringify([page.projected, page.local, page.state.version, page.pending]);

/** Whether the page needs to know what may be tapped: a deal in play, or a loser's hand told. */
export const tapsWanted = () => ["playing", "revealing"].includes(page.state.status);

/** Whether the answer of what may be tapped is the one of what is on screen (or none is needed). */
export const tapsReady = () => !tapsWanted() || (page.taps !== null && page.tapsKey === tapsKey());

/**
 * Whether taps are held: something is on its way, or waits in the outbox and the next turn is not known (the core
 * has not loaded in the page, or an action waiting was refused or is in conflict).
 */
export const held = () => page.busy || page.computing || !tapsReady() || (page.outbox.length > 0 && !page.local);

export const gameUrl = () => `/games/${encodeURIComponent(page.game)}`;
export const deal = () => page.state.deal;
export const rules = () => page.state.rules;

/** The open deal's records of the log shown, from its `deal` on. */
export function dealEvents() {
  let start = 0;
  page.events.forEach((event, index) => { if (event.type === "deal") start = index; });
  return page.events.slice(start);
}

/** A turn recorded: the cards, the seat chosen, the loser's count and the undo panel start afresh. */
export function resetTurn() {
  page.seat = null;
  page.pending = [];
  page.unticked = new Set();
  page.revealing = [];
  page.revealSeat = null;
  page.points = "";
  page.held = new Set();
  page.undoing = false;
  page.reason = "";
  page.confirmEnd = false;
}
