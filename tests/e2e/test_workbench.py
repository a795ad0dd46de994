"""gu.Workbench in real JupyterLab: every built-in component's samples
(examples, generated props, edge cases) preview without a render error, and
the replay's scrubber shows the kernel parser's partial states.

Screenshots ``workbench-{light,dark}.png``, ``workbench-500.png`` and
``workbench-replay.png`` go to ``docs/screenshots/`` with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SCRUB_TO = "(el, i) => { el.value = String(i); el.dispatchEvent(new Event('input')); }"
BUILTIN_NAMES = ["Markdown", "Table", "Metric", "Chart", "Image", "Form"]


@pytest.fixture(scope="module")
def page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/workbench.ipynb") as lab:
        yield lab


@pytest.fixture
def bench(request: pytest.FixtureRequest, page: LabPage, lab_server: LabServer) -> Locator:
    report_on_failure(request, lab_server, [page])
    page.keep_cells(1)
    page.run_code("wb = make_workbench()\ndisplay(wb)")
    wb = page.page.locator(".jp-OutputArea-output .gu-workbench").last
    wb.wait_for(state="visible", timeout=30_000)
    return wb


def open_entry(wb: Locator, name: str) -> None:
    wb.locator("button.gu-wb-item", has_text=name).first.click()
    expect(wb.locator(".gu-wb-title")).to_contain_text(name)


def test_every_builtin_sample_previews_without_a_render_error(
    bench: Locator, page: LabPage
) -> None:
    previews = 0
    for name in BUILTIN_NAMES:
        open_entry(bench, name)
        samples = bench.locator(".gu-wb-samples button.gu-wb-sample")
        count = samples.count()
        assert count >= 2, name
        for i in range(count):
            button = samples.nth(i)
            button.click()
            slot = bench.locator(".gu-wb-detail > .gu-wb-stage .gu-component")
            expect(slot).to_have_attribute("data-component", name)
            if button.get_attribute("data-invalid") == "true":
                expect(slot).to_have_attribute("data-status", "error")
                expect(slot.locator(".gu-component-invalid")).to_contain_text("invalid props")
                expect(slot.locator(".gu-component-body")).to_have_count(0)  # no earlier render
                continue
            expect(slot).to_have_attribute("data-status", "complete")
            body = slot.locator(".gu-component-body")
            expect(body.locator(":scope > *").first, f"{name} {i}").to_be_attached()
            assert slot.locator(".gu-component-error:visible").count() == 0, (name, i)
            assert slot.locator("[data-error]").count() == 0, (name, i)
            previews += 1
    assert previews >= 20
    assert not [m for m in page.console if m.startswith("pageerror")], page.console


def test_an_edit_shows_the_error_the_model_would_get(bench: Locator, page: LabPage) -> None:
    open_entry(bench, "Chart")
    editor = bench.locator("textarea.gu-wb-editor")
    editor.fill('{"x": [1, 2], "series": [{"name": "a", "values": [1]}]}')
    expected = page.run_json(
        "gu.Chart.as_tool().validate.__self__ and __import__('ipygenui.workbench', "
        "fromlist=['check_props']).check_props(gu.Chart, "
        "{'x': [1, 2], 'series': [{'name': 'a', 'values': [1]}]})"
    )
    assert "series.0.values has 1 values but x has 2" in expected
    preview = bench.locator(".gu-wb-detail > .gu-wb-stage .gu-component")
    expect(preview.locator(".gu-component-invalid")).to_have_text(
        f"Not shown: {expected}", timeout=LONG_WAIT
    )
    expect(preview).to_have_attribute("data-status", "error")
    expect(preview.locator(".gu-component-body")).to_have_count(0)  # not the sample's chart
    # said once: not again under the editor, nor in the replay
    expect(bench.locator(".gu-wb-position")).to_contain_text("see the preview", timeout=LONG_WAIT)
    assert (bench.text_content() or "").count(expected) == 1
    # the edited props are no sample's: none stays pressed
    expect(bench.locator('.gu-wb-sample[aria-pressed="true"]')).to_have_count(0)


def test_the_replay_scrubs_the_kernels_partial_states(
    bench: Locator, page: LabPage, screenshots: Path
) -> None:
    open_entry(bench, "Chart")
    text = bench.locator("textarea.gu-wb-editor").input_value()
    states = page.run_json(
        "[s.as_json() for s in __import__('ipygenui.workbench', fromlist=['x']).replay_states("
        f"__import__('ipygenui.workbench', fromlist=['x']).chunk_text(json.dumps({text!r} and "
        f"json.loads({text!r})), 8))]".replace("json.", "__import__('json')."),
    )
    scrub = bench.locator("input.gu-wb-scrub")
    expect(scrub).to_have_attribute("max", str(len(states) - 1), timeout=LONG_WAIT)
    stage = bench.locator(".gu-wb-replay .gu-wb-stage .gu-component")
    for i in [0, 3, len(states) // 2, len(states) - 1]:
        scrub.evaluate(
            "(el, i) => { el.value = String(i); el.dispatchEvent(new Event('input')); }", i
        )
        shown = bench.locator(".gu-wb-replay pre.gu-wb-code").nth(1).text_content()
        assert json.loads(shown or "null") == states[i]["props"], i
        status = "complete" if states[i]["complete"] else ("preparing", "streaming")
        got = stage.get_attribute("data-status")
        assert got == status or got in status, (i, got)
    half = len(states) * 2 // 3
    scrub.evaluate(
        "(el, i) => { el.value = String(i); el.dispatchEvent(new Event('input')); }", half
    )
    bench.locator(".gu-wb-replay").screenshot(path=screenshots / "workbench-replay.png")


def test_screenshots_light_dark_and_narrow(
    bench: Locator, page: LabPage, screenshots: Path
) -> None:
    open_entry(bench, "Metric")
    page.page.set_viewport_size({"width": 1280, "height": 1700})  # the whole workbench in view
    try:
        for theme in ("light", "dark"):
            if theme == "dark":
                page.set_theme("JupyterLab Dark")
            bench.scroll_into_view_if_needed()
            page.page.mouse.move(0, 0)
            bench.screenshot(path=screenshots / f"workbench-{theme}.png")
    finally:
        page.set_theme("JupyterLab Light")
    page.page.set_viewport_size({"width": 1280, "height": 2000})
    bench.evaluate("(el) => { el.parentElement.style.width = '500px'; }")
    open_entry(bench, "Form")
    box = bench.bounding_box()
    assert box is not None and box["width"] <= 502
    list_box = bench.locator(".gu-wb-list").bounding_box()
    detail_box = bench.locator(".gu-wb-detail").bounding_box()
    assert list_box and detail_box and detail_box["y"] >= list_box["y"] + list_box["height"] - 1
    bench.screenshot(path=screenshots / "workbench-500.png")
    page.page.set_viewport_size({"width": 1280, "height": 900})


def test_cost_per_entry_and_an_evaluation_show(
    bench: Locator, page: LabPage, screenshots: Path
) -> None:
    tokens = page.run_json("wb.cost['entries']['Chart']['tokens']")
    chart_item = bench.locator("button.gu-wb-item", has_text="Chart")
    expect(chart_item.locator(".gu-wb-tokens")).to_have_text(f"~{tokens:,} tok")
    expect(bench.locator(".gu-wb-total")).to_contain_text("tokens per request")
    page.run_code(
        "result = await gu.evaluate([('show a table of sales', 'Table'), "
        "('a chart of revenue', 'Chart'), ('hello', None)], components=list(BUILTINS), "
        "model=gu.DemoModel())\nwb.show_evaluation(result)"
    )
    evaluation = bench.locator('button.gu-wb-item[data-kind="evaluation"]')
    expect(evaluation).to_have_attribute("aria-current", "true", timeout=LONG_WAIT)
    detail = bench.locator(".gu-wb-detail")
    expect(detail.locator("table tbody tr")).to_have_count(3)
    expect(detail.locator(".gu-component svg").first).to_be_visible()
    assert detail.locator(".gu-component-error:visible").count() == 0
    page.page.set_viewport_size({"width": 1280, "height": 1700})
    try:
        bench.scroll_into_view_if_needed()
        page.page.mouse.move(0, 0)
        bench.screenshot(path=screenshots / "workbench-eval.png")
    finally:
        page.page.set_viewport_size({"width": 1280, "height": 900})


def test_a_python_components_preview_comes_from_the_kernel(bench: Locator) -> None:
    open_entry(bench, "Greeter")
    slot = bench.locator(".gu-wb-detail > .gu-wb-stage .gu-component")
    expect(slot.locator("strong")).not_to_have_count(0, timeout=LONG_WAIT)  # a generated name
    editor = bench.locator("textarea.gu-wb-editor")
    editor.fill('{"name": "Ada"}')
    expect(slot.locator("strong")).to_have_text("Ada", timeout=LONG_WAIT)
    assert slot.locator(".gu-component-error:visible").count() == 0
