// A game's result sheet, laid out for printing (print.css): the game (title, date, table, players, rules), the
// standings, and each deal with its dealer, its winner, what each loser had left and paid, the honours taken
// and everyone's chips after it. Everything comes from the game's export (its records) and its state.

import { $, ApiError, api, collator, counted, el, formatNumber, notify, requireSession, start, t } from "./common.js";
import { downloadButtons } from "./exchange.js";
import { scrollBox } from "./scrollbox.js";
import { withShare } from "./share.js";
import { cardText } from "./cards.js";
import { handText, shownHands } from "./describe.js";

const game = document.body.dataset.game;
const REASONS = ["cannot_ante", "shortfall", "max_deals", "agreed"];
const HONOURS = new Set(["take", "grand_opera", "hoc"]);

const seatOf = (account) => (account.startsWith("seat:") ? Number(account.slice(5)) : null);
const signed = (amount) => (amount > 0 ? `+${formatNumber(amount)}` : amount < 0 ? `−${formatNumber(-amount)}` : "0");

/**
 * Each deal of the log: its dealer, its events, the honours each seat took, the chips before it (before its antes)
 * and after it. A deal's segment of the log runs from its `deal` record to the next one: its settlement, then any
 * undo of it or adjustment agreed before the next deal. `after` is the chips at the segment's end (what the replay
 * shows at the deal's last step), for a deal that stands settled. `settled` is the chips after the last settled
 * deal: before the antes of a deal in progress (the standings "after N deals"), the final chips otherwise.
 */
export function dealsOf(records, seats, startingChips) {
  const chips = Array.from({ length: seats }, () => startingChips);
  const deals = [];
  const adjustments = [];
  let current = null;
  const close = () => { if (current && current.ended) current.after = [...chips]; };
  for (const record of records) {
    const { type, data } = record;
    if (type === "deal") {
      close();
      current = { number: record.deal, dealer: data.dealer, before: [...chips], honours: chips.map(() => 0),
        events: [], ended: null, after: null, adjustments: [] };
      deals.push(current);
    }
    if (current && record.deal === current.number) current.events.push(record);
    if (type === "transfer") {
      const from = seatOf(data.from);
      const to = seatOf(data.to);
      if (from !== null) chips[from] -= data.amount;
      if (to !== null) chips[to] += data.amount;
      if (data.reason === "adjust") {
        adjustments.push(data);
        if (current && record.deal === current.number) current.adjustments.push(data);
      }
      if (current && !current.ended) {
        if (to !== null && HONOURS.has(data.reason)) current.honours[to] += data.amount;
        // an undone take gives its chips back to the box
        if (from !== null && data.reason === "undo" && data.to.startsWith("box:")) current.honours[from] -= data.amount;
      }
    }
    if (type === "deal_ended" && current) current.ended = data;
    // an undo after a settlement withdraws it with the action that caused it: the deal is open again
    if (type === "undo" && current && current.ended && record.deal === current.number) current.ended = null;
  }
  close();
  const open = current && !current.ended ? current : null;
  return { deals, adjustments, chips, settled: open ? open.before : [...chips],
    played: deals.filter((deal) => deal.ended).length };
}

/** What a loser had left: the cards shown (with their points), or the count the table gave. */
function leftText(payment, shown, handsLeft) {
  const dealt = handsLeft ? handsLeft[payment.seat] : null;
  const data = shown || (Array.isArray(dealt) ? { cards: dealt } : null);
  const points = payment.points === null || payment.points === undefined ? null
    : counted(payment.points, "point");
  if (data && data.cards) return points ? `${handText(data)} (${points})` : handText(data);
  if (data) return handText(data);
  const count = counted(payment.cards_left, "card");
  return points ? `${count}, ${points}` : count;
}

/** An adjustment agreed at the table, in words: "Adjustment: Ana gives Ben 2." */
function adjustmentText(adjustment, players) {
  const name = (account) => (seatOf(account) === null ? cardText(account.slice(4)) : players[seatOf(account)].name);
  return t("transfer.adjust", { from: name(adjustment.from), to: name(adjustment.to), amount: adjustment.amount });
}

