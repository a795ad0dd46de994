"""Who decided a gated call, in words (the call card says the same in
``js/src/tool-card/tool-card.js``'s ``decisionLine``): for a thread's transcript and
its display in the notebook."""

from __future__ import annotations

from typing import Any

_APPROVED_BY = {
    "user": "approved by you",
    "code": "approved from code",
    "grant": "approved by an always-allow rule",
    "client": "approved by the AG-UI client",
}
_REJECTED_BY = {
    "user": "rejected by you",
    "code": "rejected from code",
    "client": "rejected by the AG-UI client",
}


def decision_text(approval: Any) -> str:
    """``"approved by you, edited"``, ``"rejected by you: too big"``; "" while
    the call waits, or when the file did not record who decided."""
    if approval is None:
        return ""
    by = getattr(approval, "decided_by", None)
    if approval.status == "approved" and by in _APPROVED_BY:
        edited = ", edited" if getattr(approval, "edited", False) and by != "grant" else ""
        return _APPROVED_BY[by] + edited
    if approval.status == "rejected" and by in _REJECTED_BY:
        reason = f": {approval.reason}" if approval.reason else ""
        return _REJECTED_BY[by] + reason
    return ""
