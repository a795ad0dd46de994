import { describe, expect, it, vi } from "vitest";
import * as form from "../../src/components/form.js";
import * as table from "../../src/components/table.js";
import { csvField, toCsv } from "../../src/components/table-csv.js";
import { mountPagedTable } from "../../src/components/table-paged.js";
import { bundleElement } from "../../src/components/python-component.js";
import { propsStatus } from "../../src/components/status.js";
import { createMessageView } from "../../src/thread/message-view.js";

const complete = (props) => propsStatus(props, true);
const submit = (el) => el.querySelector("form").dispatchEvent(new Event("submit", { cancelable: true }));

describe("a Form's Submit", () => {
  const props = { title: "Trip", fields: [{ name: "start_date", type: "date" }, { name: "pets", type: "checkbox" }] };

  it("starts a turn with the values as the user's message when no reply runs", () => {
    const el = document.createElement("div");
    const sendMessage = vi.fn();
    form.render({ props, status: complete(props), el, state: {}, setState: vi.fn(), sendMessage, isRunning: () => false });
    const date = el.querySelector('[data-field="start_date"]');
    date.value = "2026-05-01";
    date.dispatchEvent(new Event("input"));
    submit(el);
    expect(sendMessage).toHaveBeenCalledWith("Submitted the form “Trip”:\n- Start date: 2026-05-01\n- Pets: (empty)");
    expect(el.querySelector(".gu-c-form-done").textContent).toBe(form.SENT_TEXT);
  });

  it("says the values go with the next message while a reply runs, and sends nothing", () => {
    const el = document.createElement("div");
    const sendMessage = vi.fn();
    const setState = vi.fn();
    form.render({ props, status: complete(props), el, state: {}, setState, sendMessage, isRunning: () => true });
    submit(el);
    expect(sendMessage).not.toHaveBeenCalled();
    expect(setState).toHaveBeenLastCalledWith({ values: {}, submitted: true }, { flush: true });
    expect(el.querySelector(".gu-c-form-done").textContent).toMatch(/go with your next message/);
  });

  it("labels a field without a label by its title or its name in words", () => {
    const el = document.createElement("div");
    const p = { fields: [{ name: "start_date" }, { name: "homeTown" }, { name: "x", title: "Your x" }, { name: "n", label: "N!" }] };
    form.render({ props: p, status: complete(p), el, state: {}, setState: () => {} });
    expect([...el.querySelectorAll("label")].map((l) => l.textContent)).toEqual(["Start date", "Home town", "Your x", "N!"]);
  });
});

