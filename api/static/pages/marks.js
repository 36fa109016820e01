// The marks of an evening's games (docs/EVENINGS.md), each a sign and a word, never a colour alone.

import { t } from "./common.js";

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
