// Our own A2UI renderer: each component of the basic catalog drawn with our
// DOM helpers and CSS (a2ui.css), text always as text (no HTML from the wire),
// no code from the wire. A component outside the catalog is refused in its
// place with an error naming it. Images load only once the user allows them
// (resources.js, as a model's markdown images); video and audio are never
// fetched, only named. Bindings ({path}) read the surface's data model; what
// the user enters is written back there (and to the kernel, debounced).

import { h } from "../common/dom.js";
import { addPlaceholders, hold, isInline } from "../common/resources.js";
import { runCall } from "./functions.js";
import { pointerGet } from "./surfaces.js";

export const CATALOG = [
  "Text",
  "Image",
  "Icon",
  "Video",
  "AudioPlayer",
  "Row",
  "Column",
  "List",
  "Card",
  "Tabs",
  "Modal",
  "Divider",
  "Button",
  "TextField",
  "CheckBox",
  "ChoicePicker",
  "Slider",
  "DateTimeInput",
];

const MAX_DEPTH = 40; // a cycle of ids (a -> b -> a) stops here
const MAX_ITEMS = 500; // template children drawn from one list

const ICONS = {
  accountCircle: "👤",
  add: "+",
  arrowBack: "←",
  arrowForward: "→",
  arrowUpward: "↑", // this and the other names off the catalog's list: used by its samples
  attachFile: "📎",
  calendarToday: "📅",
  call: "📞",
  camera: "📷",
  check: "✓",
  close: "✕",
  delete: "🗑",
  directionsRun: "🏃",
  download: "⬇",
  edit: "✎",
  event: "📅",
  error: "⚠",
  fastForward: "⏩",
  favorite: "♥",
  favoriteOff: "♡",
  folder: "📁",
  help: "?",
  home: "⌂",
  info: "ℹ",
  locationOn: "📍",
  lock: "🔒",
  lockOpen: "🔓",
  mail: "✉",
  menu: "☰",
  moreVert: "⋮",
  moreHoriz: "⋯",
  notifications: "🔔",
  notificationsOff: "🔕",
  payment: "💳",
  pause: "⏸",
  person: "👤",
  phone: "📞",
  photo: "🖼",
  play: "▶",
  print: "🖨",
  priorityHigh: "❗",
  refresh: "↻",
  rewind: "⏪",
  search: "🔍",
  send: "➤",
  settings: "⚙",
  share: "⤴",
  shoppingCart: "🛒",
  skipNext: "⏭",
  skipPrevious: "⏮",
  star: "★",
  starHalf: "⯪",
  starOff: "☆",
  trendingUp: "📈",
  stop: "⏹",
  upload: "⬆",
  visibility: "👁",
  visibilityOff: "🙈",
  volumeDown: "🔉",
  volumeMute: "🔈",
  volumeOff: "🔇",
  volumeUp: "🔊",
  warning: "⚠",
};

const JUSTIFY = {
  start: "flex-start",
  center: "center",
  end: "flex-end",
  spaceBetween: "space-between",
  spaceAround: "space-around",
  spaceEvenly: "space-evenly",
  stretch: "stretch",
};
const ALIGN = { start: "flex-start", center: "center", end: "flex-end", stretch: "stretch" };

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** A JSON Pointer against a template item's scope: relative paths start there. */
function absolute(path, scope) {
  const p = String(path ?? "");
  if (p.startsWith("/")) return p;
  return `${scope.replace(/\/$/, "")}/${p}`;
}

