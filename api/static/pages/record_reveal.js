// The settlement: each loser's hand, counted aloud (points typed, honours still held ticked) or shown card by card.

import { counted, el, t } from "./common.js";
import { cardElement } from "./cards.js";
import { boardOrder, seatName } from "./table.js";
import { button, keypad } from "./record_keys.js";
import { redoButton, undoButton, undoPanel } from "./record_mend.js";
import { send } from "./record_outbox.js";
import { deal, held, page, render, rules } from "./record_page.js";

/** Whether `card` may be tapped as the loser's: not seen this deal (`seen`), not tapped yet, the hand not full. */
function revealable(card, seen) {
  const d = deal();
  if (seen.has(card) || page.revealing.includes(card)) return false;
  return page.revealing.length < d.hand_sizes[page.revealSeat];
}

export function revealControls(seen) {
  const state = page.state;
  const d = deal();
  const awaiting = d.awaiting_reveal;
  if (page.revealSeat === null || !awaiting.includes(page.revealSeat)) page.revealSeat = awaiting[0];
  const seat = page.revealSeat;
  const size = d.hand_sizes[seat];
  const parts = [];
  if (awaiting.length > 1) {
    parts.push(el("div", { class: "buttons" }, awaiting.map((s) => button(seatName(state, s), () => {
      page.revealSeat = s;
      page.revealing = [];
      page.points = "";
      page.held = new Set();
      render();
    }, { cls: `pick${s === seat ? " receiving" : ""}`, dataset: { revealSeat: s }, pressed: s === seat }))));
  }
  if (page.revealByCards) {
    parts.push(el("p", { class: "who" }, t("reveal_who", { name: seatName(state, seat), cards: counted(size, "card") })));
    parts.push(keypad((card) => revealable(card, seen), (card) => { page.revealing.push(card); render(); }));
    parts.push(el("div", { class: "buttons sticky record-bar" },
      undoPanel(),
      el("div", { class: "pending" },
        page.revealing.length ? page.revealing.map((card) => cardElement(card, { small: true }))
          : el("span", { class: "empty" }, t("tap_cards")),
        page.revealing.length ? button("⌫", () => { page.revealing.pop(); render(); }, { id: "backspace", cls: "backspace" }) : null),
      el("div", { class: "buttons" },
        button(t("reveal_button", { name: seatName(state, seat), count: page.revealing.length, size }),
          () => send([{ type: "reveal", seat, cards: [...page.revealing] }]),
          { primary: true, disabled: page.revealing.length !== size, id: "reveal" }),
        button(t("reveal_by_count"), () => { page.revealByCards = false; page.revealing = []; render(); }, { id: "by-count" }),
        undoButton(), redoButton())));
    return parts;
  }
  // By count: the number of cards is known; the points are said aloud; honours still held are ticked.
  const honours = boardOrder(rules()).filter((card) => !seen.has(card));
  const record = button("", () => send([{
    type: "reveal", seat, count: size, points: Number(page.points),
    honours: honours.filter((card) => page.held.has(card)),
  }]), { primary: true, id: "reveal-count" });
  const label = () => {
    const ready = /^\d+$/.test(page.points);
    record.disabled = !ready; // while the taps are held, the button is aria-disabled and ignores taps
    record.textContent = ready
      ? t("count.record_points", { name: seatName(state, seat), points: counted(Number(page.points), "point"), cards: counted(size, "card") })
      : t("count.record", { name: seatName(state, seat) });
  };
  const points = el("input", {
    type: "text", id: "points", inputmode: "numeric", pattern: "[0-9]*", autocomplete: "off", maxlength: 4,
    value: page.points, "aria-describedby": "count-who",
    oninput: (event) => { page.points = event.target.value.replace(/\D/g, ""); event.target.value = page.points; label(); },
    onkeydown: (event) => { if (event.key === "Enter" && !record.disabled) record.click(); },
  });
  label();
  parts.push(el("div", { class: "count-form", id: "count-form" },
    el("p", { class: "who", id: "count-who" }, t("count.who", { name: seatName(state, seat), cards: counted(size, "card") })),
    el("label", { class: "points" }, t("count.points"), points),
    honours.length ? el("div", { class: "held", role: "group", "aria-label": t("count.held") },
      el("span", { class: "strip-label" }, t("count.held")),
      honours.map((card) => button([cardElement(card, { small: true })], () => {
        if (page.held.has(card)) page.held.delete(card); else page.held.add(card);
        render();
      }, { cls: `honour${page.held.has(card) ? " held" : ""}`, dataset: { honour: card }, pressed: page.held.has(card) }))) : null,
    el("div", { class: "buttons sticky record-bar" },
      undoPanel(),
      el("div", { class: "buttons" }, record,
        button(t("reveal_by_cards"), () => { page.revealByCards = true; render(); }, { id: "by-cards", cls: "quiet-link" }),
        undoButton(), redoButton()))));
  return parts;
}
