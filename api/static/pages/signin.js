// Sign in: a club id and its token, checked against the API, kept in this tab or on this device. What this
// browser holds of another club is forgotten first (forget.js): a device passed from one club to the next.

import { $, ApiError, api, notify, saveSession, session, setupHeader, t } from "./common.js";
import { forgetEverything, holder, unsent } from "./forget.js";

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

/**
 * Before club `club` (named `name`) signs in: whatever this browser holds of another club is forgotten, asked
 * first when tapped actions wait to be sent. Answers "kept" (the question was answered no: nothing changes),
 * "same" (the club's own data stays), "forgotten" (another club's data went: its page in `next` is not this
 * club's), or "clean" (no club was signed in here: whatever was left, a table's phone's, went).
 */
async function leaveOtherClub(club, name) {
  const held = holder() ?? session();
  if (held && held.club === club) return "same";
  const count = await unsent();
  if (count > 0 && !(await ask(t("signin.unsent", { count, next: name }), t("signin.unsent_yes", { next: name }),
    t("signin.unsent_no")))) return "kept";
  await forgetEverything();
  return held ? "forgotten" : "clean";
}

/** Check a club id and token against the API, keep them, and go on; false when refused (said) or not wanted. */
async function signIn(club, token, remember) {
  try {
    const info = await api(`/clubs/${encodeURIComponent(club)}`, { session: { club, token } });
    const left = await leaveOtherClub(info.id, info.name);
    if (left === "kept") return false;
    saveSession({ club: info.id, token, name: info.name }, remember);
    location.assign(left === "forgotten" ? "/" : nextPage());
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

$("#signin").addEventListener("submit", (event) => {
  event.preventDefault();
  signIn($("#club").value.trim(), $("#token").value.trim(), $("#remember").checked);
});

/**
 * A phone signed in by a QR code (the home page's "Sign in a phone", api/lan.py) opens
 * /signin#club=…&name=…&code=…: a one-time code, in the fragment, which no server receives. It is taken out of the
 * address (and so out of the history) before anything else, then sent in a request's body for the phone's own
 * token, kept on this device, and the phone goes to the home page. A phone already signed in to another club is
 * asked first: the code is used only if its owner says so (and what the other club left goes, as above).
 */
async function signInFromLink() {
  const given = new URLSearchParams(location.hash.slice(1));
  const code = given.get("code");
  if (!code) return;
  history.replaceState(null, "", location.pathname + location.search);
  const club = given.get("club") || "";
  const current = session();
  if (current && club && current.club !== club && !(await unsent())) {
    const next = given.get("name") || club;
    if (!(await ask(t("signin.switch", { current: current.name || current.club, next }),
      t("signin.switch_yes", { next }), t("signin.switch_no", { current: current.name || current.club })))) {
      location.replace(nextPage());
      return;
    }
  }
  if (club && (await leaveOtherClub(club, given.get("name") || club)) === "kept") return;
  $("#club").value = club;
  notify(t("signin.signing"), "info");
  try {
    const phone = await api("/signin", { method: "POST", body: { code }, anonymous: true });
    // a link that named no club, or not the one its code signs in to: what is held is checked against the code's
    if (phone.club !== club && (await leaveOtherClub(phone.club, phone.name)) === "kept") return;
    saveSession({ club: phone.club, token: phone.token, name: phone.name }, true);
    location.replace(nextPage());
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  }
}

/** Ask a question with two answers in place of the form: true for `yes`. */
function ask(question, yes, no) {
  const box = $("#switch");
  $("#switch-question").textContent = question;
  $("#switch-yes").textContent = yes;
  $("#switch-no").textContent = no;
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
