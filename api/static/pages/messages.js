// The page's sentences in its language: the messages the server handed it (translated), filled in, French elided,
// singular or plural as the language says; numbers and names put as the language writes and orders them.

let messages = null;

/**
 * The page's message `key` in the page's language, with `{name}` placeholders filled in. A message that counts
 * something has its singular under `<key>_one`, used when the count (`count`, else `deals`) is singular in the
 * page's language (English: 1; French: 0 and 1): t("home.shown", { count: 1 }) → "1 game shown: all of them."
 */
export function t(key, params = {}) {
  if (messages === null) {
    const node = document.getElementById("nj-messages");
    messages = node ? JSON.parse(node.textContent) : {};
  }
  const counted = params.count ?? params.deals;
  const one = counted !== undefined && singular(counted) ? messages[`${key}_one`] : undefined;
  const text = one ?? messages[key] ?? key;
  const filled = text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? FILLED + String(params[name]) : whole));
  return (lang() === "fr" ? elided(filled) : filled).replaceAll(FILLED, "");
}

const FILLED = "\u0001"; // marks where a value was put in a message, for French elision, then taken out

/**
 * French elides "de" and "que" before a name that opens with a vowel: "la main de {name}" with Ana reads
 * "la main d'Ana", "plus tôt que {name}" with Odile "plus tôt qu'Odile" (a name opening with "h" is left as it is:
 * some are aspirated).
 */
function elided(text) {
  return text.replace(new RegExp(`\\b([dD]e|[qQ]ue) ${FILLED}(?=[AEIOUYÀÂÄÆÉÈÊËÎÏÔŒÙÛÜaeiouyàâäæéèêëîïôœùûü])`, "g"),
    (whole, word) => `${word.slice(0, -1)}'${FILLED}`);
}

export const lang = () => document.documentElement.lang || "en";

/** Whether a count takes the singular in the page's language (French says "0 partie", "1 partie"). */
const singular = (count) => new Intl.PluralRules(lang()).select(Number(count)) === "one";

/** How names are put in order in the page's language ("Élise" before "Marcel", "Table 2" before "Table 10"). */
export const collator = () => (collators[lang()] ??= new Intl.Collator(lang(), { sensitivity: "base", numeric: true }));
const collators = {};

/** ``n`` with its unit ("chip", "card", "point"), singular or plural as the page's language says. */
export function counted(n, unit) {
  return t(`unit.${unit}.${singular(n) ? "one" : "other"}`, { n: formatNumber(n) });
}

export function formatNumber(value, digits = 0) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  return Number(value).toLocaleString(lang(), { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
