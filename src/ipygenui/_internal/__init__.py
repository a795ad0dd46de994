"""Helpers of several layers at once (internal: no stable API).

Each module here has users in more than one layer (or is the private part of
a root module, which has no package of its own), so none of them imports
another's internals: ``sanitize`` (JSON-safe values, clean text),
``standard_params`` (the parameters every tool call may carry: tools, the
loop, the demo model, the widget), ``patch_ops`` (the streaming ops: events,
the loop, the widget), ``loop_clients`` (HTTP clients per event loop: the
runtime, the OpenAI model, the AG-UI client), ``jsonable`` (a tool's return
value as JSON: tools, data, components), ``partial_json`` (streamed
arguments: the loop, the workbench), ``user_view`` (a result's ``for_user``
entry: the history, AG-UI, MCP), ``worker_threads`` (sync calls in threads
of their own: tools, the loop, components, the widget), ``figure_style``
(tools, components), ``decision_text`` and ``message_display`` (how
``messages`` and the transcript show a thread), ``wire_codegen`` (the
generated wire protocols: the widget, the workbench). They import nothing of the
package (``tests/project/test_layers.py``), so every layer may import them. A helper
with one user lives beside it (``tools/_signature.py``, ``mcp/_connection.py``).
"""
