// The home page's "Phones" panel: a phone signs in by scanning a QR code, with no token to type (api/lan.py).
// Each code holds a token of its own, made when asked ("Sign in a phone"), labelled with the moment, revocable like
// any other; the token rides in the link's fragment, which no server ever receives. The code stays on the screen
// until "Done" (or is revoked at once if no phone used it).

import { $, api, notify, t } from "./common.js";

let shown = null; // the token whose code is on the screen: {id}

const svgImage = (svg) => `data:image/svg+xml;base64,${btoa(svg)}`;

function label() {
  const now = new Date();
  const when = now.toLocaleString(document.documentElement.lang || "en", {
    day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  return t("phones.label", { when });
}

async function signInPhone(club, event) {
  event.preventDefault();
  const button = $("#add-phone");
  button.disabled = true;
  try {
    const made = await api(`/clubs/${club}/phones`, {
      method: "POST", body: { role: $("#phone-role").value, label: label() } });
    shown = made;
    $("#phone-qr").src = svgImage(made.qr_svg);
    $("#phone-certificate").hidden = !made.certificate_qr_svg;
    if (made.certificate_qr_svg) $("#certificate-qr").src = svgImage(made.certificate_qr_svg);
    $("#phone-token").replaceChildren(t(made.role === "viewer" ? "phones.made_viewer" : "phones.made",
      { label: made.label, id: made.id }));
    $("#phone-code").hidden = false;
    $("#phone-form").hidden = true;
    $("#phone-code").scrollIntoView({ block: "nearest" });
  } catch (failure) {
    notify(failure.message);
  } finally {
    button.disabled = false;
  }
}

function hide() {
  shown = null;
  $("#phone-code").hidden = true;
  $("#phone-form").hidden = false;
  $("#phone-qr").removeAttribute("src"); // the token leaves the page with its code
}

async function revoke(club) {
  if (!shown) return;
  try {
    await api(`/clubs/${club}/tokens/${shown.id}`, { method: "DELETE" });
    notify(t("phones.revoked"), "info");
    hide();
  } catch (failure) {
    notify(failure.message);
  }
}

/** Set up the panel (absent when no phone can reach this server: the page says why instead). */
export function setupPhones(club) {
  const form = $("#phone-form");
  if (!form) return;
  form.addEventListener("submit", (event) => signInPhone(club, event));
  $("#phone-done").addEventListener("click", hide);
  $("#phone-revoke").addEventListener("click", () => revoke(club));
}