describe("the Table", () => {
  const rows = [
    { id: 10234, customer_id: 5001, year: 2024, zip: 10115, units: 1200 },
    { id: 10235, customer_id: 5002, year: 2025, zip: 80331, units: 860 },
  ];

  it("shows identifiers as plain digits and amounts with separators", () => {
    const el = document.createElement("div");
    table.render({ props: { rows }, el, status: complete({ rows }) });
    const first = [...el.querySelector("tbody tr").cells].map((td) => td.textContent);
    expect(first).toEqual(["10234", "5001", "2024", "10115", (1200).toLocaleString()]);
  });

  it("never titles itself with the data's internal reference", () => {
    const el = document.createElement("div");
    const props = { title: "df_1", data: "df_1", rows };
    table.render({ props, el, status: complete(props) });
    expect(el.querySelector("caption")).toBeNull();
    const named = document.createElement("div");
    table.render({ props: { ...props, title: "sales" }, el: named, status: complete(props) });
    expect(named.querySelector("caption").textContent).toBe("sales");
  });

  it("says its size and filters its rows", () => {
    const el = document.createElement("div");
    const many = Array.from({ length: 1234 }, (_, i) => ({ name: i === 7 ? "Gadget" : `w${i}`, a: 1, b: 2, c: 3, d: 4 }));
    table.render({ props: { rows: many }, el, status: complete({}) });
    expect(el.querySelector(".gu-c-table-count").textContent).toBe(`${(1234).toLocaleString()} rows × 5 columns`);
    const filter = el.querySelector("input.gu-c-table-filter");
    filter.value = "gadg";
    filter.dispatchEvent(new Event("input"));
    expect(el.querySelectorAll("tbody tr")).toHaveLength(1);
    expect(el.querySelector(".gu-c-table-count").textContent).toBe(`1 of ${(1234).toLocaleString()} rows × 5 columns`);
    expect(el.querySelector("input.gu-c-table-filter")).toBe(filter); // the box keeps its focus
  });

  it("downloads the table as shown as CSV", async () => {
    const el = document.createElement("div");
    document.body.append(el);
    const blobs = [];
    const made = URL.createObjectURL;
    URL.createObjectURL = (blob) => (blobs.push(blob), "blob:x");
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const props = { title: "Top products", rows: [{ product: "=HYPERLINK(1)", units: -5 }, { product: 'a "b", c', units: 2 }] };
    table.render({ props, el, status: complete(props) });
    el.querySelector("button.gu-c-table-csv").click();
    await vi.waitFor(() => expect(clicked).toHaveBeenCalled());
    const text = await new Promise((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.readAsText(blobs[0]);
    });
    expect(text.replace(/^\ufeff/, "")).toBe('product,units\r\n\'=HYPERLINK(1),-5\r\n"a ""b"", c",2\r\n');
    clicked.mockRestore();
    URL.createObjectURL = made;
    el.remove();
  });

  it("fetches a paged table's rows from the kernel for its CSV", async () => {
    const el = document.createElement("div");
    const fetchRows = vi.fn(async ({ offset, limit }) => ({
      columns: ["n"],
      rows: Array.from({ length: Math.min(limit, 2500 - offset) }, (_, i) => ({ n: offset + i })),
      total_rows: 2500,
      offset,
    }));
    const paged = mountPagedTable(el, { columns: ["n"], rows: [], total_rows: 2500, paged: true }, fetchRows);
    const all = await paged.allRows();
    expect(all.rows).toHaveLength(2500);
    expect(all.rows[2499]).toEqual({ n: 2499 });
    expect(el.querySelector(".gu-c-note").textContent).toBe(`${(2500).toLocaleString()} rows × 1 column`); // one column, said so
    paged.destroy();
  });
});

describe("CSV", () => {
  it("neutralises formulas in text and quotes what must be quoted", () => {
    for (const lead of ["=", "+", "-", "@", "\t", "\r"]) expect(csvField(`${lead}1+1`).replace(/^"/, "")).toMatch(/^'/);
    expect(csvField(-3)).toBe("-3"); // a number cannot be a formula
    expect(csvField(null)).toBe("");
    expect(toCsv(["a"], [{ a: "x\ny" }])).toBe('a\r\n"x\ny"\r\n');
  });
});

describe("a data attachment's chip", () => {
  const ctx = () => ({ send: () => {}, notify: () => {}, isHuman: () => false });
  const chip = (part) => {
    const v = createMessageView(ctx());
    v.update({ id: "u1", role: "user", parts: [{ type: "attachment", mime: "x", size: 3, ...part }], status: { type: "complete" } }, { isLast: true, running: false });
    return v.el.querySelector(".gu-attachment").textContent;
  };

  it("shows the name alone when the data is kept under it", () => {
    expect(chip({ kind: "data", name: "df_1", ref: "df_1" })).toBe("df_1");
    expect(chip({ kind: "data", name: "sales.csv", ref: "sales" })).toBe("sales.csvas sales");
  });
});

describe("a matplotlib figure", () => {
  it("is marked for the dark theme's recolouring only when the kernel says it kept the default style", () => {
    expect(bundleElement({ "image/png": "AAAA", "application/vnd.ipygenui.themed-figure": true }).classList).toContain(
      "gu-c-themed-figure",
    );
    expect(bundleElement({ "image/png": "AAAA" }).classList).not.toContain("gu-c-themed-figure");
  });
});
