// The `@` menu says what each name holds: "@sales · DataFrame · 1,200 × 5",
// for the notebook's frames and the chat's own data alike (the kernel's
// `data_details` trait); a name the kernel said nothing readable about shows alone.
import { describe, expect, it, vi } from "vitest";
import { createComposer } from "../../src/composer/composer.js";
import { mentionDetail } from "../../src/composer/mentions.js";

const DETAILS = {
  sales: { kind: "DataFrame", shape: [1200, 5] },
  df_1: { kind: "Series", shape: [7] },
  prices: { kind: "array", shape: [3, 4, 2] },
  note: { kind: "str", shape: null },
  odd: { kind: 5, shape: [-1, "x"] },
};

function openMenu(query, names = Object.keys(DETAILS)) {
  const c = createComposer({ onSend: vi.fn(), onStop: vi.fn(), dataNames: () => names, dataDetails: () => DETAILS });
  c.input.value = `look at @${query}`;
  c.input.selectionStart = c.input.selectionEnd = c.input.value.length;
  c.input.dispatchEvent(new Event("input"));
  return [...c.el.querySelectorAll(".gu-mention-item")];
}

describe("the @ menu's details", () => {
  it("shows each name with its kind and shape, the chat's own refs too", () => {
    const items = openMenu("");
    const text = (name) => items.find((e) => e.dataset.name === name)?.textContent;
    expect(text("sales")).toBe(`@sales · DataFrame · ${(1200).toLocaleString()} × 5`);
    expect(text("df_1")).toBe("@df_1 · Series · 7");
    expect(text("prices")).toBe("@prices · array · 3 × 4 × 2");
    expect(text("note")).toBe("@note · str");
    expect(text("odd")).toBe("@odd"); // malformed details: the name alone
    expect(openMenu("", ["fresh"]).map((e) => e.textContent)).toEqual(["@fresh"]);
    expect(openMenu("DataFrame")).toEqual([]); // the menu matches names only
  });

  it("reads the kernel's entry defensively", () => {
    expect(mentionDetail(null)).toBe("");
    expect(mentionDetail({ kind: "x".repeat(100) })).toBe("x".repeat(40));
    expect(mentionDetail({ kind: "DataFrame", shape: new Array(9).fill(1) })).toBe("DataFrame");
  });
});
