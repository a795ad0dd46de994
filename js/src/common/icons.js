// The widget's icons: Lucide's (ISC), drawn as inline SVG in the text's
// colour at JupyterLab's icon size (16 px). Only the icons named here are
// bundled: the `lucide` package is tree-shaken to these imports. Emoji and
// odd glyphs are not used as icons: without an emoji font they show as boxes.

import {
  Check,
  ChevronDown,
  ChevronLeft,
  ChevronRight,
  Copy,
  Download,
  FileText,
  Image,
  Paperclip,
  Pencil,
  Plus,
  RefreshCw,
  Table,
  ThumbsDown,
  ThumbsUp,
  X,
} from "lucide";

const ICONS = {
  check: Check,
  "chevron-down": ChevronDown,
  "chevron-left": ChevronLeft,
  "chevron-right": ChevronRight,
  copy: Copy,
  download: Download,
  file: FileText,
  image: Image,
  paperclip: Paperclip,
  pencil: Pencil,
  plus: Plus,
  regenerate: RefreshCw,
  table: Table,
  "thumbs-down": ThumbsDown,
  "thumbs-up": ThumbsUp,
  x: X,
};

/** @typedef {keyof typeof ICONS} IconName */

const SVG = "http://www.w3.org/2000/svg";

/**
 * An icon as an `<svg>` element, hidden from screen readers: the control
 * that shows it carries the name (`aria-label`).
 * @param {IconName} name
 * @param {number} [size] px (16: JupyterLab's toolbar icons)
 * @returns {SVGSVGElement}
 */
export function icon(name, size = 16) {
  const svg = /** @type {SVGSVGElement} */ (document.createElementNS(SVG, "svg"));
  const attrs = {
    viewBox: "0 0 24 24",
    width: String(size),
    height: String(size),
    fill: "none",
    stroke: "currentColor",
    "stroke-width": "2",
    "stroke-linecap": "round",
    "stroke-linejoin": "round",
    "aria-hidden": "true",
    focusable: "false",
    class: `gu-icon gu-icon-${name}`,
  };
  for (const [key, value] of Object.entries(attrs)) svg.setAttribute(key, value);
  for (const [tag, props] of ICONS[name] ?? []) {
    const child = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(props)) child.setAttribute(key, String(value));
    svg.append(child);
  }
  return svg;
}

/** The names `icon` draws. */
export const iconNames = /** @type {IconName[]} */ (Object.keys(ICONS));
