// What every page shares: the club session kept in the browser, calls to the JSON API,
// translated messages, a small DOM helper, the header (language switch, sign-out).

import { forgetEverything, forgetTab, forgottenElsewhere, hold, unsent } from "./forget.js";
import { collator, counted, formatNumber, lang, t } from "./messages.js";
import { dropReceipt, keepReceipt } from "./receipts.js";

export { collator, counted, formatNumber, lang, t }; // every page takes them from here, with the rest

const SESSION_KEY = "nj-ledger.session";
const SIGNING_IN = "signing in";
const LANG_COOKIE = "lang";

// --- DOM ----------------------------------------------------------------------------------------
/** el("p", {class: "x", dataset: {seat: 1}, onclick: f}, "text", child…) */
export function el(tag, attrs = {}, ...children) {
  const node = tag === "svg" || attrs.svg ? document.createElementNS("http://www.w3.org/2000/svg", tag)
    : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false || name === "svg") continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function svg(tag, attrs = {}, ...children) {
  return el(tag, { ...attrs, svg: true }, ...children);
}

export const $ = (selector, root = document) => root.querySelector(selector);

// --- notices --------------------------------------------------------------------------------------
export function notify(text, kind = "error") {
  const box = document.getElementById("notice");
  if (!box) return;
  box.textContent = text;
  box.className = `notice ${kind}`;
  box.hidden = !text;
}

export const clearNotice = () => notify("");

// --- the session: a club id and its token, in this tab or on this device --------------------------------
export function session() {
  for (const storage of [sessionStorage, localStorage]) {
    try {
      const saved = JSON.parse(storage.getItem(SESSION_KEY) || "null");
      if (saved && saved.club && saved.token) return saved;
    } catch (ignored) { /* a damaged entry is no session */ }
  }
  return null;
}

export function saveSession(value, remember) {
  forgetSession();
  (remember ? localStorage : sessionStorage).setItem(SESSION_KEY, JSON.stringify(value));
  hold(value.club, value.name);
}

export function forgetSession() {
  sessionStorage.removeItem(SESSION_KEY);
  localStorage.removeItem(SESSION_KEY);
}

/** Whether a failure is the trip to the sign-in page (nothing to show). */
export const isSigningIn = (failure) => failure instanceof Error && failure.message === SIGNING_IN;

// --- a share: a read-only link whose secret is in the address's fragment (#share=…), never sent to the server --
/** The secret of the share this page was opened with, or null. */
export function sharedSecret() {
  const secret = new URLSearchParams(location.hash.slice(1)).get("share");
  return secret && /^[\w-]{20,200}$/.test(secret) ? secret : null;
}

/** The share this page was opened with, as a session of its own (it reads one game or one scoreboard). */
export function shareSession() {
  const secret = sharedSecret();
  return secret ? { token: secret, share: true } : null;
}

/** `#share=…&` to start a fragment with when the page was opened with a share ("" otherwise). */
export const shareFragment = () => {
  if (sharedSecret()) return `share=${sharedSecret()}&`;
  return tableCode() ? `table=${tableCode()}&` : ""; // a table's phone keeps its table in the address
};

// --- a table of a club evening: its scorer link carries the table's token (#token=…), kept on this phone ----------
export const TABLE_KEY = "nj-ledger.table.";
const CODE = /^[2-9A-HJ-NP-Z]{4,12}$/;

/** A table code as typed (spaces dropped, upper case), or null when it cannot be one. */
export function cleanCode(text) {
  const code = String(text || "").replace(/[\s-]/g, "").toUpperCase();
  return CODE.test(code) ? code : null;
}

/** The table this page scores for (`#table=CODE` in the address), or null. */
export function tableCode() {
  return cleanCode(new URLSearchParams(location.hash.slice(1)).get("table"));
}

/** Keep a table's token on this phone (the table's phone keeps scoring after a reload). */
export function keepTableToken(code, token) {
  try { localStorage.setItem(TABLE_KEY + code, token); } catch (ignored) { /* private mode: this visit only */ }
}

/** The table's session: its token kept on this phone for `code` (default: the table of the address), or null. */
export function tableSession(code = tableCode()) {
  if (!code) return null;
  let token = null;
  try { token = localStorage.getItem(TABLE_KEY + code); } catch (ignored) { token = null; }
  return token ? { token, table: code } : null;
}

