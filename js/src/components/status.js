// Which props are still streaming. While a call's arguments stream, the
// model is writing exactly one value at a time: the last key of the last
// object, down through nested objects and arrays. That chain of paths is
// "streaming"; every other field already parsed is "complete". Paths join
// keys and array indexes with "." ("rows.3.name"); the root is "".
//
// A status is made on every frame of a stream, so it costs the depth of the
// props, not their size: `fields` (every path) is built only when read.

/** The last key of an object, or index of an array, as a path segment; null when empty. */
function lastKey(value) {
  if (Array.isArray(value)) return value.length ? String(value.length - 1) : null;
  const keys = Object.keys(value);
  return keys.length ? keys[keys.length - 1] : null;
}

/** Whether `path` names a value inside `props` (walking its segments). */
function hasPath(props, path) {
  let value = props;
  for (const segment of path.split(".")) {
    if (!value || typeof value !== "object" || !Object.prototype.hasOwnProperty.call(value, segment)) return false;
    value = value[segment];
  }
  return true;
}

/**
 * @param {any} props the (partial) props parsed so far
 * @param {boolean} complete whether the model finished the arguments
 * @returns {{streaming: boolean, fields: Record<string, "streaming"|"complete">, isStreaming: (path: string) => boolean}}
 */
export function propsStatus(props, complete) {
  const open = new Set();
  if (!complete) {
    open.add("");
    let value = props;
    let path = "";
    while (value && typeof value === "object") {
      const last = lastKey(value);
      if (last === null) break;
      path = path ? `${path}.${last}` : last;
      open.add(path);
      value = value[last];
    }
  }
  /** @type {Record<string, "streaming" | "complete"> | null} */
  let fields = null;
  const allFields = () => {
    if (fields) return fields;
    fields = {};
    const out = fields;
    const walk = (value, path) => {
      if (path) out[path] = open.has(path) ? "streaming" : "complete";
      if (value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
      }
    };
    walk(props, "");
    return fields;
  };
  return {
    streaming: !complete,
    get fields() {
      return allFields();
    },
    // A field not parsed yet is still to come while streaming.
    isStreaming: (path) => !complete && (open.has(path) || !hasPath(props, path)),
  };
}
