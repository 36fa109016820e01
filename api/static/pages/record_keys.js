// The scorer's buttons and its card grid, held while an action is on its way (record_page.js `held`). A held
// control is `aria-disabled`, not `disabled`: it keeps the keyboard's focus while the answer comes, and ignores taps.

import { el, t } from "./common.js";
import { DECK, cardText, parseCard } from "./cards.js";
import { held } from "./record_page.js";

/** A tap's handler that does nothing while the controls are held. */
const unlessHeld = (onclick) => onclick && ((event) => { if (!held()) onclick(event); });

export function button(label, onclick, { primary = false, disabled = false, id = null, cls = null, dataset = null, pressed = null } = {}) {
  return el("button", {
    type: "button", id, class: [primary ? "primary" : null, cls].filter(Boolean).join(" ") || null,
    disabled, "aria-disabled": held() ? "true" : null, onclick: unlessHeld(onclick), dataset,
    "aria-pressed": pressed === null ? null : String(pressed),
  }, label);
}

/** The 52 cards by rank then suit: `enabled` says which may be tapped, `kind` adds a class to a key. */
export function keypad(enabled, onTap, kind = () => null) {
  return el("div", { class: "keypad", role: "group", "aria-label": t("keypad") }, DECK
    .slice()
    .sort((a, b) => parseCard(a).rank - parseCard(b).rank || a.slice(-1).localeCompare(b.slice(-1)))
    .map((card) => el("button", {
      type: "button", class: ["key", /[DH]$/.test(card) ? "red" : "black", kind(card)].filter(Boolean).join(" "),
      dataset: { card }, disabled: !enabled(card), "aria-disabled": held() ? "true" : null,
      onclick: unlessHeld(() => onTap(card)),
    }, cardText(card))));
}
