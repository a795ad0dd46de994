// Which props are still streaming. While a call's arguments stream, the
// model is writing exactly one value at a time: the last key of the last
// object, down through nested objects and arrays. That chain of paths is
// "streaming"; every other field already parsed is "complete". Paths join
// keys and array indexes with "." ("rows.3.name"); the root is "".

/**
 * @param {any} props the (partial) props parsed so far
 * @param {boolean} complete whether the model finished the arguments
 * @returns {{streaming: boolean, fields: Record<string, "streaming"|"complete">, isStreaming: (path: string) => boolean}}
 */
export function propsStatus(props, complete) {
  /** @type {Record<string, "streaming" | "complete">} */
  const fields = {};
  const open = new Set();
  if (!complete) {
    open.add("");
    let value = props;
    let path = "";
    while (value && typeof value === "object") {
      const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value);
      if (!keys.length) break;
      const last = keys[keys.length - 1];
      path = path ? `${path}.${last}` : last;
      open.add(path);
      value = value[last];
    }
  }
  const walk = (value, path) => {
    if (path) fields[path] = open.has(path) ? "streaming" : "complete";
    if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
    }
  };
  walk(props, "");
  return {
    streaming: !complete,
    fields,
    // A field not parsed yet is still to come while streaming.
    isStreaming: (path) => !complete && (fields[path] ?? "streaming") === "streaming",
  };
}
