"""The system prompt: two kinds of tools, instructions, interactables' state."""

from __future__ import annotations

from ipygenui.runtime.prompts import render_template, system_prompt


def test_prompt_teaches_both_kinds_of_tools_and_status_parameters() -> None:
    prompt = system_prompt()
    assert "show_component_<Name>" in prompt
    assert "Information tools" in prompt
    assert "_status_message" in prompt
    assert "_completion_status_message" in prompt
    assert "{" not in prompt  # every template variable was filled


def test_component_names_are_listed_as_ui_tools() -> None:
    prompt = system_prompt(component_names=["Weather", "Table"])
    assert "show_component_Weather, show_component_Table" in prompt


def test_instructions_with_braces_stay_literal() -> None:
    text = "Answer in {language}; never expand {custom_instructions} or {components}."
    prompt = system_prompt(text)
    assert text in prompt
    assert prompt.count(text) == 1


def test_prompt_explains_component_state_tags_and_stays_stable() -> None:
    prompt = system_prompt(component_names=["Form"])
    assert "<component_state>" in prompt and "never write these tags" in prompt
    assert prompt == system_prompt(component_names=["Form"])  # same every turn: cacheable


def test_render_template_is_one_pass_and_leaves_unknown_names() -> None:
    out = render_template("{a} {b} {c}", {"a": "{b}", "b": "B"})
    assert out == "{b} B {c}"
