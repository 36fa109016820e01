// The home page's "Phones" panel: a phone signs in by scanning a QR code, with nothing to type (api/lan.py).
// The code on the screen is seen by everyone near it, and a photograph keeps it: so it is no token but a one-time
// code, which signs one phone in within two minutes (the phone then gets a token of its own). The panel shows one
// code at a time, asks every few seconds whether it was used, and shows a fresh one for the next phone once it was
// used or has expired; "Done" ends the code on the screen at once. It counts the phones signed in meanwhile.

import { $, api, notify, t } from "./common.js";

const POLL = 2000; // how often the panel asks whether its code was used
const TICK = 1000; // the countdown's step

let shown = null; // the code on the screen: {id, role, expires_at}
let club = null;
let signedIn = 0;
let poller = null;
let ticker = null;
let asking = false;

const svgImage = (svg) => `data:image/svg+xml;base64,${btoa(svg)}`;

function label() {
  const now = new Date();
  const when = now.toLocaleString(document.documentElement.lang || "en", {
    day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  return t("phones.label", { when });
}

function stopTimers() {
  clearInterval(poller);
  clearInterval(ticker);
  poller = ticker = null;
}

/** The minutes and seconds left to the code on the screen ("1:45"), or null once it expired. */
function left() {
  const seconds = Math.ceil((Date.parse(shown.expires_at) - Date.now()) / 1000);
  return seconds > 0 ? `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}` : null;
}

function countdown() {
  if (!shown) return;
  const time = left();
  if (time === null) {
    renew();
    return;
  }
  $("#phone-expiry").textContent = t(shown.role === "viewer" ? "phones.expires_viewer" : "phones.expires", { time });
}

/** Show a new code for the next phone (the role chosen stays). While the page is out of sight no code is made: a
 * fresh one waits for the page to be seen again. */
async function issue() {
  stopTimers();
  if (document.visibilityState === "hidden") {
    $("#phone-qr").removeAttribute("src");
    shown = { id: null, role: $("#phone-role").value, expires_at: new Date(0).toISOString(), waiting: true };
    return;
  }
  const made = await api(`/clubs/${club}/phones`, {
    method: "POST", body: { role: $("#phone-role").value, label: label() } });
  shown = made;
  $("#phone-qr").src = svgImage(made.qr_svg);
  $("#phone-qr").dataset.code = made.id; // the code's id (not the code): GET /clubs/{club}/phones/{id}
  $("#phone-certificate").hidden = !made.certificate_qr_svg;
  if (made.certificate_qr_svg) $("#certificate-qr").src = svgImage(made.certificate_qr_svg);
  countdown();
  ticker = setInterval(countdown, TICK);
  poller = setInterval(poll, POLL);
}

async function renew() {
  try {
    await issue();
  } catch (failure) {
    stopTimers();
    notify(failure.message);
  }
}

/** Ask whether the code on the screen was used: then count the phone and show the next code. */
async function poll() {
  if (!shown || !shown.id || asking) return;
  const id = shown.id;
  asking = true;
  try {
    const code = await api(`/clubs/${club}/phones/${id}`);
    if (!shown || shown.id !== id) return;
    if (code.status === "used") {
      signedIn += 1;
      const count = $("#phones-signed-in");
      count.textContent = t("phones.signed_in", { count: signedIn });
      count.hidden = false;
      notify(t("phones.joined", { label: code.label }), "info");
      await renew();
    } else if (code.status === "expired") {
      await renew();
    }
  } catch (ignored) {
    // no answer this time (the network, the server restarting): the next poll asks again
  } finally {
    asking = false;
  }
}

async function start(event) {
  event.preventDefault();
  const button = $("#add-phone");
  button.disabled = true;
  try {
    await issue();
    $("#phone-code").hidden = false;
    $("#phone-form").hidden = true;
    $("#phone-code").scrollIntoView({ block: "nearest" });
  } catch (failure) {
    notify(failure.message);
  } finally {
    button.disabled = false;
  }
}

/** "Done": the code on the screen ends at once (a photograph of it signs nobody in), the panel closes. */
async function done() {
  const ending = shown && shown.id;
  stopTimers();
  shown = null;
  $("#phone-code").hidden = true;
  $("#phone-form").hidden = false;
  $("#phone-qr").removeAttribute("src");
  if (ending) {
    try {
      await api(`/clubs/${club}/phones/${ending}`, { method: "DELETE" });
    } catch (failure) {
      notify(failure.message);
    }
  }
}

/** Set up the panel (absent when no phone can reach this server: the page says why instead). */
export function setupPhones(clubId) {
  const form = $("#phone-form");
  if (!form) return;
  club = clubId;
  form.addEventListener("submit", start);
  $("#phone-done").addEventListener("click", done);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && shown && shown.waiting) renew();
  });
}
