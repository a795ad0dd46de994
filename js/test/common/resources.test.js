// Model-written resources never load by themselves: every URL that would
// make the browser fetch (remote or same-origin) waits behind a "Load image
// from …" button; a click loads exactly that URL and the chat remembers it.

import { afterEach, describe, expect, it } from "vitest";
import * as image from "../../src/components/image.js";
import { createMarkdownView, renderMarkdown, sanitize } from "../../src/markdown/markdown.js";
import { createResources, listenForLoads, resourcesFor } from "../../src/common/resources.js";

const REMOTE = "http://127.0.0.1:9/pixel.png?secret=abc";
const PNG = "data:image/png;base64,iVBORw0KGgo=";

// Model output that would fetch something if rendered as is.
const FETCHING = [
  `![chart](${REMOTE})`,
  "![logout](/logout)",
  `<img src="${REMOTE}">`,
  '<img src="?secret=1" alt="relative">',
  `<img srcset="${REMOTE} 1x, /b.png 2x">`,
  `<picture><source srcset="${REMOTE}"><img src="/p.png"></picture>`,
  `<video poster="${REMOTE}" src="/v.mp4" autoplay><source src="/s.mp4"><track src="/t.vtt"></video>`,
  `<audio src="${REMOTE}" autoplay></audio>`,
  `<table background="${REMOTE}"><tr><td background="/td.png">x</td></tr></table>`,
  `<svg><image href="${REMOTE}"/><image xlink:href="/x.png"/></svg>`,
  `<svg><filter id="f"><feImage href="${REMOTE}"/></filter></svg>`,
  `<svg><rect fill="url(${REMOTE}#a)" stroke="u\\72l(/s.svg#b)" filter="url('/f.svg#c')"/></svg>`,
  `<svg><rect mask="image-set('${REMOTE}' 1x)"/></svg>`,
  `<div style="background:url(${REMOTE})">styled</div>`,
  `<link rel="stylesheet" href="${REMOTE}"><link rel=prefetch href=/logout>`,
  `<object data="${REMOTE}"></object><embed src="/e.swf"><iframe src="/i"></iframe>`,
  `<input type="image" src="${REMOTE}"><body background="/b.png">`,
  `<math><mglyph src="${REMOTE}"/><mi href="/m">x</mi></math>`,
  `<img data-gu-src="${REMOTE}" data-gu-held>`,
  `[![badge](${REMOTE})](https://example.org)`,
];

const URL_ATTRS = [
  "src",
  "srcset",
  "poster",
  "background",
  "data",
  "href",
  "xlink:href",
  "fill",
  "stroke",
  "filter",
  "mask",
  "style",
];

