// The sources' folders say what each file is part of: js/src keeps at its root
// only the entry points and what mirrors the widget package (a few files), and
// no file repeats its folder's name as a prefix (composer/composer-x.js), which
// is how loose files used to fake folders.
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

const MAX_LOOSE = 12;
// vitest runs in js/ (as a2ui.test.js reads its fixture).
const SRC = join(process.cwd(), "src");
const TEST = join(process.cwd(), "test");

/** Every file under `root`, as its path relative to `root` ("thread/view.js"). */
function filesUnder(root) {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

/** The files whose name starts with their folder's name and a dash. */
function prefixedNames(paths) {
  return paths.filter((path) => {
    const parts = path.split("/");
    const folder = parts.at(-2);
    return folder != null && parts.at(-1).startsWith(`${folder}-`);
  });
}

describe("the source layout", () => {
  it(`keeps at most ${MAX_LOOSE} loose files in js/src`, () => {
    const loose = filesUnder(SRC).filter((path) => !path.includes("/"));
    expect(loose.length, `loose files in js/src: ${loose.join(", ")}`).toBeLessThanOrEqual(MAX_LOOSE);
  });

  it("names no file after its folder with a prefix, in js/src and js/test", () => {
    expect(prefixedNames(filesUnder(SRC))).toEqual([]);
    expect(prefixedNames(filesUnder(TEST))).toEqual([]);
  });

  it("sees a prefix repeated at any depth, and only a whole folder name", () => {
    const paths = [
      "composer/composer-x.js",
      "a/tool-card/tool-card-y.js",
      "composer/composer.js",
      "thread/threads-z.js",
      "widget-keys.js",
    ];
    expect(prefixedNames(paths)).toEqual(["composer/composer-x.js", "a/tool-card/tool-card-y.js"]);
  });
});
