"""AG-UI, internal: the emitter (thread events -> AG-UI events), the protocol's
sequence rules, the message conversion, the client of external agents and the
ASGI app. Everything here imports ``ag_ui``, so only code that uses AG-UI
imports this package (``ipygenui.agui`` is its public face)."""
