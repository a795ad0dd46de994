"""MCP ``CallToolResult`` -> a tool result, for ``ipygenui.mcp``.

Structured content when the server gives it, else the text blocks joined;
images as ``{"type": "image", "mime_type", "src": "data:..."}`` entries (the
tool card shows them); other blocks summarised; an ``isError`` result raises
``ToolError`` so the model reads it as an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._internal.sanitize import clean_text
from .._internal.user_view import FOR_USER
from ..tools import ToolError

if TYPE_CHECKING:
    from mcp.types import CallToolResult

__all__ = ["USER_ONLY_NOTE", "result_value"]

USER_ONLY_NOTE = "The result is for the user only: it is shown to them, not to you."


def _for_user_only(block: Any) -> bool:
    """A block the server annotated for the user alone (``audience: ["user"]``)."""
    annotations = getattr(block, "annotations", None)
    audience = getattr(annotations, "audience", None)
    return audience is not None and list(audience) == ["user"]


def _blocks(content: list[Any]) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """The text blocks, images (data: URLs) and other content of ``content``."""
    from mcp import types

    texts: list[str] = []
    images: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
        elif isinstance(block, types.ImageContent):
            images.append(
                {
                    "type": "image",
                    "mime_type": block.mime_type,
                    "src": f"data:{block.mime_type};base64,{block.data}",
                }
            )
        elif isinstance(block, types.AudioContent):
            others.append(
                {"type": "audio", "mime_type": block.mime_type, "base64_length": len(block.data)}
            )
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            entry: dict[str, Any] = {
                "type": "resource",
                "uri": str(resource.uri),
                "mime_type": resource.mime_type,
            }
            if isinstance(resource, types.TextResourceContents):
                entry["text"] = resource.text
            else:
                entry["base64_length"] = len(getattr(resource, "blob", ""))
            others.append(entry)
        elif isinstance(block, types.ResourceLink):
            others.append({"type": "resource_link", "uri": str(block.uri), "name": block.name})
        else:
            others.append({"type": str(getattr(block, "type", type(block).__name__))})
    return texts, images, others


def result_value(result: CallToolResult) -> Any:
    """A tool result from an MCP ``CallToolResult``; ``ToolError`` when it is an error.

    Structured content when present, else the text blocks joined (a plain
    string when that is all); images and other blocks ride along in a dict.
    Blocks for the user only go in its ``for_user`` entry: the card shows
    them, the model does not read them.
    """
    texts, images, others = _blocks([b for b in result.content if not _for_user_only(b)])
    shown = _user_view([b for b in result.content if _for_user_only(b)])
    text = "\n".join(texts)
    if result.is_error:
        raise ToolError({"error": clean_text(text) or "the tool failed and said nothing more"})
    structured = result.structured_content
    if not images and not others and not shown:
        return structured if structured is not None else text
    value: dict[str, Any] = {}
    if structured is not None:
        value["structured"] = structured
    elif text:
        value["text"] = text
    elif not images and not others:  # the model reads that it was answered, not a bare {}
        value["text"] = USER_ONLY_NOTE
    if images:
        value["images"] = images
    if others:
        value["content"] = others
    if shown:
        value[FOR_USER] = shown
    return value


def _user_view(content: list[Any]) -> dict[str, Any]:
    """What the card alone shows of ``content`` (empty when nothing)."""
    texts, images, others = _blocks(content)
    view: dict[str, Any] = {}
    if texts:
        view["text"] = "\n".join(texts)
    if images:
        view["images"] = images
    if others:
        view["content"] = others
    return view
