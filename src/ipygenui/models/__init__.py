"""Models: what the loop asks a model or an agent, and the adapters.

The protocols and what they stream, for writing a model or an agent of
your own, are imported from here:

    from ipygenui.models import Model, ModelRequest, TextDelta

- ``base.py``: ``Model`` (a name and a ``stream`` method), ``ModelRequest``
  and the deltas a model streams (``TextDelta``, ``ReasoningDelta``,
  ``ToolCallDelta``, ``UsageDelta``, ``FinishDelta``; ``ModelDelta`` is their
  union).
- ``agent.py``: ``Agent``, a step source that runs its own loop
  (``gu.AGUIAgent`` is one), and its ``AgentRequest``.
- The adapters are at the top level: ``gu.model("provider:name")``,
  ``gu.OpenAIModel``, ``gu.ProviderModel``, ``gu.DemoModel``, and
  ``gu.record`` / ``gu.replay`` (``cassette/``: a model's steps to a file and
  back); test doubles are in ``ipygenui.testing``.

Importing this package loads the protocols only: no adapter, no provider SDK.
"""

from __future__ import annotations

from .agent import Agent, AgentRequest
from .base import (
    FinishDelta,
    FinishReason,
    Model,
    ModelDelta,
    ModelRequest,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)

__all__ = [
    "Agent",
    "AgentRequest",
    "FinishDelta",
    "FinishReason",
    "Model",
    "ModelDelta",
    "ModelRequest",
    "ReasoningDelta",
    "TextDelta",
    "ToolCallDelta",
    "UsageDelta",
]
