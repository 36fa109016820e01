// The club's scoreboard over a period: sortable columns, a period filter, CSV download, ratings.

import { $, ApiError, api, collator, el, formatNumber, notify, requireSession, start, t } from "./common.js";
import { scrollBox } from "./scrollbox.js";
import { setupSharing } from "./share.js";

const club = document.body.dataset.club;
const COLUMNS = [
  ["rank", 0], ["name", null], ["games", 0], ["wins", 0], ["deals_played", 0], ["deals_won", 0], ["net", 0],
  ["net_per_game", 1], ["grand_operas", 0], ["honours_taken", 0], ["honour_chips", 0], ["betes_paid", 0],
  ["ruins", 0], ["rating", 1],
];
const view = { rows: [], sort: "rank", descending: false };

function query(extra = {}) {
  const params = new URLSearchParams();
  for (const [name, id] of [["from", "#from"], ["to", "#to"], ["season", "#season"], ["min_games", "#min-games"]]) {
    const value = $(id).value.trim();
    if (value) params.set(name, value);
  }
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}

function compare(a, b) {
  const x = a[view.sort];
  const y = b[view.sort];
  const order = typeof x === "string" || typeof y === "string"
    ? collator().compare(String(x ?? ""), String(y ?? ""))
    : (x ?? -Infinity) - (y ?? -Infinity);
  return (view.descending ? -order : order) || collator().compare(a.name ?? "", b.name ?? ""); // ties: by name
}

function render() {
  if (!view.rows.length) {
    $("#scoreboard").replaceChildren(el("p", { class: "empty" }, t("scoreboard.empty")));
    return;
  }
  const rows = [...view.rows].sort(compare);
  const header = COLUMNS.map(([key, digits]) => {
    const sorted = view.sort === key;
    return el("th", {
      class: digits === null ? null : "num", scope: "col",
      "aria-sort": sorted ? (view.descending ? "descending" : "ascending") : "none",
    }, el("button", {
      type: "button", class: "sort", dataset: { sort: key },
      onclick: () => {
        view.descending = view.sort === key ? !view.descending : (key !== "name" && key !== "rank");
        view.sort = key;
        render();
      },
    }, t(`column.${key}`), sorted ? (view.descending ? "\u00a0▼" : "\u00a0▲") : "")); // the arrow stays by its word
  });
  $("#scoreboard").replaceChildren(scrollBox($("#title").textContent, el("table", { class: "data scoreboard" },
    el("thead", {}, el("tr", {}, header)),
    el("tbody", {}, rows.map((row) => el("tr", { dataset: { name: row.name } }, COLUMNS.map(([key, digits]) => el("td", {
      class: digits === null ? null : "num", dataset: { column: key },
    }, cell(row[key], digits, key)))))))));
}

// The fractions people write, by "numerator/denominator".
const FRACTIONS = {
  "1/2": "½", "1/3": "⅓", "2/3": "⅔", "1/4": "¼", "3/4": "¾", "1/5": "⅕", "2/5": "⅖", "3/5": "⅗", "4/5": "⅘",
  "1/6": "⅙", "5/6": "⅚", "1/7": "⅐", "1/8": "⅛", "3/8": "⅜", "5/8": "⅝", "7/8": "⅞", "1/9": "⅑", "1/10": "⅒",
};

/**
 * Wins as people write them: a win shared by n tied players counts 1/n, and the API gives the sum rounded to
 * three decimals (301.5, 0.333): "301½", "⅓", "2 5/12"; a sum no small fraction explains keeps two decimals.
 */
export function winsText(value) {
  const whole = Math.floor(value + 0.0005);
  const rest = value - whole;
  if (Math.abs(rest) < 0.0005) return formatNumber(whole);
  for (let denominator = 2; denominator <= 12; denominator += 1) {
    const numerator = Math.round(rest * denominator);
    if (numerator > 0 && numerator < denominator && Math.abs(rest * denominator - numerator) < 0.0006 * denominator) {
      const divisor = gcd(numerator, denominator);
      const key = `${numerator / divisor}/${denominator / divisor}`;
      const fraction = FRACTIONS[key];
      if (fraction) return whole ? `${formatNumber(whole)}${fraction}` : fraction;
      return whole ? `${formatNumber(whole)} ${key}` : key;
    }
  }
  return formatNumber(value, 2);
}

const gcd = (a, b) => (b ? gcd(b, a % b) : a);

function cell(value, digits, key) {
  if (digits === null || typeof value !== "number") return value ?? "–";
  if (key === "wins") return winsText(value);
  return formatNumber(value, digits);
}

async function load() {
  try {
    const board = await api(`/clubs/${encodeURIComponent(club)}/scoreboard${query()}`);
    view.rows = board.rows;
    const period = [board.from, board.to].filter(Boolean).join(" – ");
    $("#title").textContent = period ? t("scoreboard.title_period", { period }) : t("scoreboard.title");
    notify("");
    render();
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 404) {
      $("#scoreboard").replaceChildren(el("p", { class: "empty unavailable" }, t("scoreboard.unavailable")));
      return;
    }
    throw failure;
  }
}

async function download() {
  try {
    const response = await api(`/clubs/${encodeURIComponent(club)}/scoreboard${query({ format: "csv" })}`,
      { raw: true, accept: "text/csv" });
    const url = URL.createObjectURL(await response.blob());
    const link = el("a", { href: url, download: `scoreboard-${club}.csv` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (failure) {
    notify(failure instanceof ApiError && failure.status === 404 ? t("scoreboard.unavailable") : failure.message);
  }
}

async function main() {
  const session = requireSession(); // a share's, when the page was opened with one
  if (!session.share && session.club !== club) {
    notify(t("scoreboard.other_club"));
    return;
  }
  $("#period").addEventListener("submit", (event) => {
    event.preventDefault();
    load().catch((failure) => notify(failure.message));
  });
  $("#csv").addEventListener("click", download);
  $("#print").addEventListener("click", () => window.print());
  setupSharing($("#title"), { scoreboard: true });
  api(`/clubs/${encodeURIComponent(club)}/seasons`)
    .then((found) => $("#seasons").replaceChildren(...found.seasons.map((s) => el("option", { value: s.name },
      `${s.from} – ${s.to}`))))
    .catch(() => {}); // the names are a convenience: the field takes any name
  await load();
}

start(main);
