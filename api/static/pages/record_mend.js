// Mending: Undo (with a reason, and a confirmation before it withdraws a settlement) and Redo, which sends back what
// the undo withdrew.

import { $, el, t } from "./common.js";
import { cardText } from "./cards.js";
import { seatName } from "./table.js";
import { button } from "./record_keys.js";
import { send } from "./record_outbox.js";
import { page, render } from "./record_page.js";

/** What an undo would withdraw: the state's `undo`, or, from a server without it, the open deal's `can_undo`. */
function undoTarget() {
  const state = page.state;
  if (state.undo !== undefined) return state.undo;
  const d = state.deal;
  const open = ["playing", "revealing"].includes(state.status);
  return open && d && d.can_undo ? { type: null, seat: null, withdraws_settlement: false } : null;
}

function undoText(target) {
  if (!target || !["play", "pass", "reveal"].includes(target.type) || target.seat === null || target.seat === undefined) {
    return t("undo.latest");
  }
  return t(`undo.${target.type}`, { name: seatName(page.state, target.seat) });
}

function redoText(action) {
  const name = action.seat === undefined || action.seat === null ? "" : seatName(page.state, action.seat);
  if (action.type === "play") return t("redo.play", { name, cards: action.cards.map(cardText).join(" ") });
  if (action.type === "pass") return t("redo.pass", { name });
  if (action.type === "reveal") return t("redo.reveal", { name });
  return t("redo_button");
}

export function undoButton() {
  if (!undoTarget() || page.undoing) return null;
  return button(t("undo_button"), () => {
    page.undoing = true;
    render();
    $("#undo-confirm")?.focus(); // the button, not the optional reason: no phone keyboard opens over the question
  }, { id: "undo" });
}

export function redoButton() {
  const redo = page.state.redo;
  if (!redo || page.undoing) return null;
  return button(redoText(redo), () => send([redo], { redo: true }), { id: "redo" });
}

export function undoPanel() {
  const target = undoTarget();
  if (!page.undoing || !target) return null;
  const reason = el("input", {
    type: "text", id: "undo-reason", maxlength: 200, autocomplete: "off", placeholder: t("undo.reason_placeholder"),
    value: page.reason, oninput: (event) => { page.reason = event.target.value; },
    onkeydown: (event) => { if (event.key === "Enter") confirm(); },
  });
  function confirm() {
    const text = page.reason.trim();
    send([text ? { type: "undo", reason: text } : { type: "undo" }]);
  }
  const settled = Boolean(target.withdraws_settlement);
  const number = page.state.deal ? page.state.deal.number : page.state.deals_played;
  return el("div", { class: "undo-panel", id: "undo-panel", role: "group", "aria-label": t("undo_button") },
    el("p", { class: "undo-what" }, undoText(target)),
    settled ? el("p", { class: "warning", id: "undo-warning" },
      t(page.state.status === "ended" ? "undo.withdraws_end" : "undo.withdraws_settlement", { deal: number })) : null,
    el("label", { class: "reason" }, t("undo.reason"), reason),
    el("div", { class: "buttons" },
      button(settled ? t("undo.confirm_settlement") : t("undo.confirm"), confirm, { primary: true, id: "undo-confirm" }),
      button(t("undo.cancel"), () => { page.undoing = false; page.reason = ""; render(); }, { id: "undo-cancel" })));
}

/** Undo and Redo, with the undo panel, for the moments without a card grid (between deals, game over). */
export function mendRow() {
  const buttons = [undoButton(), redoButton()].filter(Boolean);
  const panel = undoPanel();
  if (!buttons.length && !panel) return [];
  return [panel, buttons.length ? el("div", { class: "buttons mend" }, buttons) : null].filter(Boolean);
}
