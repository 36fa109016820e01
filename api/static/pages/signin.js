// Sign in: a club id and its token, checked against the API, kept in this tab or on this device.

import { $, ApiError, api, notify, saveSession, session, setupHeader, t } from "./common.js";

/**
 * Where to go after signing in: `next` when it is a page of this site, else the home page.
 * `next` is resolved the way the browser will read it, not checked by its first characters: browsers
 * read "/\evil.example" as "//evil.example", drop tabs and newlines ("java\tscript:"), and
 * normalise "/.//evil.example" to the path "//evil.example", which would itself leave the site if
 * navigated to as it is; so the path kept must resolve to the very same address.
 *
 *   nextPage("/games/new?x=1#y") → "/games/new?x=1#y"
 *   nextPage("/\evil.example/x") → "/"
 */
function nextPage(next = new URLSearchParams(location.search).get("next")) {
  if (!next) return "/";
  let target;
  try {
    target = new URL(next, location.origin);
  } catch {
    return "/";
  }
  if (target.origin !== location.origin || !["http:", "https:"].includes(target.protocol)) return "/";
  const path = target.pathname + target.search + target.hash;
  return new URL(path, location.origin).href === target.href ? path : "/";
}

setupHeader();
// Signing in replaces whatever session this browser holds: this page offers no "Sign out".
const signout = document.getElementById("signout");
if (signout) signout.hidden = true;

/** Check a club id and token against the API, keep them, and go on; false when they are refused (said). */
async function signIn(club, token, remember) {
  try {
    const info = await api(`/clubs/${encodeURIComponent(club)}`, { session: { club, token } });
    saveSession({ club: info.id, token, name: info.name }, remember);
    return true;
  } catch (failure) {
    if (failure instanceof ApiError && (failure.status === 401 || failure.status === 404)) {
      notify(t("signin.refused"));
    } else {
      notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    }
    return false;
  }
}

$("#signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await signIn($("#club").value.trim(), $("#token").value.trim(), $("#remember").checked)) {
    location.assign(nextPage());
  }
});

/**
 * A phone signed in by a QR code (the home page's "Sign in a phone", api/lan.py) opens
 * /signin#club=…&name=…&code=…: a one-time code, in the fragment, which no server receives. It is taken out of the
 * address (and so out of the history) before anything else, then sent in a request's body for the phone's own
 * token, kept on this device, and the phone goes to the home page. A phone already signed in to another club is
 * asked first: the code is used only if its owner says so.
 */
async function signInFromLink() {
  const given = new URLSearchParams(location.hash.slice(1));
  const code = given.get("code");
  if (!code) return;
  history.replaceState(null, "", location.pathname + location.search);
  const club = given.get("club") || "";
  const current = session();
  if (current && club && current.club !== club) {
    const next = given.get("name") || club;
    if (!(await confirmSwitch(current.name || current.club, next))) {
      location.replace(nextPage());
      return;
    }
  }
  $("#club").value = club;
  notify(t("signin.signing"), "info");
  try {
    const phone = await api("/signin", { method: "POST", body: { code }, anonymous: true });
    saveSession({ club: phone.club, token: phone.token, name: phone.name }, true);
    location.replace(nextPage());
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  }
}

/** Ask whether to leave the club this phone is signed in to for the code's: true to sign in to the new one. */
function confirmSwitch(current, next) {
  const box = $("#switch");
  $("#switch-question").textContent = t("signin.switch", { current, next });
  $("#switch-yes").textContent = t("signin.switch_yes", { next });
  $("#switch-no").textContent = t("signin.switch_no", { current });
  box.hidden = false;
  $("#signin").hidden = true;
  $("#switch-yes").focus();
  return new Promise((resolve) => {
    const answer = (yes) => () => {
      box.hidden = true;
      $("#signin").hidden = false;
      resolve(yes);
    };
    $("#switch-yes").addEventListener("click", answer(true), { once: true });
    $("#switch-no").addEventListener("click", answer(false), { once: true });
  });
}

signInFromLink();
window.addEventListener("hashchange", signInFromLink); // a code opened while this page was already open
