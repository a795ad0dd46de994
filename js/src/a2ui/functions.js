// The basic catalog's formatting functions (formatString, formatNumber,
// formatCurrency, formatDate, pluralize), run on the data model. They are
// data, not code: a fixed set of pure functions; any other call (checks,
// openUrl) gives undefined and its text stays empty.

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Run one `{call, args}`.
 * @param {any} call @param {(value: any) => any} resolve reads a DynamicValue
 *   (a literal, `{path}` or a nested call) @param {(path: string) => any} lookup
 *   reads a path (absolute, or relative to the template item)
 */
export function runCall(call, resolve, lookup) {
  const fn = FUNCTIONS[call.call];
  if (!fn) return undefined;
  const raw = isObject(call.args) ? call.args : {};
  const args = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, resolve(v)]));
  try {
    return fn(args, lookup);
  } catch {
    return undefined; // a bad date, currency code or template: no text
  }
}

const FUNCTIONS = {
  formatString: (args, lookup) => interpolate(String(args.value ?? ""), lookup),
  formatNumber: (args) => number(args).format(Number(args.value)),
  formatCurrency: (args) => number(args, { style: "currency", currency: String(args.currency ?? "USD") }).format(Number(args.value)),
  formatDate: (args) => formatDate(args.value, String(args.format ?? "yyyy-MM-dd")),
  pluralize: (args) => {
    const category = new Intl.PluralRules().select(Number(args.value));
    return String(args[category] ?? args.other ?? "");
  },
};

function number(args, extra = {}) {
  /** @type {Intl.NumberFormatOptions} */
  const options = { ...extra, useGrouping: args.grouping !== false };
  if (typeof args.decimals === "number") {
    options.minimumFractionDigits = args.decimals;
    options.maximumFractionDigits = args.decimals;
  }
  return new Intl.NumberFormat(undefined, options);
}

/** `${/path}`, `${relative}` and `${fn(name: arg, ...)}` in text; `\${` stays literal. */
function interpolate(text, lookup) {
  let i = 0;
  const peek = (s) => text.startsWith(s, i);
  const space = () => {
    while (text[i] === " ") i++;
  };
  const expression = () => {
    // after "${": a call or a path, up to its "}"
    space();
    const name = /^[A-Za-z_]\w*(?=\s*\()/.exec(text.slice(i));
    let value;
    if (name) {
      i += name[0].length;
      space();
      i++; // (
      const args = {};
      for (space(); i < text.length && !peek(")"); space()) {
        const key = /^\w+/.exec(text.slice(i))?.[0] ?? "";
        i += key.length;
        space();
        if (peek(":")) i++;
        space();
        args[key] = argument();
        space();
        if (peek(",")) i++;
      }
      i++; // )
      value = runCall({ call: name[0], args }, (v) => v, lookup);
    } else {
      const end = text.indexOf("}", i);
      const path = text.slice(i, end < 0 ? text.length : end).trim();
      i = end < 0 ? text.length : end;
      value = lookup(path);
    }
    space();
    if (peek("}")) i++;
    return value;
  };
  const argument = () => {
    if (peek("${")) {
      i += 2;
      return expression();
    }
    if (peek("'")) {
      const end = text.indexOf("'", i + 1);
      const s = text.slice(i + 1, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end + 1;
      return s;
    }
    const bare = /^[^,)\s]+/.exec(text.slice(i))?.[0] ?? "";
    i += bare.length;
    return bare === "true" ? true : bare === "false" ? false : bare !== "" && !Number.isNaN(Number(bare)) ? Number(bare) : bare;
  };
  let out = "";
  while (i < text.length) {
    if (peek("\\${")) {
      out += "${";
      i += 3;
    } else if (peek("${")) {
      i += 2;
      const v = expression();
      out += v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
    } else out += text[i++];
  }
  return out;
}

/** Characters a date pattern may have: a real one is a few dozen; a longer one gives no text. */
export const MAX_DATE_PATTERN = 200;

const TOKENS = /'[^']*'|yyyy|yy|MMMM|MMM|MM|M|dd|d|EEEE|EEE|E|HH|H|hh|h|mm|ss|a/g;

/**
 * A Unicode TR35 date pattern (the tokens the catalog lists), in the user's
 * locale and time zone; undefined (no text) for a pattern over `MAX_DATE_PATTERN`.
 */
function formatDate(value, pattern) {
  if (pattern.length > MAX_DATE_PATTERN) return undefined;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(value)); // a date alone is that day here, not UTC midnight
  const date = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : new Date(typeof value === "number" ? value : String(value));
  if (Number.isNaN(date.getTime())) return undefined;
  const names = new Map(); // a locale name is built once, however often the pattern names it
  const part = (options) => {
    const key = JSON.stringify(options);
    if (!names.has(key)) names.set(key, new Intl.DateTimeFormat(undefined, options).format(date));
    return names.get(key);
  };
  const pad = (n) => String(n).padStart(2, "0");
  const hour12 = date.getHours() % 12 || 12;
  const tokens = {
    yyyy: () => String(date.getFullYear()),
    yy: () => pad(date.getFullYear() % 100),
    MMMM: () => part({ month: "long" }),
    MMM: () => part({ month: "short" }),
    MM: () => pad(date.getMonth() + 1),
    M: () => String(date.getMonth() + 1),
    dd: () => pad(date.getDate()),
    d: () => String(date.getDate()),
    EEEE: () => part({ weekday: "long" }),
    EEE: () => part({ weekday: "short" }),
    E: () => part({ weekday: "short" }),
    HH: () => pad(date.getHours()),
    H: () => String(date.getHours()),
    hh: () => pad(hour12),
    h: () => String(hour12),
    mm: () => pad(date.getMinutes()),
    ss: () => pad(date.getSeconds()),
    a: () => (date.getHours() < 12 ? "AM" : "PM"),
  };
  return pattern.replace(TOKENS, (t) => (t.startsWith("'") ? t.slice(1, -1) : tokens[t]()));
}
