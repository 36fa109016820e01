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
$("#signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  const club = $("#club").value.trim();
  const token = $("#token").value.trim();
  const candidate = { club, token };
  try {
    const info = await api(`/clubs/${encodeURIComponent(club)}`, { session: candidate });
    saveSession({ club: info.id, token, name: info.name }, $("#remember").checked);
    location.assign(nextPage());
  } catch (failure) {
    if (failure instanceof ApiError && (failure.status === 401 || failure.status === 404)) {
      notify(t("signin.refused"));
    } else {
      notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
    }
  }
});
