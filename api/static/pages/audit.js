// The audit of a game: first what a member wants to know, in plain words (has the record been altered since it
// was written? is every chip accounted for? how many corrections, with their reasons?), then the findings, each
// linked to its step in the replay; each check in technical terms (in a <details>), per-account totals, undos and
// adjustments, every transfer, and each player's chips over the deals.

import {
  $, ApiError, api, clearNotice, counted, el, formatNumber, lang, notify, requireSession, shareFragment, start, t,
} from "./common.js";
import { cardText } from "./cards.js";
import { accountName, boardOrder } from "./table.js";
import { chartElement, chipsOverDeals } from "./chart.js";
import { gameReceipts, heldReceipt, receiptsFile, receiptsOf } from "./receipts.js";
import { scrollBox } from "./scrollbox.js";
import { dropForShare, setupSharing, withShare } from "./share.js";

const game = document.body.dataset.game;
const KNOWN_FINDINGS = ["chain-broken", "unreadable", "unreplayable", "undo", "adjustment", "shortfall",
  "not-announced", "not-conserved", "recomputation-differs", "checkpoint-mismatch", "log-cut", "log-extra",
  "head-differs", "receipt-past-end", "receipt-head-differs", "receipt-bad-signature", "settled-by-count"];

function badge(ok) {
  return el("span", { class: `badge ${ok ? "ok" : "bad"}` }, ok ? t("audit.ok") : t("audit.failed"));
}

/** The heading of the section that holds `box`: the name of the table shown in it. */
const sectionTitle = (box) => box.closest("section")?.querySelector("h2")?.textContent ?? "";

function table(headers, rows, numeric = [], label = "") {
  return scrollBox(label, el("table", { class: "data" },
    el("thead", {}, el("tr", {}, headers.map((h, i) => el("th", { class: numeric.includes(i) ? "num" : null }, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c, i) => el("td", { class: numeric.includes(i) ? "num" : null }, c)))))));
}

function checks(report) {
  const c = report.conservation;
  const items = [
    [t("audit.conservation", { checked: c.checked, total: c.total ?? "–" }), c.ok, c.first_bad_seq],
    [t("audit.chain", { checked: report.chain.checked }), report.chain.ok, report.chain.first_bad_seq],
    [t("audit.head", { version: report.head.version }), report.head.ok, report.head.first_bad_seq],
    [t("audit.checkpoints", { count: report.checkpoints.count }), report.checkpoints.ok, report.checkpoints.first_bad_seq],
    [t("audit.recomputation", { checked: report.recomputation.checked }), report.recomputation.ok, null],
  ];
  if (report.receipts) {
    items.push([t("audit.receipts", { checked: report.receipts.checked }), report.receipts.ok,
      report.receipts.first_bad_seq]);
  }
  return items.map(([text, ok, bad]) => el("li", {}, badge(ok), " ", text,
    bad ? ` — ${t("audit.first_bad", { seq: bad })}` : null));
}

/**
 * The deal an event of the log belongs to (0: before the first deal), from the report's transfers and corrections:
 * each deal is one stretch of the log, opened by its `deal` event, which its antes follow at once.
 */
export function dealOfSeq(report) {
  const starts = new Map(); // deal -> the seq of its `deal` event
  for (const item of [...report.transfers, ...report.corrections]) {
    if (item.deal > 0) starts.set(item.deal, Math.min(starts.get(item.deal) ?? Infinity, item.seq - 1));
  }
  const ordered = [...starts].sort((a, b) => a[1] - b[1]);
  return (seq) => ordered.reduce((found, [deal, start]) => (start <= seq ? deal : found), 0);
}

/** The address of event `seq` in the replay page: its deal, at that step. */
function replayAt(dealOf, seq) {
  const deal = dealOf(seq);
  const path = `/games/${encodeURIComponent(game)}/replay#${shareFragment()}`;
  return deal ? `${path}deal=${deal}&seq=${seq}` : `${path}deal=1`;
}

