// A wide table scrolls sideways inside its own box, never the page. The box is a named region that takes the
// keyboard's focus, so that the arrow keys scroll it too (a phone's finger swipes it).

import { el } from "./common.js";

/** A box named `label` around `children` (a table), scrolled on its own when they are wider than the screen. */
export function scrollBox(label, ...children) {
  return el("div", { class: "scroll", role: "region", tabindex: "0", "aria-label": label }, ...children);
}
