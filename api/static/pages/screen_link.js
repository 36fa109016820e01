// The director's link for the big screen: one tap makes a read-only link to the evening's big screen
// (POST …/screen/links: an evening share, listed and revoked with the club's shares) and shows it as a QR code and
// an address to copy, so that a television or a laptop opens /clubs/{club}/evenings/{evening}/screen#share=…
// with no token typed. The link is kept in this tab (sessionStorage) until the tab is closed: drawn again, the
// page shows the same link instead of making another.

import { ApiError, api, el, notify, t } from "./common.js";
import { eveningPath } from "./marks.js";

const KEPT = "nj-ledger.screen-link.";

async function copy(input) {
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // no clipboard outside HTTPS: the address is selected, for the system's own copy
    if (!document.execCommand("copy")) return;
  }
  notify(t("screen_link.copied"), "info");
}

function show(box, link) {
  const input = el("input", { id: "screen-address", readonly: true, value: link.address,
    "aria-label": t("screen_link.address") });
  input.addEventListener("focus", () => input.select());
  box.replaceChildren(el("figure", { class: "screen-link" },
    el("img", { id: "screen-qr", src: `data:image/png;base64,${link.qr_png}`, alt: t("screen_link.qr_alt"),
      width: 220, height: 220 }),
    el("figcaption", {},
      el("p", {}, t("screen_link.explain")),
      el("div", { class: "share-copy" }, input,
        el("button", { type: "button", id: "screen-copy", onclick: () => copy(input) }, t("screen_link.copy"))),
      el("p", {}, el("a", { id: "screen-open-here", href: link.url, target: "_blank", rel: "noopener" },
        t("screen_link.open_here"))))));
}

async function make(box, club, evening, button) {
  button.disabled = true;
  try {
    const made = await api(eveningPath(club, evening, "screen", "links"), { method: "POST",
      body: { label: t("screen_link.label") } });
    const link = { address: made.address, url: made.url, qr_png: made.qr_png };
    sessionStorage.setItem(KEPT + evening, JSON.stringify(link));
    show(box, link);
  } catch (failure) {
    button.disabled = false;
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  }
}

/** The big screen's link in `box`: the link this tab already made, or the button that makes it (drawn once). */
export function screenLink(box, club, evening) {
  if (!box || box.dataset.drawn) return;
  box.dataset.drawn = "true";
  const kept = sessionStorage.getItem(KEPT + evening);
  if (kept) {
    show(box, JSON.parse(kept));
    return;
  }
  const button = el("button", { type: "button", id: "screen-make", class: "primary" }, t("screen_link.open"));
  button.addEventListener("click", () => make(box, club, evening, button));
  box.replaceChildren(el("p", { class: "actions" }, button));
}
