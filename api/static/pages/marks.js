// The marks of an evening's games (docs/EVENINGS.md), each a sign and a word, never a colour alone; the evening's
// scores and the director's mends as the pages write them, each amount with its unit.

import { lang, t } from "./common.js";

const SIGNS = { planned: "…", missing: "⚠", unconfirmed: "?", counted: "✓", voided: "✕", awarded: "★" };

/** A cell's mark as a reader sees it: its sign and its word ("⚠ missing"). */
export const markText = (mark) => `${SIGNS[mark] || ""} ${t(`cell.${mark}`)}`.trim();

/** The evening's API path: `eveningPath(club, id, "grid")`. */
export const eveningPath = (club, evening, ...rest) =>
  [`/clubs/${encodeURIComponent(club)}/evenings/${encodeURIComponent(evening)}`, ...rest].join("/");

/** A score as the ranking gives it (match points may have halves). */
export function scoreText(value) {
  if (value === null || value === undefined) return "–";
  return Number(value).toLocaleString(document.documentElement.lang || "en", { maximumFractionDigits: 1 });
}

/** An amount in the unit the evening's rule counts — "+5 points", "−3 chips" (`signed`), "50 points" —
 * match points under `match_points`, chips under `net_chips`. */
export function amountText(value, rule, signed = true) {
  const n = Number(value);
  const sign = !signed || n === 0 ? "" : n > 0 ? "+" : "−";
  const number = Math.abs(n).toLocaleString(lang(), { maximumFractionDigits: 1 });
  const form = new Intl.PluralRules(lang()).select(Math.abs(n)) === "one" ? "one" : "other";
  return t(`unit.${rule === "net_chips" ? "chip" : "point"}.${form}`, { n: `${sign}${number}` });
}

/** A mend in words (`type` as the log names it, `data` its data), its amounts with their unit. */
export function mendText(type, data, rule) {
  switch (type) {
    case "score_adjusted": return t("log.adjusted", { player: data.player, amount: amountText(data.amount, rule) });
    case "game_voided": return t("log.voided", { round: data.round, table: data.table });
    case "player_withdrawn": return t("log.withdrawn", { player: data.player });
    case "score_awarded": return t("log.awarded", { player: data.player, score: amountText(data.score, rule, false),
      round: data.round });
    default: return type;
  }
}
