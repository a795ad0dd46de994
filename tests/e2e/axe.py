"""axe-core (WCAG 2.1 A and AA) run on a widget in the page.

axe-core comes from ``tests/peers`` (``make setup`` installs it); its
``axe.min.js`` is injected into the page once and run on one element.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Locator

AXE = Path(__file__).resolve().parents[1] / "peers" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# The violations, and what color-contrast checked (text axe takes for hidden
# it skips: a caller names what it must have read, or a test passes on nothing).
_AXE_JS = """
async (el, tags) => {
  // JupyterLab's body is 0 px tall with overflow: hidden (its shell is
  // absolutely positioned): axe reads that as clipping every cell's content
  // and checks no contrast there. The body as tall as the window, while axe runs.
  const body = document.body.style.height;
  document.body.style.height = '100vh';
  let result;
  try {
    result = await window.axe.run(el, {runOnly: {type: 'tag', values: tags}});
  } finally {
    document.body.style.height = body;
  }
  const contrast = [...result.passes, ...result.violations]
    .filter((r) => r.id === 'color-contrast');
  return {
    violations: result.violations.map((v) => ({
      id: v.id,
      nodes: v.nodes.map((n) => ({target: n.target.join(' '), why: n.failureSummary})),
    })),
    contrastChecked: contrast.flatMap((r) => r.nodes.map((n) => n.target.join(' '))),
  };
}
"""


def violations(el: Locator, must_check: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """axe's WCAG 2.1 AA violations in ``el``, once it checked the contrast of
    each class in ``must_check``."""
    assert AXE.is_file(), f"needs axe-core in tests/peers (make setup): {AXE}"
    page = el.page
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    result: dict[str, Any] = el.evaluate(_AXE_JS, WCAG_21_AA)
    checked = " ".join(result["contrastChecked"])
    for kind in must_check:
        assert kind in checked, f"axe did not read the contrast of .{kind}: {checked}"
    return [rule for rule in result["violations"] if rule["nodes"]]