function findings(report) {
  if (!report.findings.length) return el("p", { class: "empty" }, t("audit.no_findings"));
  const dealOf = dealOfSeq(report);
  return el("ul", { class: "findings" }, report.findings.map((f) => el("li", { class: `finding ${f.severity}`,
    dataset: { code: f.code, seq: f.seq ?? "" } },
    el("span", { class: `severity ${f.severity}` }, t(`severity.${f.severity}`)),
    KNOWN_FINDINGS.includes(f.code) ? el("strong", {}, t(`finding.${f.code}`)) : null,
    el("span", { class: "message" }, f.message),
    f.seq ? el("a", { class: "step-link", href: replayAt(dealOf, f.seq) },
      dealOf(f.seq) ? t("audit.see_step", { deal: dealOf(f.seq) }) : t("audit.see_replay")) : null)));
}

/**
 * What a member wants to know first, in plain words: whether the record was altered since it was written (and
 * where), whether every chip is accounted for, how many corrections were made and whether each says why, and
 * whether the receipts members hold match the record.
 */
function plainSummary(report) {
  const dealOf = dealOfSeq(report);
  const receipts = report.receipts || null;
  const altered = [report.chain, report.head, report.checkpoints, receipts].filter((part) => part && !part.ok);
  const lines = [];
  if (!altered.length) lines.push(["ok", t("audit.plain.intact")]);
  else {
    const seqs = altered.map((part) => part.first_bad_seq).filter(Boolean);
    const first = seqs.length ? Math.min(...seqs) : null;
    const deal = first ? dealOf(first) : 0;
    lines.push(["bad", deal ? t("audit.plain.altered_in", { deal }) : t("audit.plain.altered"),
      first ? el("a", { class: "step-link", href: replayAt(dealOf, first) }, t("audit.see_replay")) : null]);
  }
  const chipsOk = report.conservation.ok && report.recomputation.ok;
  lines.push([chipsOk ? "ok" : "bad", chipsOk ? t("audit.plain.chips_ok") : t("audit.plain.chips_bad")]);
  const corrections = report.corrections.length;
  const unexplained = report.corrections.filter((c) => !c.reason).length;
  lines.push(["note", !corrections ? t("audit.plain.no_corrections") : unexplained
    ? t("audit.plain.corrections_unexplained", { count: corrections, missing: unexplained })
    : t("audit.plain.corrections", { count: corrections })]);
  if (receipts && receipts.ok) lines.push(["ok", t("audit.plain.receipts_ok", { checked: receipts.checked })]);
  return lines.map(([kind, text, link]) => el("li", { class: `plain ${kind}` }, text, link ? " " : null, link));
}

/**
 * What an undo withdrew, in words with the player's name: "Chloé's hand withdrawn, with the settlement of deal 1"
 * (`c.withdrew` is the action, `c.settlement` the deal whose settlement went with it; an older server gives neither).
 */
function undoSaid(state, c) {
  const action = c.withdrew;
  if (!action || !["play", "pass", "reveal"].includes(action.type)) return t("correction.undo");
  const name = accountName(state, `seat:${action.seat}`);
  const what = t(`correction.undo_${action.type}`, { name, cards: (action.cards || []).map(cardText).join(" ") });
  if (!c.settlement) return what;
  return t(c.game_end ? "correction.with_end" : "correction.with_settlement", { what, deal: c.settlement });
}

/** The audit, held to `receipts` when there are any (the server checks them against the log). */
function audited(receipts) {
  const path = `/games/${encodeURIComponent(game)}/audit`;
  return receipts.length ? api(path, { method: "POST", body: { receipts } }) : api(path);
}

const when = (at) => (Number.isNaN(Date.parse(at)) ? at : new Date(at).toLocaleString(lang()));

function showReceipts(held, source = null) {
  const lines = [el("p", {}, t("receipts.explain")),
    el("p", { id: "receipt-held" }, held ? t("receipts.held", { version: held.version, at: when(held.at) })
      : t("receipts.none"))];
  if (source) lines.push(el("p", { id: "receipt-source" }, source));
  $("#receipts").replaceChildren(...lines);
}

