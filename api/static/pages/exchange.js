// Games in and out of the pages: a game's NJN record or JSON document saved as a file
// (GET /games/{game}/export), and a file of either kind imported as a new game of the club
// (POST /clubs/{club}/imports), its errors listed with their line numbers.

import { ApiError, api, el, forgetSession, isSigningIn, requireSession, session, t } from "./common.js";

const NJN = "text/x-njn";

/** Save a blob as a file of the browser's downloads. */
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Download a game as `format` ("njn" or "json"): `<game>.njn`, `<game>.json`. */
export async function downloadGame(game, format) {
  const response = await api(`/games/${encodeURIComponent(game)}/export?format=${format}`, {
    raw: true, accept: format === "njn" ? NJN : "application/json",
  });
  save(await response.blob(), `${game}.${format}`);
}

/** "Download: [NJN] [JSON]": buttons that download a game; a failure is told by `onError`. */
export function downloadButtons(game, onError) {
  return [t("export.label"), ...["njn", "json"].map((format) => el("button", {
    type: "button", class: "download", dataset: { format }, title: t(`export.${format}`),
    "aria-label": t(`export.${format}`), onclick: () => downloadGame(game, format).catch(onError),
  }, format.toUpperCase()))];
}

/** Whether a file holds a JSON game document rather than an NJN record (whose comments may open with "{"). */
function jsonDocument(name, text) {
  if (/\.json$/i.test(name)) return true;
  if (/\.(njn|txt)$/i.test(name)) return false;
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch (ignored) {
    return false;
  }
}

/** Where a JSON text stops being JSON, as {line, column} (from the browser's message, or its position). */
function jsonErrorPlace(text, failure) {
  const message = String(failure && failure.message);
  const said = /line (\d+) column (\d+)/.exec(message);
  if (said) return { line: Number(said[1]), column: Number(said[2]) };
  const position = /position (\d+)/.exec(message);
  if (!position) return null;
  const before = text.slice(0, Number(position[1])).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/** A refusal in a form the page lists: `[{line?, column?, message}]`. */
export class ImportRefused extends Error {
  constructor(detail, errors) {
    super(detail);
    this.errors = errors;
  }
}

function refusalOf(problem) {
  if (Array.isArray(problem.errors)) {
    return problem.errors.map((e) => ({ line: e.line, column: e.column, message: e.message }));
  }
  if (problem.errors && typeof problem.errors === "object") { // a document's fields: {field: [messages]}
    return Object.entries(problem.errors).flatMap(([field, said]) => [].concat(said).map((message) => ({
      message: `${field}: ${typeof message === "string" ? message : JSON.stringify(message)}`,
    })));
  }
  if (Number.isInteger(problem.index)) return [{ action: problem.index + 1, message: problem.detail }];
  return [{ message: problem.detail || problem.title }];
}

/** Send an NJN text (the API's own client sends JSON only). */
async function postRecord(club, text) {
  const current = session();
  const response = await fetch(`/api/v1/clubs/${encodeURIComponent(club)}/imports`, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": `${NJN}; charset=utf-8`, Authorization: `Bearer ${current.token}` },
    body: text, credentials: "same-origin", cache: "no-store",
  });
  let body = null;
  try {
    body = await response.json();
  } catch (ignored) {
    body = { detail: t("error.http", { status: response.status }) };
  }
  if (response.status === 401) {
    forgetSession();
    requireSession();
  }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** Import a file into the club: the new game's state, or an ImportRefused listing what is wrong and where. */
export async function importFile(club, file) {
  const text = await file.text();
  if (!text.trim()) throw new ImportRefused(t("import.empty"), [{ message: t("import.empty") }]);
  try {
    if (!jsonDocument(file.name, text)) return await postRecord(club, text);
    let document_;
    try {
      document_ = JSON.parse(text);
    } catch (failure) {
      const place = jsonErrorPlace(text, failure) || {};
      throw new ImportRefused(t("import.not_json"), [{ ...place, message: t("import.not_json") }]);
    }
    return await api(`/clubs/${encodeURIComponent(club)}/imports`, { method: "POST", body: document_ });
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 422) throw new ImportRefused(failure.message, refusalOf(failure.problem));
    throw failure;
  }
}

/** One error of a refused file, as a sentence: "Line 4, column 1: …". */
export function errorText(error) {
  if (error.line) {
    return error.column ? t("import.error_at", { line: error.line, column: error.column, message: error.message })
      : t("import.error_line", { line: error.line, message: error.message });
  }
  if (error.action) return t("import.action_at", { n: error.action, message: error.message });
  return error.message;
}

/**
 * The import control of a page: a file input (`#import-file`) whose file is imported into the signed-in club,
 * the outcome shown in `#import-result` (a link to the new game, or every error with its line).
 */
export function setupImport() {
  const input = document.getElementById("import-file");
  const result = document.getElementById("import-result");
  if (!input || !result) return;
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    const current = requireSession();
    result.className = "import-result";
    result.replaceChildren(el("p", {}, t("import.sending", { file: file.name })));
    try {
      const game = await importFile(current.club, file);
      const id = encodeURIComponent(game.id);
      result.classList.add("done");
      result.replaceChildren(el("p", {}, t("import.done", {
        file: file.name, players: game.players.map((p) => p.name).join(", "), deals: game.deals_played,
      })), el("p", { class: "actions" },
        el("a", { class: "button", href: `/games/${id}/replay`, dataset: { imported: game.id } }, t("link.replay")),
        el("a", { class: "button", href: `/games/${id}/sheet` }, t("link.sheet"))));
      document.dispatchEvent(new CustomEvent("nj:imported", { detail: game }));
    } catch (failure) {
      if (isSigningIn(failure)) return;
      result.classList.add("refused");
      if (failure instanceof ImportRefused) {
        result.replaceChildren(el("p", {}, t("import.refused", { file: file.name })),
          el("ul", { class: "import-errors" }, failure.errors.map((error) => el("li", {
            dataset: error.line ? { line: error.line } : {},
          }, errorText(error)))));
      } else {
        result.replaceChildren(el("p", {}, failure instanceof ApiError ? failure.message : t("error.unexpected")));
        if (!(failure instanceof ApiError)) console.error(failure);
      }
    } finally {
      input.value = ""; // the same file may be chosen again once mended
    }
  });
}
