import { beforeAll, describe, expect, it, vi } from "vitest";
import { createToolCard } from "../../src/tool-card/tool-card.js";
import { loadHighlighter } from "../helpers/load-highlighter.js";

beforeAll(loadHighlighter);

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const CODE = "import pandas as pd\nsales = pd.DataFrame({'region': ['n', 's'], 'units': [3, 5]})\nprint(sales.units.sum())";

const ctx = () => ({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });

function run(result, extra = {}) {
  return {
    type: "tool-call",
    tool_call_id: "c1",
    tool_name: "run_python",
    args: { code: CODE },
    args_text: JSON.stringify({ code: CODE }),
    args_complete: true,
    approval: { status: "approved" },
    has_result: true,
    result,
    ...extra,
  };
}

const RESULT = {
  stdout: "8\n",
  names: { sales: { ref: "sales", type: "pandas.DataFrame", shape: [2, 2], columns: ["region", "units"] } },
  figures: [{ figure: 1, image: PNG, width: 640, height: 480 }],
  for_user: {
    tables: [
      {
        name: "sales",
        type: "pandas.DataFrame",
        shape: [1200, 2],
        columns: ["region", "units"],
        dtypes: ["object", "int64"],
        rows: [["n", 3], ["s", 5]],
      },
    ],
  },
};

function card(part, opts = { canAct: false }) {
  const c = createToolCard(ctx());
  c.update(part, opts);
  return c.el;
}

describe("run_python's card reads like a cell", () => {
  it("shows the code highlighted as Python, not a JSON string", () => {
    const el = card(run(RESULT));
    const code = el.querySelector(".gu-py-code");
    expect(code.hidden).toBe(false);
    expect(code.querySelector("code").textContent).toBe(CODE);
    expect(code.querySelector(".hljs-keyword")?.textContent).toBe("import");
    expect(code.textContent).not.toContain("\\n");
  });

  it("marks a default-styled figure for the dark theme, as a component's figure is, and not a styled one", () => {
    const themed = { figure: 1, image: PNG, width: 640, height: 480, themed: true };
    const el = card(run({ figures: [themed, { figure: 2, image: PNG, width: 640, height: 480 }] }));
    const [plain, styled] = el.querySelectorAll(".gu-tool-figures img");
    expect(plain.classList).toContain("gu-c-themed-figure");
    expect(styled.classList).not.toContain("gu-c-themed-figure");
  });

  it("shows the printed output, the figure and a small table with its shape", () => {
    const el = card(run(RESULT));
    expect(el.querySelector("pre.gu-py-stdout").textContent).toBe("8\n");
    expect(el.querySelector(".gu-tool-figures img").getAttribute("src")).toBe(PNG);
    const table = el.querySelector(".gu-py-table");
    expect(table.querySelector("figcaption").textContent).toContain("sales");
    expect(table.querySelector(".gu-py-shape").textContent).toBe("1,200 × 2");
    expect(table.querySelector(".gu-py-more").textContent).toBe("first 2 of 1,200 rows");
    expect([...table.querySelectorAll("thead th")].map((th) => [th.textContent, th.title])).toEqual([
      ["region", "object"],
      ["units", "int64"],
    ]);
    expect([...table.querySelectorAll("tbody tr")].map((tr) => tr.textContent)).toEqual(["n3", "s5"]);
    expect(table.querySelector("td.gu-py-num").textContent).toBe("3");
  });

  it("keeps the raw JSON behind the closed Details fold only", () => {
    const el = card(run(RESULT));
    const details = el.querySelector("details.gu-tool-details");
    expect(details.open).toBe(false);
    const outside = [...el.children].filter((c) => c !== details).map((c) => c.textContent).join("");
    expect(outside).not.toContain('"stdout"');
    expect(outside).not.toContain("for_user");
    details.open = true; // printed when the user opens the fold
    details.dispatchEvent(new Event("toggle"));
    expect(details.querySelector(".gu-tool-result").textContent).toContain('"stdout"');
  });

  it("shows the value when no table shows it", () => {
    const el = card(run({ value: { type: "builtins.int", repr: "42" } }));
    expect(el.querySelector("pre.gu-py-value").textContent).toBe("Out: 42");
  });

  it("shows an error as its line and the traceback's last lines", () => {
    const trace = ["Traceback (most recent call last):", ...Array.from({ length: 30 }, (_, i) => `  line ${i}`), "ZeroDivisionError: division by zero"];
    const el = card(run({ error: { type: "ZeroDivisionError", message: "division by zero", traceback: trace.join("\n") } }));
    expect(el.querySelector(".gu-py-error-title").textContent).toBe("ZeroDivisionError: division by zero");
    const shown = el.querySelector("pre.gu-py-traceback").textContent.split("\n");
    expect(shown.length).toBe(13); // "…" and the last 12 lines
    expect(shown[shown.length - 1]).toBe("ZeroDivisionError: division by zero");
  });

  it("while the approval shows the code, the card does not show it twice", () => {
    const el = card(run(undefined, { has_result: false, approval: { status: "pending" } }), { canAct: true });
    expect(el.querySelector(".gu-py-code").hidden).toBe(true);
    expect(el.querySelectorAll(".gu-code-view").length).toBe(1);
  });

  it("renders an untrusted result as text: no HTML, only our own data: images", () => {
    const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const el = card(
      run({
        stdout: evil,
        value: { repr: evil },
        figures: [{ image: "https://evil.example/x.png" }, { image: "javascript:alert(1)" }],
        for_user: {
          tables: [
            { name: evil, shape: "big", columns: [evil, { a: 1 }], dtypes: [evil], rows: [[evil, null]], index: [evil] },
            { columns: "not a list", rows: [] },
            null,
          ],
        },
      }),
    );
    expect(el.querySelectorAll("img").length).toBe(0);
    expect(el.querySelector("script")).toBeNull();
    expect(el.querySelector("pre.gu-py-stdout").textContent).toBe(evil);
    expect(el.querySelectorAll(".gu-py-table").length).toBe(1);
    expect(el.querySelector(".gu-py-table td").textContent).toBe(evil.slice(0, 59) + "…");
    for (const node of el.querySelectorAll("*")) {
      for (const attr of node.attributes) expect(attr.name.startsWith("on")).toBe(false);
    }
    expect(window.__pwned).toBeUndefined();
  });

  it("a tool that is not run_python keeps its usual card", () => {
    const el = card({ ...run({ rows: 3 }), tool_name: "sql", args: { code: "select 1" } });
    expect(el.querySelector(".gu-py").hidden).toBe(true);
  });
});
