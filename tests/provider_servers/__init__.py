"""Local servers speaking three native provider wire formats, for tests and
benchmarks: Anthropic Messages (``anthropic.py``), Gemini
``streamGenerateContent`` (``gemini.py``) and the OpenAI Responses API
(``responses.py``). Each is built from recordings public projects made
against the real APIs (``recordings/``, sources and licences in
``recordings/SOURCES.md``) and answers a request that drops its provider's
data with that provider's real HTTP 400.

In a test::

    from provider_servers import AnthropicServer, Call, Turn

    with AnthropicServer() as server:
        server.script(Turn(reasoning="...", calls=[Call("add", {"a": 1, "b": 2})]))
        ...  # point the provider's SDK (or gu.model(...)) at server.base_url
"""

from __future__ import annotations

from ._http import Call, ProviderServer, Turn
from .anthropic import AnthropicServer
from .gemini import GeminiServer
from .responses import ResponsesServer

SERVERS: dict[str, type[ProviderServer]] = {
    "anthropic": AnthropicServer,
    "gemini": GeminiServer,
    "responses": ResponsesServer,
}

__all__ = ["SERVERS", "AnthropicServer", "Call", "GeminiServer", "ResponsesServer", "Turn"]
