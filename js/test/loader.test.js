// The Chat's loader (static/loader.js) finds the widget's code in the shared
// bundle model; when it cannot, the chat says why instead of staying blank.
// (The import itself runs in the browser tests: Node cannot import Blob URLs.)
import { describe, expect, it } from "vitest";
import loader from "../src/loader.js";

/** A model stand-in: traits plus a widget manager holding `models`. */
function fakeModel(traits, models = {}) {
  return {
    get: (name) => traits[name],
    widget_manager: {
      async get_model(id) {
        if (!(id in models)) throw new Error("widget model not found");
        return models[id];
      },
    },
  };
}

const bundle = (traits) => ({ get: (name) => traits[name] });

async function rendered(model) {
  const el = document.createElement("div");
  await loader.initialize({ model });
  await loader.render({ model, el });
  return el;
}

describe("loader", () => {
  it("says so when the saved state lacks the bundle model", async () => {
    const el = await rendered(fakeModel({ _bundle: "IPY_MODEL_gone" }));
    const note = el.querySelector('[role="alert"]');
    expect(note?.textContent).toContain("the ipygenui bundle model this chat names is not in the page");
    expect(note?.textContent).toContain("Run its cell again");
  });

  it("says so when the manager answers no model instead of throwing", async () => {
    const model = fakeModel({ _bundle: "IPY_MODEL_b" });
    model.widget_manager.get_model = async () => undefined;
    const el = await rendered(model);
    expect(el.textContent).toContain("the ipygenui bundle model this chat names is not in the page");
  });

  it("says so when the chat names no bundle", async () => {
    const el = await rendered(fakeModel({}));
    expect(el.textContent).toContain("this chat names no ipygenui bundle model");
  });

  it("shows the kernel's reason when the bundle was not built", async () => {
    const reason = "the widget's bundle is missing (/x/widget.js): build the frontend with `npm run build` in js/";
    const model = fakeModel({ _bundle: "IPY_MODEL_b" }, { b: bundle({ esm: "", css: "", error: reason }) });
    const el = await rendered(model);
    expect(el.textContent).toContain(reason);
  });

  it("refuses a bundle model without code", async () => {
    const model = fakeModel({ _bundle: "IPY_MODEL_b" }, { b: bundle({ esm: 3, css: "" }) });
    const el = await rendered(model);
    expect(el.textContent).toContain("the ipygenui bundle model has no code");
  });
});