function saveReceipts() {
  const link = el("a", { href: URL.createObjectURL(new Blob([receiptsFile()], { type: "application/json" })),
    download: "nj-ledger-receipts.json" });
  document.body.append(link);
  link.click();
  link.remove();
}

async function checkFile(state, file) {
  let receipts;
  try {
    receipts = receiptsOf(JSON.parse(await file.text()));
  } catch (ignored) {
    notify(t("receipts.file_unreadable"));
    return;
  }
  const mine = receipts.filter((receipt) => receipt.game === game);
  if (!mine.length) {
    notify(receipts.length ? t("receipts.file_other", { count: receipts.length }) : t("receipts.file_empty"));
    return;
  }
  try {
    show(state, await audited(mine));
    clearNotice();
    showReceipts(heldReceipt(game), t("receipts.from_file", { count: mine.length, file: file.name }));
  } catch (failure) {
    notify(failure instanceof ApiError ? failure.message : t("error.unexpected"));
  }
}

async function main() {
  requireSession();
  const path = `/games/${encodeURIComponent(game)}`;
  const held = gameReceipts(game); // before the game is read: reading it keeps a newer receipt
  const [state, report] = await Promise.all([api(path), audited(held)]);
  show(state, report);
  dropForShare($("#record-link"));
  setupSharing($("#replay-link").parentElement, { game });
  showReceipts(held.length ? held[held.length - 1] : null);
  $("#receipts-file").addEventListener("change", (event) => {
    if (event.target.files.length) checkFile(state, event.target.files[0]);
    event.target.value = "";
  });
  $("#receipts-save").addEventListener("click", saveReceipts);
}

function show(state, report) {
  const path = `/games/${encodeURIComponent(game)}`;
  $("#title").textContent = t("audit.title", { players: state.title || state.players.map((p) => p.name).join(", ") });
  $("#replay-link").href = withShare(`${path}/replay`);
  $("#sheet-link").href = withShare(`${path}/sheet`);
  if ($("#record-link")) $("#record-link").href = `${path}/record`;
  $("#summary").replaceChildren(...plainSummary(report));
  $("#verdict").replaceChildren(badge(report.ok), " ",
    report.ok ? t("audit.verdict_ok", { events: report.events }) : t("audit.verdict_bad", { events: report.events }));
  $("#checks").replaceChildren(...checks(report));
  const deals = state.deal ? state.deal.number : 0;
  const points = chipsOverDeals(state.players, state.starting_chips, report.transfers, deals);
  $("#chart").replaceChildren(...chartElement(state.players, points));
  $("#findings").replaceChildren(findings(report));
  const order = [...state.players.map((p) => `seat:${p.seat}`), ...boardOrder(state.rules).map((card) => `box:${card}`)];
  const accounts = Object.keys(report.totals).sort((a, b) => order.indexOf(a) - order.indexOf(b));
  $("#totals").replaceChildren(table([t("account"), t("in"), t("out"), t("net"), t("balance")],
    accounts.map((account) => {
      const row = report.totals[account];
      return [accountName(state, account), formatNumber(row.in), formatNumber(row.out), formatNumber(row.net),
        formatNumber(row.balance)];
    }), [1, 2, 3, 4], sectionTitle($("#totals"))));
  $("#corrections").replaceChildren(report.corrections.length
    ? table([t("seq"), t("deal"), t("what"), t("reason")], report.corrections.map((c) => [
      String(c.seq), String(c.deal), c.type === "undo" ? undoSaid(state, c)
        : t("correction.adjust", { amount: counted(c.amount, "chip"), from: accountName(state, c.from), to: accountName(state, c.to) }),
      c.reason || "–"]), [0, 1], sectionTitle($("#corrections")))
    : el("p", { class: "empty" }, t("audit.no_corrections")));
  $("#transfers").replaceChildren(table([t("seq"), t("deal"), t("from"), t("to"), t("amount"), t("reason")],
    report.transfers.map((tr) => [String(tr.seq), String(tr.deal), accountName(state, tr.from),
      accountName(state, tr.to), formatNumber(tr.amount), t(`reason.transfer.${tr.reason}`)]), [0, 1, 4], sectionTitle($("#transfers"))));
}

start(main);