/** Attributes that would fetch something in a browser. */
function fetching(root) {
  const found = [];
  for (const el of root.querySelectorAll("*")) {
    for (const name of URL_ATTRS) {
      const value = el.getAttribute(name);
      if (value === null) continue;
      if (name === "href" && ["a", "area"].includes(el.localName)) continue; // a click, not a fetch
      if (/^\s*(#|data:)/.test(value) || /^\s*url\(\s*#/.test(value)) continue;
      if (["fill", "stroke", "filter", "mask"].includes(name) && !/url|image|\\/i.test(value)) continue;
      found.push(`${el.localName}[${name}=${value}]`);
    }
    if (["link", "object", "embed", "iframe", "input"].includes(el.localName)) found.push(el.localName);
  }
  return found;
}

function mount(html) {
  const el = document.createElement("div");
  el.innerHTML = html;
  document.body.append(el);
  return el;
}

afterEach(() => document.body.replaceChildren());

describe("model output requests nothing by itself", () => {
  it.each(FETCHING)("renderMarkdown: %s", (payload) => {
    expect(fetching(mount(renderMarkdown(`before ${payload} after`)))).toEqual([]);
  });

  it.each(FETCHING)("markdown view: %s", (payload) => {
    const el = document.createElement("div");
    createMarkdownView(el, { resources: createResources() }).update(`before\n\n${payload}\n\nafter`);
    expect(fetching(el)).toEqual([]);
    expect(el.textContent).toContain("after");
  });

  it.each(FETCHING)("sanitize: %s", (payload) => {
    expect(fetching(mount(sanitize(payload)))).toEqual([]);
  });

  it("shows a placeholder naming the host, and a markdown image's alt survives", () => {
    const el = mount(renderMarkdown(`See ![the chart](${REMOTE}) and ![out](/logout).`));
    const buttons = [...el.querySelectorAll("button.gu-load-resource")];
    expect(buttons.map((b) => b.textContent)).toEqual([
      "Load image from 127.0.0.1:9",
      `Load image from ${window.location.host}`,
    ]);
    expect(buttons[0].title).toBe(REMOTE);
    const img = buttons[0].nextElementSibling;
    expect(img.hidden).toBe(true);
    expect(img.getAttribute("alt")).toBe("the chart");
  });

  it("shows data: images directly: their bytes are in the message", () => {
    const el = mount(renderMarkdown(`![inline](${PNG}) <img src="${PNG}">`));
    expect([...el.querySelectorAll("img")].map((i) => i.getAttribute("src"))).toEqual([PNG, PNG]);
    expect(el.querySelector("button")).toBeNull();
  });

  it("opens links in a new tab with no opener or referrer, in HTML and SVG", () => {
    const el = mount(
      renderMarkdown('[a](https://example.org) <svg><a href="https://example.org/s"><text>s</text></a></svg>'),
    );
    for (const a of el.querySelectorAll("a")) {
      expect(a.getAttribute("target")).toBe("_blank");
      expect(a.getAttribute("rel").split(" ")).toEqual(expect.arrayContaining(["noopener", "noreferrer"]));
    }
    expect(el.querySelectorAll("a")).toHaveLength(2);
  });
});

describe("a click loads exactly the clicked resource, remembered per chat", () => {
  it("loads the clicked image only and remembers its URL across re-renders", () => {
    const resources = createResources();
    const root = document.createElement("div");
    document.body.append(root);
    const stop = listenForLoads(root, resources);
    const view = createMarkdownView(root, { resources });
    const text = `![a](${REMOTE})\n\n![b](http://127.0.0.1:9/other.png)`;
    view.update(text, { streaming: true });
    const [first, second] = root.querySelectorAll("button.gu-load-resource");
    first.click();
    const srcs = () => [...root.querySelectorAll("img")].map((i) => i.getAttribute("src"));
    expect(srcs()).toEqual([REMOTE, null]);
    expect(first.hidden).toBe(true);
    expect(second.hidden).toBe(false);
    expect(resources.allows(REMOTE)).toBe(true);

    // The message keeps streaming: the allowed image stays, the other waits.
    view.update(`${text} more`, { streaming: true });
    view.update(`${text} more\n\n![again](${REMOTE})`);
    expect(srcs()).toEqual([REMOTE, null, REMOTE]);
    expect(fetching(root).filter((f) => !f.includes(REMOTE))).toEqual([]);

    // A new view of the same chat (a reload, a second output) shows it too.
    const model = {};
    resourcesFor(model).allow(REMOTE);
    const other = document.createElement("div");
    createMarkdownView(other, { resources: resourcesFor(model) }).update(text);
    expect([...other.querySelectorAll("img")].map((i) => i.getAttribute("src"))).toEqual([REMOTE, null]);
    expect(resourcesFor({}).allows(REMOTE)).toBe(false); // another chat asks again
    stop();
  });

  it("loads a video with its sources, poster and tracks on one click", () => {
    const resources = createResources();
    const root = mount(
      sanitize(`<video poster="${REMOTE}" controls><source src="/s.mp4"><track src="/t.vtt"></video>`),
    );
    listenForLoads(root, resources);
    const button = root.querySelector("button.gu-load-resource");
    expect(button.textContent).toBe("Load video from 127.0.0.1:9");
    button.click();
    const video = root.querySelector("video");
    expect(video.hidden).toBe(false);
    expect(video.getAttribute("poster")).toBe(REMOTE);
    expect(root.querySelector("source").getAttribute("src")).toBe("/s.mp4");
  });

  it("ignores buttons the model did not get from us", () => {
    const root = mount(renderMarkdown(`<button data-gu-load>x</button><img src="${REMOTE}">`));
    expect(root.querySelectorAll("button")).toHaveLength(1); // only our placeholder
  });

  it("the Image component waits for a click for http(s), not for data:", () => {
    const resources = createResources();
    const el = document.createElement("div");
    listenForLoads(el, resources);
    image.render({ props: { src: REMOTE, alt: "x" }, status: null, el, resources });
    image.render({ props: { src: PNG, alt: "y" }, status: null, el, resources });
    const imgs = el.querySelectorAll("img");
    expect(imgs[0].getAttribute("src")).toBeNull();
    expect(imgs[1].getAttribute("src")).toBe(PNG);
    el.querySelector("button.gu-load-resource").click();
    expect(imgs[0].getAttribute("src")).toBe(REMOTE);
  });
});
