"""One table cell as a JSON value: the text the browser shows and the row
filter matches, shared by data references and the kernel-side filter."""

from __future__ import annotations

import contextlib
import math
from typing import Any


def json_cell(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", 1) == 0:
        try:
            return json_cell(item())
        except (ValueError, TypeError):
            pass
    with contextlib.suppress(Exception):
        if bool(value != value):  # NaT and friends are not equal to themselves
            return None
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)
