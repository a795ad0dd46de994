"""The folds kept over the per-message values (the joined request, the
thread's latest time, the component states reported) follow an edit, a branch
switch and a budget change as a fresh computation does: each keeps what the
last call kept and folds only the rest."""

from __future__ import annotations

from ipygenui.components.interactive import StateReports
from ipygenui.messages import Message, TextPart, Thread, ToolCallPart
from ipygenui.models.history import HistoryCache, to_openai_messages
from ipygenui.persistence.store import Latest
from ipygenui.tools.component_names import UI_TOOL_PREFIX, component_id_of


def _user(text: str, at: float = 0.0) -> Message:
    return Message(role="user", parts=[TextPart(text=text)], created_at=at)


def _reply(text: str, at: float = 0.0) -> Message:
    return Message(role="assistant", parts=[TextPart(text=text)], created_at=at)


def test_the_joined_request_follows_edits_branches_and_budgets() -> None:
    cache = HistoryCache()
    thread = [_user("a"), _reply("b"), _user("c"), _reply("d")]
    assert cache.messages(thread, "sys") == to_openai_messages(thread, "sys")
    thread[1] = _reply("b, edited")  # an edit in the middle
    assert cache.messages(thread, "sys") == to_openai_messages(thread, "sys")
    branch = [*thread[:2], _user("other")]  # a switch to a shorter branch
    assert cache.messages(branch) == to_openai_messages(branch)
    thread.append(_user("e"))  # back to the longer branch, one message more
    assert cache.messages(thread) == to_openai_messages(thread)
    assert cache.messages(thread, max_result_chars=5) == to_openai_messages(
        thread, max_result_chars=5
    )
    request = cache.messages(thread)
    request.append({"role": "user", "content": "a caller's own"})
    assert cache.messages(thread) == to_openai_messages(thread)  # the kept list is not lent


def test_the_latest_time_follows_an_edit_and_a_branch_switch() -> None:
    latest = Latest()
    thread = [_user("a", 1.0), _reply("b", 5.0), _user("c", 3.0)]
    assert latest.of(thread) == 5.0
    thread[1] = _reply("b, edited", 2.0)  # the newest replaced by an older one
    assert latest.of(thread) == 3.0
    assert latest.of(thread[:1]) == 1.0  # a branch switch to a shorter branch
    assert latest.of([*thread, _reply("d", 9.0)]) == 9.0
    assert latest.of([]) == 0.0


def _shown(call_id: str, state: dict[str, int]) -> Message:
    part = ToolCallPart(tool_call_id=call_id, tool_name=UI_TOOL_PREFIX + "counter", args={})
    part.component_state = state
    return Message(role="assistant", parts=[part])


def test_the_states_reported_follow_a_branch_switch() -> None:
    reports = StateReports()
    shown = _shown("call_1", {"n": 1})
    told = _user("saw it")
    told.metadata["component_state"] = {component_id_of("call_1"): {"state": {"n": 1}}}
    thread = Thread(messages=[_user("show"), shown, told])
    assert reports.unreported(thread) == {}
    thread.messages = thread.messages[:2]  # a branch where the state was not reported
    assert list(reports.unreported(thread)) == [component_id_of("call_1")]
    thread.messages = [*thread.messages, told]
    assert reports.unreported(thread) == {}