function dealSection(deal, players) {
  const name = (seat) => players[seat].name;
  if (!deal.ended) {
    return el("section", { class: "sheet-deal", dataset: { deal: deal.number } },
      el("h3", {}, t("sheet.in_progress", { deal: deal.number, dealer: name(deal.dealer) })));
  }
  const ended = deal.ended;
  const shown = shownHands(deal.events);
  const payments = new Map(ended.payments.map((p) => [p.seat, p]));
  const betes = new Map();
  for (const b of ended.betes || []) betes.set(b.seat, [...(betes.get(b.seat) || []), b]);
  const received = ended.payments.reduce((sum, p) => sum + p.paid, 0);
  const rows = players.map((player) => {
    const seat = player.seat;
    const winner = seat === ended.winner;
    const payment = payments.get(seat);
    let left = "–";
    let paid = "–";
    if (winner) {
      left = t("sheet.won");
      paid = signed(received);
    } else if (payment) {
      left = leftText(payment, shown.get(seat), ended.hands_left);
      paid = payment.paid < payment.amount
        ? t("sheet.short", { paid: signed(-payment.paid), amount: formatNumber(payment.amount) })
        : signed(-payment.paid);
    }
    const bete = (betes.get(seat) || []).map((b) => t("sheet.bete", { card: cardText(b.card), amount: signed(-b.paid) }));
    return el("tr", { class: winner ? "winner" : null, dataset: { seat } },
      el("th", { scope: "row" }, player.name),
      el("td", { class: "left" }, left),
      el("td", { class: "num" }, [paid, ...bete].join(" · ")),
      el("td", { class: "num" }, deal.honours[seat] ? signed(deal.honours[seat]) : "–"),
      el("td", { class: "num", dataset: { chips: deal.after[seat] } }, formatNumber(deal.after[seat]),
        el("span", { class: "change" }, ` (${signed(deal.after[seat] - deal.before[seat])})`)));
  });
  const heading = [t("sheet.deal_heading", { deal: deal.number, dealer: name(deal.dealer), winner: name(ended.winner) })];
  if (ended.grand_opera) heading.push(t("settle.grand_opera"));
  // the chips after the deal count the adjustments agreed before the next one: each is said under the table
  const adjusted = deal.adjustments.map((a) => el("p", { class: "sheet-adjusted" }, adjustmentText(a, players)));
  return el("section", { class: "sheet-deal", dataset: { deal: deal.number } },
    el("h3", {}, heading.join(" ")),
    scrollBox(heading.join(" "), el("table", { class: "data sheet-table" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, t("player")), el("th", { scope: "col" }, t("sheet.left")),
        el("th", { scope: "col", class: "num" }, t("sheet.paid")), el("th", { scope: "col", class: "num" }, t("sheet.honours")),
        el("th", { scope: "col", class: "num" }, t("sheet.chips_after")))),
      el("tbody", {}, rows))), ...adjusted);
}

/**
 * The standings: the game's result when it is over; otherwise the chips after the last settled deal (`settled`,
 * `played` deals: the antes of a deal in progress are not in them), most chips first, ties sharing a rank.
 */
function standingsTable(state, settled, played) {
  const rows = state.result ? state.result.standings
    : state.players.map((p) => ({ ...p, chips: settled[p.seat] })).sort((a, b) => b.chips - a.chips || collator().compare(a.name, b.name))
      .map((p, i, all) => ({ ...p, rank: all.findIndex((q) => q.chips === p.chips) + 1 }));
  const table = el("table", { class: "data standings" },
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "num" }, t("column.rank")), el("th", { scope: "col" }, t("player")),
      el("th", { scope: "col", class: "num" }, t("chips")), el("th", { scope: "col", class: "num" }, t("net")))),
    el("tbody", {}, rows.map((row) => el("tr", { dataset: { seat: row.seat } },
      el("td", { class: "num" }, row.rank), el("th", { scope: "row" }, row.name),
      el("td", { class: "num", dataset: { chips: row.chips } }, formatNumber(row.chips)),
      el("td", { class: "num" }, signed(row.chips - state.starting_chips))))));
  const said = state.result
    ? t("game_over", { reason: REASONS.includes(state.result.reason) ? t(`reason.${state.result.reason}`) : state.result.reason })
    : t("sheet.so_far", { deals: played });
  return [el("p", { class: "verdict" }, said), table];
}

function rulesText(rules, startingChips) {
  const parts = [t(`profile.${rules.profile}`), t("sheet.starting", { chips: formatNumber(startingChips) })];
  for (const option of ["payment", "bete", "shortfall"]) {
    const key = `rules.${option}.${rules[option]}`;
    const text = t(key);
    if (text !== key) parts.push(text);
  }
  return parts.join(" · ");
}

function meta(document_, state, club) {
  const rows = [
    [t("sheet.date"), document_.date], [t("sheet.table"), document_.table], [t("sheet.club"), club],
    [t("sheet.players"), state.players.map((p) => p.name).join(", ")],
    [t("sheet.rules"), rulesText(state.rules, state.starting_chips)],
    [t("sheet.deals"), formatNumber(state.deals_played)],
  ];
  return rows.filter(([, value]) => value).flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]);
}

async function main() {
  const session = requireSession();
  const id = encodeURIComponent(game);
  const [state, document_] = await Promise.all([api(`/games/${id}`), api(`/games/${id}/export?format=json`)]);
  const players = state.players;
  const title = document_.title || players.map((p) => p.name).join(", ");
  $("#title").textContent = t("sheet.title", { title });
  document.title = `${t("sheet.title", { title })} — Nain Jaune`;
  $("#replay-link").href = withShare(`/games/${id}/replay`);
  $("#audit-link").href = withShare(`/games/${id}/audit`);
  $("#print").addEventListener("click", () => window.print());
  $("#downloads").replaceChildren(...downloadButtons(game,
    (failure) => notify(failure instanceof ApiError ? failure.message : t("error.unexpected"))));
  $("#meta").replaceChildren(...meta(document_, state, session.share ? null : session.name || session.club));
  const { deals, adjustments, settled, played } = dealsOf(document_.events || [], players.length,
    state.starting_chips);
  $("#standings").replaceChildren(...standingsTable(state, settled, played));
  $("#deals").replaceChildren(deals.length ? el("div", {}, deals.map((deal) => dealSection(deal, players)))
    : el("p", { class: "empty" }, t("replay.no_deal")));
  if (adjustments.length) {
    $("#adjustments").replaceChildren(...adjustments.map((a) => el("li", {}, adjustmentText(a, players))));
    $("#adjustments-section").hidden = false;
  }
  $("#printed").textContent = t("sheet.printed", {
    date: new Date().toISOString().slice(0, 10), version: state.version,
  });
}

start(main);
