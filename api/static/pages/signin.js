// Sign in: a club id and its token, checked against the API, kept in this tab or on this device.

import { $, ApiError, api, notify, saveSession, setupHeader, t } from "./common.js";

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
async function signIn(club, token, remember, refused = "signin.refused") {
  try {
    const info = await api(`/clubs/${encodeURIComponent(club)}`, { session: { club, token } });
    saveSession({ club: info.id, token, name: info.name }, remember);
    return true;
  } catch (failure) {
    if (failure instanceof ApiError && (failure.status === 401 || failure.status === 404)) {
      notify(t(refused));
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
 * /signin#club=…&token=…: the token is in the fragment, which no server receives. It is taken out of the address
 * (and so out of the history) before anything else, kept on this device, and the phone goes to the home page.
 */
async function signInFromLink() {
  const given = new URLSearchParams(location.hash.slice(1));
  const club = given.get("club");
  const token = given.get("token");
  if (!club || !token) return;
  history.replaceState(null, "", location.pathname + location.search);
  $("#club").value = club;
  if (await signIn(club, token, true, "signin.link_refused")) location.replace(nextPage());
}

signInFromLink();
