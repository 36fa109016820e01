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

/**
 * The chart of `points` ([{deal, chips: [by seat]}]): one line a player, the y axis in chips, the x axis the
 * points' order. `labels` (optional), for a chart of other steps than deals: the message keys of its `title`, its
 * x `axis`, its y axis (`chips`) and a point's `point` title; `tick(p, i)`, a point's label on the x axis;
 * `marked`, the index of the point to mark with a vertical line (the replay's current step, named `markStep`),
 * said by the `mark` key; `caption`, the title shown above the chart. The chart is an image for a screen reader: its label says its
 * title, its axes, where each line starts and ends, and the point marked.
 */
export function chartElement(players, points, labels = {}) {
  const keys = { title: "chart.title", axis: "chart.deals", chips: "chart.chips", point: "chart.point",
    mark: "chart.marked", ...labels };
  const tick = labels.tick || ((p, i) => (i === 0 ? t("chart.start") : String(p.deal)));
  const width = 640;
  const height = 300;
  const pad = { left: 56, right: 16, top: 16, bottom: 40 };
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
  const every = Math.max(1, Math.ceil(points.length / 12)); // at most a dozen labels under the axis
  points.forEach((p, i) => {
    if (i % every !== 0 && i !== points.length - 1) return;
    grid.push(svg("text", { class: "tick", x: x(i), y: height - pad.bottom + 18, "text-anchor": "middle" }, tick(p, i)));
  });
  grid.push(svg("text", { class: "axis-label x-axis", x: (width + pad.left) / 2, y: height - 4, "text-anchor": "middle" },
    t(keys.axis)));
  const middle = (pad.top + height - pad.bottom) / 2;
  grid.push(svg("text", { class: "axis-label y-axis", x: 16, y: middle, "text-anchor": "middle",
    transform: `rotate(-90 16 ${middle})` }, t(keys.chips)));
  const series = players.map((player, seat) => svg("g", { class: `series series-${seat % 8}`, dataset: { seat } },
    svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.chips[seat])}`).join(" ") }),
    points.map((p, i) => svg("circle", { cx: x(i), cy: y(p.chips[seat]), r: 3.5 },
      svg("title", {}, t(keys.point, { name: player.name, chips: counted(p.chips[seat], "chip"), deal: p.deal }))))));
  const said = [`${t(keys.title)}.`, t("chart.axes", { x: t(keys.axis), y: t(keys.chips) }),
    ...players.map((player, seat) => t("chart.line", { name: player.name,
      first: formatNumber(points[0].chips[seat]), last: formatNumber(points[points.length - 1].chips[seat]) }))];
  const marked = labels.marked ?? null;
  if (marked !== null && points[marked]) {
    const at = labels.markStep ?? tick(points[marked], marked); // the step shown may lie past the point
    said.push(t(keys.mark, { step: at }));
    grid.push(svg("g", { class: "marker", dataset: { index: marked, step: at } },
      svg("line", { x1: x(marked), x2: x(marked), y1: pad.top, y2: height - pad.bottom, stroke: "#333",
        "stroke-width": 2, "stroke-dasharray": "5 4" }),
      svg("title", {}, t(keys.mark, { step: at }))));
  }
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, role: "img", class: "chips-chart", "aria-label": said.join(" "),
  }, grid, series);
  const legend = el("ul", { class: "legend" }, players.map((player, seat) => el("li", { class: `series-${seat % 8}` },
    el("span", { class: "swatch" }), `${player.name} (${formatNumber(points[points.length - 1].chips[seat])})`)));
  return [...(labels.caption ? [el("p", { class: "chart-title" }, t(keys.title))] : []), chart, legend];
}