/** Simple markdown in A2UI text, shown as text: heading marks and emphasis stars go. */
function plain(text) {
  return String(text ?? "")
    .replace(/^#{1,6}\s+/, "")
    .replace(/\*\*(.+?)\*\*/g, "$1")
    .replace(/(^|\s)\*(\S.*?)\*/g, "$1$2");
}

function errorBox(text) {
  return h("div.gu-a2ui-error", { role: "alert", text });
}

/**
 * Draw one surface.
 * @param {any} surface from applyMessages
 * @param {{data: () => any, edit: (path: string, value: any) => void,
 *          press: (componentId: string) => void, resources?: any, streaming?: boolean}} ctx
 *   `data`: the data model now (messages + the user's input); `edit`: the user
 *   changed a bound value; `press`: a button with an event was pressed
 * @returns {{el: HTMLElement, refresh: () => void}} `refresh` redraws bound
 *   values after an edit (inputs keep focus: they are not rebuilt)
 */
export function renderSurface(surface, ctx) {
  const refreshers = [];
  const read = (value, scope) => {
    if (isObject(value) && typeof value.path === "string" && Object.keys(value).length === 1) {
      return pointerGet(ctx.data(), absolute(value.path, scope));
    }
    if (isObject(value) && typeof value.call === "string") {
      return runCall(value, (v) => read(v, scope), (p) => pointerGet(ctx.data(), absolute(p, scope)));
    }
    if (isObject(value) && "functionCall" in value) return undefined; // v0.8 client functions are not run
    return value;
  };
  const bound = (value, scope) =>
    isObject(value) && typeof value.path === "string" ? absolute(value.path, scope) : null;
  const text = (value, scope) => {
    const v = read(value, scope);
    return v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
  };
  /** A text node that follows the data model. */
  const live = (el, value, scope, fn = (node, t) => (node.textContent = t)) => {
    const draw = () => fn(el, text(value, scope));
    draw();
    if (bound(value, scope) || typeof value?.call === "string") refreshers.push(draw); // a call may read the model too
    return el;
  };

  const draw = (id, scope, depth) => {
    if (depth > MAX_DEPTH) return errorBox(`A2UI: components nest deeper than ${MAX_DEPTH} (a cycle?)`);
    const c = surface.components.get(id);
    if (!c) return h("div.gu-a2ui-pending", { "data-a2ui-id": String(id), "aria-busy": "true" });
    const kind = c.component;
    if (!CATALOG.includes(kind)) {
      return errorBox(`A2UI component “${String(kind).slice(0, 60)}” (id ${id}) is not in the basic catalog: not shown.`);
    }
    const el = BUILDERS[kind](c, scope, depth);
    el.classList.add("gu-a2ui-c");
    el.dataset.a2uiId = c.id;
    el.dataset.a2uiComponent = kind;
    if (typeof c.weight === "number" && c.weight > 0) el.style.flexGrow = String(Math.min(c.weight, 100));
    const label = c.accessibility?.label;
    if (label !== undefined) el.setAttribute("aria-label", text(label, scope));
    return el;
  };

  const drawChildren = (spec, scope, depth) => {
    if (Array.isArray(spec)) return spec.map((child) => draw(child, scope, depth + 1));
    if (isObject(spec) && typeof spec.componentId === "string") {
      const path = absolute(spec.path ?? "", scope);
      const items = pointerGet(ctx.data(), path);
      const keys = Array.isArray(items) ? items.map((_, i) => String(i)) : isObject(items) ? Object.keys(items) : [];
      return keys.slice(0, MAX_ITEMS).map((k) => draw(spec.componentId, `${path.replace(/\/$/, "")}/${k}`, depth + 1));
    }
    return [];
  };

  /** A text input bound both ways to `value`'s path (read-only for a literal). */
  const bindText = (input, value, scope, eventName, current) => {
    const path = bound(value, scope);
    const sync = () => {
      if (document.activeElement !== input) input.value = text(value, scope);
    };
    sync();
    if (path) {
      refreshers.push(sync);
      input.addEventListener(eventName, () => ctx.edit(path, current()));
    } else input.readOnly = value !== undefined;
  };

  const field = (c, scope, input, labelText) => {
    const row = h("label.gu-a2ui-field");
    if (labelText !== undefined) row.append(live(h("span.gu-a2ui-label"), labelText, scope));
    row.append(input);
    return row;
  };

  const BUILDERS = {
    Text(c, scope) {
      const variant = String(c.variant ?? "body");
      const tag = /^h[1-5]$/.test(variant) ? variant : "div";
      return live(h(`${tag}.gu-a2ui-text.gu-a2ui-${variant}`), c.text, scope, (node, t) => (node.textContent = plain(t)));
    },
    Image(c, scope) {
      const img = h(`img.gu-a2ui-image.gu-a2ui-img-${String(c.variant ?? "mediumFeature")}`, {
        alt: text(c.description ?? c.altText ?? "", scope),
      });
      if (c.fit) img.style.objectFit = String(c.fit);
      const wrap = h("div.gu-a2ui-image-wrap", {}, img);
      const url = text(c.url, scope).trim();
      if (ctx.streaming && !bound(c.url, scope)) {
        img.classList.add("gu-a2ui-image-waiting"); // a half-streamed URL never loads
      } else if (/^data:image\/(png|jpeg|gif|webp);base64,/i.test(url) && isInline(url)) img.src = url;
      else if (/^https?:\/\/\S+$/i.test(url)) {
        if (ctx.resources?.allows?.(url)) img.src = url;
        else {
          hold(img, url);
          addPlaceholders(wrap);
        }
      } else if (url) wrap.append(errorBox("Image not shown: its address is not http(s) or a data:image URI."));
      return wrap;
    },
    Icon(c, scope) {
      const name = text(c.name, scope);
      const known = ICONS[name] ?? ICONS[name.replace(/_(\w)/g, (_, ch) => ch.toUpperCase())]; // v0.8 samples say skip_next
      return h("span.gu-a2ui-icon", { title: name, "aria-label": name, text: known ?? "•" });
    },
    Video(c, scope) {
      return h("div.gu-a2ui-media", { text: `▶ Video (not played here): ${text(c.url, scope)}` });
    },
    AudioPlayer(c, scope) {
      const about = c.description !== undefined ? ` — ${text(c.description, scope)}` : "";
      return h("div.gu-a2ui-media", { text: `♪ Audio (not played here): ${text(c.url, scope)}${about}` });
    },
    Row(c, scope, depth) {
      return flex("div.gu-a2ui-row", c, drawChildren(c.children, scope, depth));
    },
    Column(c, scope, depth) {
      return flex("div.gu-a2ui-column", c, drawChildren(c.children, scope, depth));
    },
    List(c, scope, depth) {
      const tag = c.direction === "horizontal" ? "div.gu-a2ui-row.gu-a2ui-list" : "div.gu-a2ui-column.gu-a2ui-list";
      return flex(tag, c, drawChildren(c.children, scope, depth));
    },
    Card(c, scope, depth) {
      return h("div.gu-a2ui-card", {}, draw(c.child, scope, depth + 1));
    },
    Tabs(c, scope, depth) {
      const tabs = Array.isArray(c.tabs ?? c.tabItems) ? (c.tabs ?? c.tabItems) : [];
      const bar = h("div.gu-a2ui-tabbar", { role: "tablist" });
      const panel = h("div.gu-a2ui-tabpanel", { role: "tabpanel" });
      const select = (i) => {
        [...bar.children].forEach((b, j) => b.setAttribute("aria-selected", String(i === j)));
        panel.replaceChildren(draw(tabs[i]?.child, scope, depth + 1));
      };
      tabs.forEach((tab, i) => {
        const b = live(h("button.gu-a2ui-tab", { type: "button", role: "tab" }), tab?.title, scope);
        b.addEventListener("click", () => select(i));
        bar.append(b);
      });
      const el = h("div.gu-a2ui-tabs", {}, bar, panel);
      if (tabs.length) select(0);
      return el;
    },
    Modal(c, scope, depth) {
      // Inline, not a page-wide overlay: the trigger toggles the content below it.
      const content = h("div.gu-a2ui-modal-content", { hidden: true }, draw(c.content ?? c.contentChild, scope, depth + 1));
      const trigger = h("div.gu-a2ui-modal-trigger", {}, draw(c.trigger ?? c.entryPointChild, scope, depth + 1));
      trigger.addEventListener("click", (e) => {
        e.preventDefault();
        content.hidden = !content.hidden;
      });
      return h("div.gu-a2ui-modal", {}, trigger, content);
    },
    Divider(c) {
      return h(c.axis === "vertical" ? "div.gu-a2ui-divider-v" : "hr.gu-a2ui-divider");
    },
    Button(c, scope, depth) {
      const variant = String(c.variant ?? "default");
      const b = h(`button.gu-a2ui-button.gu-a2ui-button-${variant}`, { type: "button" }, draw(c.child, scope, depth + 1));
      const event = c.action?.event;
      if (!isObject(event) || typeof event.name !== "string") {
        b.disabled = true;
        b.title = c.action?.functionCall ? "Client-side functions are not supported" : "This button sends nothing";
      } else {
        b.dataset.a2uiAction = event.name;
        b.addEventListener("click", () => ctx.press(c.id));
      }
      if (ctx.streaming) b.disabled = true;
      return b;
    },
    TextField(c, scope) {
      const variant = String(c.variant ?? "shortText");
      const input =
        variant === "longText"
          ? h("textarea.gu-a2ui-input", { rows: 3 })
          : h("input.gu-a2ui-input", {
              type: variant === "obscured" ? "password" : variant === "number" ? "number" : "text",
            });
      const read = () => (variant === "number" && input.value !== "" ? Number(input.value) : input.value);
      bindText(input, c.value, scope, "input", read);
      return field(c, scope, input, c.label);
    },
    CheckBox(c, scope) {
      const input = h("input.gu-a2ui-check", { type: "checkbox" });
      const path = bound(c.value, scope);
      const sync = () => (input.checked = read(c.value, scope) === true);
      sync();
      if (path) {
        refreshers.push(sync);
        input.addEventListener("change", () => ctx.edit(path, input.checked));
      } else input.disabled = true;
      const row = h("label.gu-a2ui-field.gu-a2ui-inline", {}, input);
      row.append(live(h("span"), c.label, scope));
      return row;
    },
    ChoicePicker(c, scope) {
      const options = Array.isArray(c.options) ? c.options : [];
      const multi = c.variant !== "mutuallyExclusive" && c.maxAllowedSelections !== 1;
      const path = bound(c.value, scope);
      const group = h("fieldset.gu-a2ui-choices");
      if (c.label !== undefined) group.append(live(h("legend"), c.label, scope));
      const name = `gu-a2ui-${Math.random().toString(36).slice(2, 9)}`;
      const inputs = [];
      const selected = () => {
        const v = read(c.value, scope);
        return Array.isArray(v) ? v.map(String) : v === undefined || v === null ? [] : [String(v)];
      };
      for (const option of options) {
        const value = String(read(option?.value, scope) ?? "");
        const input = h("input", { type: multi ? "checkbox" : "radio", name, value });
        inputs.push(input);
        input.addEventListener("change", () => {
          if (path) ctx.edit(path, inputs.filter((i) => i.checked).map((i) => i.value));
        });
        if (!path) input.disabled = true;
        const row = h("label.gu-a2ui-inline", {}, input);
        row.append(live(h("span"), option?.label, scope));
        group.append(row);
      }
      const sync = () => {
        const now = selected();
        for (const i of inputs) i.checked = now.includes(i.value);
      };
      sync();
      if (path) refreshers.push(sync);
      return group;
    },
    Slider(c, scope) {
      const input = h("input.gu-a2ui-slider", {
        type: "range",
        min: String(Number(c.min ?? c.minValue ?? 0)),
        max: String(Number(c.max ?? c.maxValue ?? 100)),
      });
      const shown = h("span.gu-a2ui-slider-value");
      const path = bound(c.value, scope);
      const sync = () => {
        const v = read(c.value, scope);
        if (typeof v === "number") input.value = String(v);
        shown.textContent = input.value;
      };
      sync();
      if (path) {
        refreshers.push(sync);
        input.addEventListener("input", () => {
          shown.textContent = input.value;
          ctx.edit(path, Number(input.value));
        });
      } else input.disabled = true;
      const row = field(c, scope, input, c.label);
      row.append(shown);
      return row;
    },
    DateTimeInput(c, scope) {
      const date = c.enableDate !== false;
      const time = c.enableTime === true;
      const type = date && time ? "datetime-local" : time ? "time" : "date";
      const input = h("input.gu-a2ui-input", { type });
      bindText(input, c.value, scope, "change", () => input.value);
      return field(c, scope, input, c.label);
    },
  };

  const root = h("div.gu-a2ui-surface", { "data-surface-id": surface.id });
  root.append(draw(surface.root, "/", 0));
  return {
    el: root,
    refresh() {
      for (const fn of refreshers) fn();
    },
  };
}

function flex(tag, c, kids) {
  const el = h(tag, {}, ...kids);
  if (JUSTIFY[c.justify]) el.style.justifyContent = JUSTIFY[c.justify];
  if (ALIGN[c.align]) el.style.alignItems = ALIGN[c.align];
  return el;
}
