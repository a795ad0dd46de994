"""Helpers shared by several public layers (internal: no stable API).

They sit below ``tools``, ``persistence``, the widget layer and the loop
alike, so none of those has to import another's internals:
``sanitize`` (JSON-safe values, clean text), ``argument_checks`` (the
constructor arguments of ``Runtime`` and ``Chat``), ``tool_signature``
(a function's parameters as a pydantic model), ``standard_params`` (the
parameters every tool call may carry), ``patch_ops`` (the streaming ops)
and ``tool_threads`` (sync tools in threads of their own).
"""
