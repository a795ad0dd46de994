// A2UI messages (v0.8 and v0.9) -> surfaces: components by id in v0.9's
// flat form ({id, component: "Text", ...props}) and a data model. The same
// rules as the kernel's src/ipygenui/a2ui/_surfaces.py, so a surface drawn
// while its messages stream is the one chat.surfaces() returns. Messages may
// be partial (still streaming): whatever is readable is applied, nothing throws.

const LITERALS = ["literalString", "literalNumber", "literalBoolean", "literalArray"];
const V08_RENAMES = { usageHint: "variant", distribution: "justify", alignment: "align" };
const V08_COMPONENTS = { MultipleChoice: "ChoicePicker" };

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** A message's version: "v0.9", "v0.8" or null (not an A2UI message). */
export function messageVersion(message) {
  if (!isObject(message)) return null;
  if (message.version === "v0.9") return "v0.9";
  if (["createSurface", "updateComponents", "updateDataModel"].some((k) => k in message)) return "v0.9";
  if (["beginRendering", "surfaceUpdate", "dataModelUpdate", "deleteSurface"].some((k) => k in message)) return "v0.8";
  return null;
}

function literal(value) {
  if (isObject(value)) {
    for (const key of LITERALS) if (key in value) return value[key];
    if ("path" in value) return { path: value.path };
  }
  return value;
}

function children(value) {
  if (isObject(value)) {
    if ("explicitList" in value) return Array.isArray(value.explicitList) ? value.explicitList : [];
    if (isObject(value.template)) return { componentId: value.template.componentId, path: value.template.dataBinding };
  }
  return value;
}

function action(value) {
  if (!isObject(value) || "event" in value || "functionCall" in value) return value;
  const context = {};
  for (const entry of Array.isArray(value.context) ? value.context : []) {
    if (isObject(entry) && typeof entry.key === "string") context[entry.key] = literal(entry.value);
  }
  return { event: { name: value.name, context } };
}

/** One component of an update in v0.9's flat form, or null if unreadable (yet). */
export function normalizeComponent(entry, version) {
  if (!isObject(entry) || typeof entry.id !== "string") return null;
  if (version === "v0.9") return typeof entry.component === "string" ? entry : null;
  const wrapper = entry.component;
  if (!isObject(wrapper)) return null;
  const names = Object.keys(wrapper);
  if (names.length !== 1) return null;
  const name = names[0];
  const out = { id: entry.id, component: V08_COMPONENTS[name] ?? name };
  if ("weight" in entry) out.weight = entry.weight;
  for (const [key, value] of Object.entries(wrapper[name] ?? {})) {
    if (key === "children") out.children = children(value);
    else if (key === "action") out.action = action(value);
    else if (key === "text" && name === "TextField") out.value = literal(value);
    else if (key === "textFieldType") out.variant = value;
    else if (key === "primary") out.variant = value ? "primary" : "default";
    else if (key === "selections") out.value = literal(value);
    else out[V08_RENAMES[key] ?? key] = literal(value);
  }
  return out;
}

function tokens(path) {
  const p = String(path ?? "").trim();
  if (p === "" || p === "/") return [];
  return p
    .replace(/^\//, "")
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value at a JSON Pointer, or undefined. */
export function pointerGet(data, path) {
  let node = data;
  for (const t of tokens(path)) {
    if (Array.isArray(node) && /^\d+$/.test(t)) node = node[Number(t)];
    else if (isObject(node) && Object.hasOwn(node, t)) node = node[t];
    else return undefined;
  }
  return node;
}

/** `data` with `value` at `path` (objects made on the way; a copy, never in place). */
export function pointerSet(data, path, value, remove = false) {
  const ts = tokens(path);
  if (ts.length === 0) return remove ? {} : structuredClone(value);
  const root = isObject(data) || Array.isArray(data) ? structuredClone(data) : {};
  let node = root;
  for (const t of ts.slice(0, -1)) {
    let child = Array.isArray(node) ? node[Number(t)] : node[t];
    if (!isObject(child) && !Array.isArray(child)) {
      if (Array.isArray(node)) return root;
      child = {};
      node[t] = child;
    }
    node = child;
  }
  const last = ts[ts.length - 1];
  if (Array.isArray(node)) {
    if (!/^\d+$/.test(last)) return root;
    if (remove) node.splice(Number(last), 1);
    else node[Number(last)] = structuredClone(value);
  } else if (remove) delete node[last];
  else node[last] = structuredClone(value);
  return root;
}

/** v0.8 has no list values: its samples (and the official renderer) put JSON in a valueString. */
function jsonIn(value) {
  const t = typeof value === "string" ? value.trim() : "";
  if (!/^\{[\s\S]*\}$|^\[[\s\S]*\]$/.test(t)) return value;
  try {
    return JSON.parse(t);
  } catch {
    return value;
  }
}

function v08Contents(contents) {
  const out = {};
  for (const entry of Array.isArray(contents) ? contents : []) {
    if (!isObject(entry) || typeof entry.key !== "string") continue;
    for (const kind of ["valueString", "valueNumber", "valueBoolean"]) if (kind in entry) out[entry.key] = jsonIn(entry[kind]);
    if ("valueMap" in entry) out[entry.key] = v08Contents(entry.valueMap);
  }
  return out;
}

function surfaceOf(surfaces, id, version) {
  if (typeof id !== "string" || !id) return null;
  let s = surfaces.get(id);
  if (!s || s.deleted) {
    s = { id, version, root: "root", catalogId: null, components: new Map(), data: {}, deleted: false, started: false };
    surfaces.set(id, s);
  }
  return s;
}

/**
 * Apply messages (possibly partial) in order to `surfaces` (a Map, changed in place).
 * @param {Map<string, any>} surfaces @param {any[]} messages
 */
export function applyMessages(surfaces, messages) {
  for (const message of Array.isArray(messages) ? messages : []) {
    const version = messageVersion(message);
    if (!version) continue;
    const start = message.createSurface ?? message.beginRendering;
    if (isObject(start)) {
      const s = surfaceOf(surfaces, start.surfaceId, version);
      if (s) {
        s.started = true;
        s.catalogId = start.catalogId ?? null;
        if (typeof start.root === "string") s.root = start.root;
      }
    }
    const update = message.updateComponents ?? message.surfaceUpdate;
    if (isObject(update)) {
      const s = surfaceOf(surfaces, update.surfaceId, version);
      for (const entry of Array.isArray(update.components) ? update.components : []) {
        const c = normalizeComponent(entry, version);
        if (s && c) s.components.set(c.id, c);
      }
    }
    const data = message.updateDataModel ?? message.dataModelUpdate;
    if (isObject(data)) {
      const s = surfaceOf(surfaces, data.surfaceId, version);
      if (s) {
        const path = typeof data.path === "string" ? data.path : "/";
        if ("contents" in data) {
          for (const [key, value] of Object.entries(v08Contents(data.contents))) {
            s.data = pointerSet(s.data, `${path.replace(/\/$/, "")}/${key}`, value);
          }
        } else s.data = pointerSet(s.data, path, data.value, !("value" in data));
      }
    }
    const gone = message.deleteSurface;
    if (isObject(gone) && surfaces.has(gone.surfaceId)) surfaces.get(gone.surfaceId).deleted = true;
  }
  return surfaces;
}
