"""Test doubles: models that reply from a script, for tests and examples
without an API key (as ``pydantic_ai.models.test`` holds ``TestModel``).

    from ipygenui.testing import ScriptedCall, ScriptedModel

    model = ScriptedModel([ScriptedCall("get_weather", {"city": "Paris"}), "It is sunny."])
    rt = gu.Runtime(model=model, tools=[get_weather])

``ScriptedModel`` replays its script (``Script``: one reply per model step,
a reply picked by a keyword of the user's message, or a function of the
request); a reply (``ReplyLike``) is a string (text), a ``ScriptedCall`` or
several (tool calls) or a ``ScriptedReply`` (text, calls, reasoning, usage, a
finish reason or an error). It keeps the requests it was sent
(``model.requests``). ``last_user_text(request)`` is the text a script
function usually decides on; ``components_reply(request)`` is what the
offline demo says after the components it showed (a sentence each, from their
props), for a script's answer to their results, and
``form_submission_reply(text)`` its answer to a submitted ``gu.Form``.
``cassette(path, model)`` records a real model's answers on a test's first
run and replays them afterwards (``IPYGENUI_RECORD=1`` records again). It is a
model adapter like the others (``models/scripted.py``); this module is where it
is imported from.
"""

from __future__ import annotations

from .models.cassette.vcr import RECORD_ENV, cassette
from .models.demo_components import components_reply
from .models.demo_forms import form_submission_reply
from .models.scripted import (
    ReplyLike,
    Script,
    ScriptedCall,
    ScriptedModel,
    ScriptedReply,
    last_user_text,
)

__all__ = [
    "RECORD_ENV",
    "ReplyLike",
    "Script",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedReply",
    "cassette",
    "components_reply",
    "form_submission_reply",
    "last_user_text",
]
