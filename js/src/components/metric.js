// Built-in Metric: KPI cards (label, value with unit, change, caption).

import { div } from "./el.js";

function card(item) {
  const el = div("gu-c-metric");
  const number = typeof item.value === "number" ? item.value.toLocaleString() : String(item.value ?? "…");
  el.append(
    div("gu-c-metric-label", item.label ?? ""),
    div("gu-c-metric-value", item.unit ? `${number} ${item.unit}` : number),
  );
  if (typeof item.delta === "number") {
    const up = item.delta >= 0;
    const delta = `${up ? "▲" : "▼"} ${Math.abs(item.delta).toLocaleString()}`;
    el.append(div(`gu-c-metric-delta ${up ? "gu-up" : "gu-down"}`, delta));
  }
  if (item.caption) el.append(div("gu-c-metric-caption", item.caption));
  return el;
}

export function render({ props, el }) {
  const p = props ?? {};
  const wrap = div("gu-c-metrics");
  if (p.title) el.append(div("gu-c-title", p.title));
  for (const item of Array.isArray(p.metrics) ? p.metrics : []) {
    if (item && typeof item === "object") wrap.append(card(item));
  }
  el.append(wrap);
}