/** The session (a share's first, when the page was opened with one), or a trip to the sign-in page. */
export function requireSession() {
  const shared = shareSession() ?? tableSession();
  if (shared) return shared;
  const current = session();
  if (current) return current;
  const back = location.pathname + location.search + location.hash;
  location.assign(`/signin?next=${encodeURIComponent(back)}`);
  throw new Error(SIGNING_IN);
}

// --- the JSON API -------------------------------------------------------------------------------------
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || null;
    this.problem = problem;
  }
}

/** A random key for one user action (crypto.getRandomValues works on plain http too). */
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function problemOf(response) {
  try {
    return await response.json();
  } catch (ignored) {
    return { detail: t("error.http", { status: response.status }) };
  }
}

/**
 * Call the API: `api("/games/x")`, `api(path, {method: "POST", body, key, ifMatch, raw})`; `anonymous` sends no
 * token (a phone's sign-in with its code: the session it may hold is not the one asked for).
 * Answers the parsed JSON (or the Response with `raw`), throws ApiError with the problem's detail.
 */
export async function api(path, options = {}) {
  if (leaving) throw new Error(SIGNING_IN); // signing out: nothing more is asked, nor kept from an answer
  const current = options.anonymous ? null : options.session ?? shareSession() ?? tableSession() ?? session();
  const headers = { Accept: options.accept || "application/json" };
  if (current) headers.Authorization = `Bearer ${current.token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.key) headers["Idempotency-Key"] = options.key;
  if (options.ifMatch !== undefined && options.ifMatch !== null) headers["If-Match"] = `"${options.ifMatch}"`;
  const response = await fetch(`/api/v1${path}`, {
    method: options.method || "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: "same-origin",
    cache: "no-store",
  });
  if (!response.ok) {
    const problem = await problemOf(response);
    if (response.status === 401 && current && current.share) {
      throw new ApiError(401, { ...problem, detail: t("share.invalid") }); // the member's own session stays
    }
    if (response.status === 401 && !options.session && !options.anonymous && !(current && current.table)) {
      forgetSession();
      requireSession();
    }
    throw new ApiError(response.status, problem);
  }
  if (options.raw) return response;
  if (response.status === 204) return null;
  const body = await response.json();
  if (body && body.receipt && !leaving) noticeReceipt(body.receipt);
  return body;
}

/** Keep an answer's receipt; say at once when the server shows a game behind a receipt this browser holds. */
function noticeReceipt(receipt) {
  const { verdict, held, surplus } = keepReceipt(receipt);
  if (verdict === "behind" || verdict === "differs") {
    notify(t(`receipts.${verdict}`, { held: held.version, shown: receipt.version }));
  }
  if (surplus) checkSurplus(surplus);
}

/**
 * A receipt about to be forgotten is checked first: the log must still hold its head at its version (a newer
 * receipt, even validly signed, could vouch for a rewritten log). If not, it stays, and the page says so.
 */
async function checkSurplus(old) {
  let event = null;
  try {
    const page = await api(`/games/${encodeURIComponent(old.game)}/events?after=${old.version - 1}&limit=1`);
    event = page.events[0] || null;
  } catch (ignored) {
    return; // not checked now: it stays, and is checked with the next receipt
  }
  if (event && event.seq === old.version && event.hash === old.head) dropReceipt(old);
  else notify(t("receipts.rewritten", { held: old.version }));
}

const RETRY_DELAYS = [300, 800, 1500, 3000];
const TRANSIENT = new Set([502, 503, 504]);

/**
 * Record table actions. One Idempotency-Key per user action, reused on every retry, so a
 * flaky connection never records twice: a retry of a request that did arrive gets its first answer.
 */
export async function recordActions(game, actions, { key = newKey(), version = null, onRetry } = {}) {
  let lastFailure = null;
  for (let attempt = 0; attempt <= RETRY_DELAYS.length; attempt += 1) {
    try {
      return await api(`/games/${encodeURIComponent(game)}/actions`, {
        method: "POST", body: { actions }, key, ifMatch: version,
      });
    } catch (failure) {
      // fetch rejects with a TypeError when no answer came back: the request may or may not have arrived
      const transient = failure instanceof TypeError || (failure instanceof ApiError && TRANSIENT.has(failure.status));
      if (!transient) throw failure;
      lastFailure = failure;
      if (attempt < RETRY_DELAYS.length) {
        if (onRetry) onRetry(attempt + 1);
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS[attempt]));
      }
    }
  }
  const offline = new ApiError(0, { detail: t("error.offline") });
  offline.key = key;
  offline.cause = lastFailure;
  throw offline;
}

/** Every record of a game's log, page after page. */
export async function allEvents(game) {
  const events = [];
  let after = 0;
  for (;;) {
    const page = await api(`/games/${encodeURIComponent(game)}/events?after=${after}&limit=1000`);
    events.push(...page.events);
    if (!page.next || page.events.length === 0) return events;
    after = page.events[page.events.length - 1].seq;
  }
}

// --- the header ---------------------------------------------------------------------------------------
function setLanguage(code) {
  document.cookie = `${LANG_COOKIE}=${code}; path=/; max-age=31536000; SameSite=Lax`;
  location.reload();
}

export function setupHeader() {
  // Over plain HTTP at an address other than this machine's, no service worker runs: the page says what that
  // costs, and how to get HTTPS (base.html; docs/DEPLOY.md, "In a club room: the local network").
  const insecure = document.getElementById("insecure");
  if (insecure) insecure.hidden = window.isSecureContext;
  for (const button of document.querySelectorAll("[data-lang]")) {
    button.addEventListener("click", () => setLanguage(button.dataset.lang));
  }
  if (sharedSecret() || tableSession()) { // a shared page or a table's phone: nothing else to go to
    for (const id of ["nav-scoreboard", "nav-evenings", "club-name"]) document.getElementById(id)?.setAttribute("hidden", "");
    document.querySelector(".site-header .links")?.setAttribute("hidden", "");
    return;
  }
  const current = session();
  const signout = document.getElementById("signout");
  const scoreboard = document.getElementById("nav-scoreboard");
  const evenings = document.getElementById("nav-evenings");
  const club = document.getElementById("club-name");
  if (current) {
    if (scoreboard) scoreboard.href = `/clubs/${encodeURIComponent(current.club)}/scoreboard`;
    if (evenings) evenings.href = `/clubs/${encodeURIComponent(current.club)}/evenings`;
    if (club) club.textContent = current.name || current.club;
    if (signout) {
      signout.hidden = false;
      signout.addEventListener("click", signOut);
    }
  } else {
    if (scoreboard) scoreboard.hidden = true;
    if (evenings) evenings.hidden = true;
  }
}

// --- signing out: the browser forgets the club (forget.js) --------------------------------------------------------
let leaving = false; // this page is signing out: no more requests, nothing more kept

/**
 * Sign out: everything this browser holds for the club is forgotten, then the sign-in page. Actions tapped and not
 * yet sent are not forgotten unasked: the question says how many, and staying keeps them.
 */
async function signOut() {
  const count = await unsent();
  if (count > 0 && !(await confirmSignOut(count))) return;
  leaving = true;
  await forgetEverything();
  location.assign("/signin");
}

/** Ask before forgetting `count` actions not sent (base.html's dialog): true to sign out anyway. */
function confirmSignOut(count) {
  const dialog = document.getElementById("signout-confirm");
  document.getElementById("signout-question").textContent = t("signout.unsent", { count });
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "anyway"), { once: true });
  });
}

/** Another tab signed out, or signed another club in: the club's data is gone, and this page goes too. */
function followForgetting() {
  window.addEventListener("storage", (event) => {
    if (!forgottenElsewhere(event)) return;
    forgetTab();
    if (sharedSecret() || location.pathname === "/signin") return; // a share's page holds nothing kept
    leaving = true;
    location.replace("/signin");
  });
}

/** The service worker that keeps the pages and their assets for use with no connection (static/sw.js). */
function registerWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch((failure) => console.warn(failure));
  // This page, opened before the worker was in control, is kept too (it then opens with no connection).
  navigator.serviceWorker.ready.then((registration) => {
    if (registration.active) registration.active.postMessage({ keep: location.pathname });
  });
}

/** Run a page's start function; any failure is shown as a sentence. */
export function start(main) {
  setupHeader();
  followForgetting();
  registerWorker();
  Promise.resolve()
    .then(main)
    .catch((failure) => {
      if (isSigningIn(failure)) return;
      notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
      if (!(failure instanceof ApiError)) console.error(failure);
    });
}
