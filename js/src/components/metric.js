// Built-in Metric: KPI cards (label, value with unit, change, caption).

import { h } from "../common/dom.js";

/** The change's unit as written after it: "4.2%", "3 pts". */
export function deltaUnit(unit) {
  if (typeof unit !== "string" || !unit.trim()) return "";
  return unit.trim() === "%" ? "%" : ` ${unit.trim()}`;
}

function card(item) {
  const el = h("div.gu-c-metric");
  const number = typeof item.value === "number" ? item.value.toLocaleString() : String(item.value ?? "…");
  el.append(
    h("div.gu-c-metric-label", { text: item.label ?? "" }),
    h("div.gu-c-metric-value", { text: item.unit ? `${number} ${item.unit}` : number }),
  );
  if (typeof item.delta === "number") {
    const up = item.delta >= 0;
    const delta = `${up ? "▲" : "▼"} ${Math.abs(item.delta).toLocaleString()}${deltaUnit(item.delta_unit)}`;
    el.append(h(`div.gu-c-metric-delta.${up ? "gu-up" : "gu-down"}`, { text: delta }));
  }
  if (item.caption) el.append(h("div.gu-c-metric-caption", { text: item.caption }));
  return el;
}

export function render({ props, el }) {
  const p = props ?? {};
  const wrap = h("div.gu-c-metrics");
  if (p.title) el.append(h("div.gu-c-title", { text: p.title }));
  for (const item of Array.isArray(p.metrics) ? p.metrics : []) {
    if (item && typeof item === "object") wrap.append(card(item));
  }
  el.append(wrap);
}
