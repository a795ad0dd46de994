// Images a tool returned show in its card; nothing but base64 data:image URLs
// becomes an <img> (a remote URL, a script URL, an error result's images do not).
import { describe, expect, it, vi } from "vitest";
import { resultImages } from "../../src/tool-card/result-images.js";
import { createToolCard } from "../../src/tool-card/tool-card.js";

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const part = (result, extra = {}) => ({
  type: "tool-call",
  tool_call_id: "call_img",
  tool_name: "picture",
  args_text: "{}",
  args: {},
  args_complete: true,
  has_result: true,
  is_error: false,
  approval: null,
  result,
  ...extra,
});

describe("tool result images", () => {
  it("only base64 data:image sources pass", () => {
    const images = [
      { src: PNG },
      { src: "https://example.com/a.png" },
      { src: "javascript:alert(1)" },
      { src: "data:text/html;base64,PHNjcmlwdD4=" },
      { src: 42 },
      null,
    ];
    expect(resultImages({ images })).toEqual([PNG]);
    expect(resultImages("text")).toEqual([]);
    expect(resultImages({ images: "no" })).toEqual([]);
  });

  it("a card shows the images of a result, not of an error, and hides them when the result goes", () => {
    const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });
    card.update(part({ images: [{ type: "image", mime_type: "image/png", src: PNG }] }), { canAct: false });
    const shown = card.el.querySelectorAll(".gu-tool-images img");
    expect(shown.length).toBe(1);
    expect(shown[0].getAttribute("src")).toBe(PNG);
    expect(shown[0].getAttribute("alt")).toContain("picture");
    expect(card.el.querySelector(".gu-tool-images").hidden).toBe(false);
    card.update(part({ error: "x", images: [{ src: PNG }] }, { is_error: true }), { canAct: false });
    expect(card.el.querySelectorAll(".gu-tool-images img").length).toBe(0);
    card.update(part(null, { has_result: false }), { canAct: false });
    expect(card.el.querySelector(".gu-tool-images").hidden).toBe(true);
  });
});
