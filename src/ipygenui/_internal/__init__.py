"""Helpers of several layers at once (internal: no stable API).

Each module here has users in more than one layer, so none of them imports
another's internals: ``sanitize`` (JSON-safe values, clean text),
``standard_params`` (the parameters every tool call may carry: tools, the
loop, the demo model, the widget), ``patch_ops`` (the streaming ops: events,
the loop, the widget), ``loop_clients`` (HTTP clients per event loop: the
runtime, the OpenAI model, the AG-UI client) and ``attachment_files``
(attached files on disk: attachments and persistence). They import nothing
else of the package but ``messages`` (``tests/test_layers.py``). A helper
with one user lives beside it (``tools/_signature.py``, ``mcp/_connection.py``).
"""
