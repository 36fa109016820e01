// The scorer draws its controls anew after each tap: the keyboard's focus stays on the same control (the same
// key, seat, box or button), so that a player with a keyboard alone goes on where they were. A control that is
// gone or disabled hands the focus to the first control that can be used (the grid's first card that can be
// tapped, while a deal is played), never to the top of the page.

const MARKS = { card: "data-card", pick: "data-pick", announce: "data-announce", revealSeat: "data-reveal-seat",
  honour: "data-honour" };

/** What names the focused control inside `box` (a selector that finds it again), or null when the focus is elsewhere. */
export function focusedControl(box) {
  const active = document.activeElement;
  if (!active || active === box || !box.contains(active)) return null;
  if (active.id) return `#${CSS.escape(active.id)}`;
  for (const [name, attribute] of Object.entries(MARKS)) {
    if (active.dataset[name] !== undefined) return `[${attribute}="${CSS.escape(active.dataset[name])}"]`;
  }
  return active.classList.length ? `.${[...active.classList].map((c) => CSS.escape(c)).join(".")}` : "*";
}

/** Give the focus back to the control `selector` names inside `box`, or to its first control that can be used. */
export function restoreFocus(box, selector) {
  if (!selector) return;
  const usable = (node) => node && !node.disabled && node.getClientRects().length > 0;
  let target = selector === "*" ? null : box.querySelector(selector);
  if (!usable(target)) target = [...box.querySelectorAll(".keypad .key, button, input, a")].find(usable);
  if (target) target.focus({ preventScroll: true });
}
