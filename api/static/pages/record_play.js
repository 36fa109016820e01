// A deal in play: the cards tapped, then the seat that laid them. What may be tapped, what the run then wants and
// which cards tapped may be announced are the rules' answer (record_taps.js `tapsNow`); this module only draws it.

import { el, t } from "./common.js";
import { NBSP, cardElement, honourCall, restartCall, wantedCall } from "./cards.js";
import { seatName } from "./table.js";
import { button, keypad } from "./record_keys.js";
import { redoButton, undoButton, undoPanel } from "./record_mend.js";
import { send } from "./record_outbox.js";
import { deal, held, page, render, rules } from "./record_page.js";
import { startsWith } from "./record_taps.js";

/** The seats the next cards may go to, in the order of play from the seat to act (only the one chosen, if any). */
function seatsFromTurn() {
  const d = deal();
  if (page.seat !== null) return [page.seat];
  return d.hand_sizes.map((_, index) => (d.turn + index) % d.hand_sizes.length);
}

/** The seats the tapped cards may be recorded for, the seat to act first. */
const recordableSeats = (taps) => seatsFromTurn().filter((seat) => taps.recordable.includes(seat));

/** The seat the next cards go to: the one chosen, else the first that may lay what is tapped. */
export function receivingSeat(taps) {
  if (page.seat !== null) return page.seat;
  const seats = recordableSeats(taps);
  return seats.length ? seats[0] : deal().turn;
}

const tappable = (card, taps) => !page.pending.includes(card) && (taps.cards[card] || []).length > 0;

/** A card only the seat that would complete the round may lay (a new run): drawn apart on the keypad. */
function restartOnly(card, taps) {
  if (page.seat !== null || page.pending.length > 0) return false;
  return !(taps.cards[card] || []).includes(deal().turn);
}

/** The call the cards tapped end on, said as they are recorded: "sans 8", "Roi et je recommence", "J'arrête !". */
function preview(seat, taps) {
  const d = deal();
  if (!page.pending.length) return "";
  if (page.pending.length === d.hand_sizes[seat]) return `J'arrête${NBSP}!`;
  return taps.next ? wantedCall(taps.next) : restartCall(page.pending[page.pending.length - 1]);
}

export function playingControls(taps) {
  const state = page.state;
  const d = deal();
  const seat = receivingSeat(taps);
  const possible = page.pending.length ? recordableSeats(taps) : [];
  // with nothing tapped, the seat chosen: any seat while the run wants a card, else (a new run) the seat to act
  const anyone = d.expected ? state.players.map((p) => p.seat) : [d.turn];
  const honours = taps.honours;
  const play = (who) => ({ // read when pressed: a box may have been unticked since
    type: "play", seat: who, cards: [...page.pending], announced: honours.filter((card) => !page.unticked.has(card)),
  });
  const who = seat === d.turn ? t("plays_now", { name: seatName(state, seat) })
    : t("plays_out_of_turn", { name: seatName(state, seat), turn: seatName(state, d.turn) });

  // The seat strip: the seat that receives the cards stands out; with cards tapped, a tap on a seat
  // records them for that seat (the passes in between go with them), else it chooses the seat.
  const pick = (s) => {
    if (page.pending.length) {
      if (possible.includes(s)) send([play(s)]);
      return;
    }
    chooseSeat(s);
  };
  const strip = el("div", { class: "seat-strip", role: "group", "aria-label": t("strip.label") },
    el("span", { class: "strip-label" }, page.pending.length ? t("strip.record") : t("strip.choose")),
    state.players.map((p) => button([
      el("span", { class: "pick-name" }, p.name),
      p.seat === d.turn ? el("span", { class: "pick-turn", title: t("mark.turn") }, " ▸") : null,
    ], () => pick(p.seat), {
      cls: `pick${p.seat === seat ? " receiving" : ""}`, dataset: { pick: p.seat }, pressed: p.seat === seat,
      disabled: page.pending.length ? !possible.includes(p.seat) : !anyone.includes(p.seat),
    })));

  const laid = el("div", { class: "pending", "aria-label": t("play_in_progress") },
    page.pending.length ? page.pending.map((card) => cardElement(card, { small: true }))
      : el("span", { class: "empty" }, t("tap_cards")),
    page.pending.length ? button("⌫", () => { page.pending.pop(); render(); }, { id: "backspace", cls: "backspace" }) : null,
    honours.map((card) => el("label", { class: "check announce" },
      el("input", {
        type: "checkbox", dataset: { announce: card }, checked: !page.unticked.has(card),
        onchange: (event) => {
          if (event.target.checked) page.unticked.delete(card); else page.unticked.add(card);
        },
      }), el("span", { class: "call" }, card in rules().board ? honourCall(card) : `Hoc${NBSP}!`))));

  const said = preview(seat, taps);
  const bar = el("div", { class: "buttons sticky record-bar", id: "record-bar" },
    undoPanel(), laid, strip,
    el("div", { class: "buttons" },
      button(said ? `${t("play_as", { name: seatName(state, seat) })} — ${said}` : t("play_as", { name: seatName(state, seat) }),
        () => send([play(seat)]), { primary: true, disabled: !page.pending.length || !possible.includes(seat), id: "play" }),
      button(t("pass_button", { name: seatName(state, d.turn) }), () => send([{ type: "pass", seat: d.turn }]),
        { disabled: !d.expected || page.pending.length > 0, id: "pass" }),
      undoButton(), redoButton()));
  return [
    el("p", { class: "who" }, who, " ", el("span", { class: "hint" }, t("tap_then_seat"))),
    keypad((card) => tappable(card, taps), (card) => { page.pending.push(card); render(); },
      (card) => (restartOnly(card, taps) ? "restart" : null)),
    bar,
  ];
}

/**
 * Choose the seat whose cards are tapped next: only its cards are then enabled. Choosing it again goes
 * back to the default (any seat's cards, the seat to act first).
 */
export function chooseSeat(seat) {
  if (held()) return; // what the seat may lay is not known yet
  const starts = startsWith(seat);
  page.seat = page.seat === seat ? null : seat;
  if (page.seat !== null && !starts) page.pending = [];
  render();
}
