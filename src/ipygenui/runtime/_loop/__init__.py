"""The run loop and what only it uses (internal: no stable API).

A run is driven by ``run_loop`` (roundtrips until ``goes_on`` says stop,
``ipygenui.runtime.continuation``), which chooses each step's
``toolset`` and runs its tool phase with ``tool_runner``; ``decisions``
applies the user's approve / reject / answer, ``ending`` gives a message its
final status, ``run_events`` tells the views, ``accumulator`` turns model
deltas into parts and patch ops (``_internal/partial_json.py`` parses the
streamed arguments), ``models/history.py`` and ``runtime/prompts.py`` build
the model's input, ``tool_choice`` and ``suggestions`` shape single
requests. ``Runtime`` (``ipygenui.runtime``) is the public face of all of it.
"""
