// Each player's chips over the deals, as an inline SVG line chart (no library).

import { counted, el, formatNumber, svg, t } from "./common.js";

/**
 * Balances after each deal from the transfers: [{deal: 0, chips: [...]}, {deal: 1, …}, …].
 * Point 0 is the start; point d is after deal d's settlement (and any adjustment before the next deal).
 */
export function chipsOverDeals(players, startingChips, transfers, deals) {
  const chips = players.map(() => startingChips);
  const points = [{ deal: 0, chips: [...chips] }];
  const ordered = [...transfers].sort((a, b) => a.seq - b.seq);
  let next = 0;
  for (let deal = 1; deal <= deals; deal += 1) {
    while (next < ordered.length && ordered[next].deal <= deal) {
      const { from, to, amount } = ordered[next];
      if (from.startsWith("seat:")) chips[Number(from.slice(5))] -= amount;
      if (to.startsWith("seat:")) chips[Number(to.slice(5))] += amount;
      next += 1;
    }
    points.push({ deal, chips: [...chips] });
  }
  return points;
}

function niceStep(span) {
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) || power * 10;
}

/** `labels` (optional): the chart's title, x axis and point keys, for a chart of other steps than deals. */
export function chartElement(players, points, labels = {}) {
  const keys = { title: "chart.title", axis: "chart.deals", point: "chart.point", ...labels };
  const width = 640;
  const height = 300;
  const pad = { left: 48, right: 16, top: 16, bottom: 36 };
  const values = points.flatMap((p) => p.chips);
  let low = Math.min(0, ...values);
  let high = Math.max(...values);
  if (high === low) high = low + 1;
  const step = niceStep(high - low);
  low = Math.floor(low / step) * step;
  high = Math.ceil(high / step) * step;
  const last = Math.max(1, points.length - 1);
  const x = (i) => pad.left + ((width - pad.left - pad.right) * i) / last;
  const y = (v) => pad.top + ((height - pad.top - pad.bottom) * (high - v)) / (high - low);
  const grid = [];
  for (let v = low; v <= high; v += step) {
    grid.push(svg("line", { class: "grid", x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v) }));
    grid.push(svg("text", { class: "tick", x: pad.left - 6, y: y(v) + 4, "text-anchor": "end" }, formatNumber(v)));
  }
  points.forEach((p, i) => {
    grid.push(svg("text", { class: "tick", x: x(i), y: height - pad.bottom + 18, "text-anchor": "middle" },
      i === 0 ? t("chart.start") : String(p.deal)));
  });
  grid.push(svg("text", { class: "axis-label", x: (width + pad.left) / 2, y: height - 4, "text-anchor": "middle" },
    t(keys.axis)));
  const series = players.map((player, seat) => svg("g", { class: `series series-${seat % 8}`, dataset: { seat } },
    svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.chips[seat])}`).join(" ") }),
    points.map((p, i) => svg("circle", { cx: x(i), cy: y(p.chips[seat]), r: 3.5 },
      svg("title", {}, t(keys.point, { name: player.name, chips: counted(p.chips[seat], "chip"), deal: p.deal }))))));
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, role: "img", class: "chips-chart",
    "aria-label": t(keys.title),
  }, grid, series);
  const legend = el("ul", { class: "legend" }, players.map((player, seat) => el("li", { class: `series-${seat % 8}` },
    el("span", { class: "swatch" }), `${player.name} (${formatNumber(points[points.length - 1].chips[seat])})`)));
  return [chart, legend];
}
