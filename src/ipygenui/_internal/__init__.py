"""Helpers of several public layers at once (internal: no stable API).

``tools``, ``persistence``, the widget layer and the loop use them, so none
of those imports another's internals. All but ``argument_checks`` import
nothing else of the package: ``sanitize`` (JSON-safe values, clean text),
``tool_signature`` (a function's parameters as a pydantic model),
``standard_params`` (the parameters every tool call may carry),
``patch_ops`` (the streaming ops) and ``tool_threads`` (sync tools in
threads of their own). ``argument_checks`` checks the constructor arguments
of ``Runtime`` and ``Chat``. None imports the loop, the runtime or the widget
(``tests/test_layers.py``).
"""
