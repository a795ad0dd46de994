// Built-in Chart: a small SVG line or bar chart (no charting library: the
// whole module is a few KB, where Vega-Lite would add ~800 KB to the bundle).
// Series stream in: points appear as values arrive.

import { h } from "../common/dom.js";

const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#1976d2", "#e65100", "#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#5d4037"];
const W = 560;
const H = 280;
const PAD = { left: 52, right: 16, top: 16, bottom: 40 };

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = String(text);
  return el;
}

/** About `count` round tick values from at or below `min` to at or above `max`:
 * the axis they draw covers every value. */
export function ticks(min, max, count = 4) {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const first = Math.floor(min / step + 1e-9) * step;
  const last = Math.ceil(max / step - 1e-9) * step;
  const out = [];
  for (let i = 0; first + i * step <= last + step * 1e-9; i++) {
    out.push(Number((first + i * step).toPrecision(12)));
  }
  return out;
}

function format(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return `${(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${(v / 1e3).toPrecision(3)}k`;
  return String(Number(v.toPrecision(4)));
}

export function render({ props, el }) {
  const p = props ?? {};
  const xs = Array.isArray(p.x) ? p.x : [];
  const series = (Array.isArray(p.series) ? p.series : []).filter((s) => s && typeof s === "object");
  const values = series.flatMap((s) => (Array.isArray(s.values) ? s.values : [])).filter(Number.isFinite);
  const bar = p.kind === "bar";
  let min = values.length ? Math.min(...values) : 0;
  let max = values.length ? Math.max(...values) : 1;
  if (bar || min > 0) min = Math.min(0, min);
  if (max === min) max = min + 1;
  const ys = ticks(min, max);
  min = Math.min(min, ys[0]);
  max = Math.max(max, ys[ys.length - 1]);

  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const n = Math.max(xs.length, 1);
  const band = plotW / n;
  const xAt = (i) => PAD.left + band * (i + 0.5);
  const yAt = (v) => PAD.top + plotH - ((v - min) / (max - min)) * plotH;

  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "gu-c-chart", role: "img" });
  if (p.title) root.append(svg("title", {}, p.title));
  for (const t of ys) {
    root.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: yAt(t), y2: yAt(t), class: "gu-grid" }));
    root.append(svg("text", { x: PAD.left - 6, y: yAt(t) + 4, "text-anchor": "end" }, format(t)));
  }
  const every = Math.ceil(xs.length / 10) || 1; // at most ~10 x labels
  xs.forEach((x, i) => {
    if (i % every === 0) {
      root.append(svg("text", { x: xAt(i), y: H - PAD.bottom + 16, "text-anchor": "middle" }, x));
    }
  });
  series.forEach((s, k) => {
    const color = COLORS[k % COLORS.length];
    const vals = Array.isArray(s.values) ? s.values : [];
    if (bar) {
      const w = (band * 0.8) / Math.max(series.length, 1);
      vals.forEach((v, i) => {
        if (!Number.isFinite(v)) return;
        const x = PAD.left + band * i + band * 0.1 + w * k;
        const y0 = yAt(Math.max(0, min));
        const y1 = yAt(v);
        root.append(svg("rect", { x, y: Math.min(y0, y1), width: w, height: Math.abs(y0 - y1), fill: color }));
      });
    } else {
      const pts = vals.map((v, i) => (Number.isFinite(v) ? `${xAt(i)},${yAt(v)}` : null)).filter(Boolean);
      if (pts.length) root.append(svg("polyline", { points: pts.join(" "), fill: "none", stroke: color, "stroke-width": 2 }));
      vals.forEach((v, i) => {
        if (Number.isFinite(v)) root.append(svg("circle", { cx: xAt(i), cy: yAt(v), r: 3, fill: color }));
      });
    }
  });
  if (p.x_label) root.append(svg("text", { x: PAD.left + plotW / 2, y: H - 6, "text-anchor": "middle" }, p.x_label));
  if (p.y_label) {
    root.append(svg("text", { x: 12, y: PAD.top + plotH / 2, transform: `rotate(-90 12 ${PAD.top + plotH / 2})`, "text-anchor": "middle" }, p.y_label));
  }

  const wrap = h("div.gu-c-chart-wrap");
  if (p.title) wrap.append(h("div.gu-c-title", { text: p.title }));
  wrap.append(root);
  if (series.length > 1 || series[0]?.name) {
    const legend = h("div.gu-c-legend");
    series.forEach((s, k) => {
      const swatch = h("i");
      swatch.style.background = COLORS[k % COLORS.length];
      legend.append(h("span", {}, swatch, String(s.name ?? `series ${k + 1}`)));
    });
    wrap.append(legend);
  }
  el.append(wrap);
}
