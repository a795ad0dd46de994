"""The rows of a table whose cells hold a filter text, as the browser's Table
filters the rows it holds (``js/src/components/table.js``: ``filterRows``).

A cell matches when the filter, lower-cased, is part of the cell's text as
the browser has it (a number as JavaScript's ``String`` writes it) or as the
Table shows it (a number with thousands separators and at most three
decimals, the ``en`` way). The filter is plain text: no pattern, no regex.

Each column is factorized first, so a value repeated a million times is
turned into text once; a column of values that cannot be hashed (lists,
dicts, sent as their ``str``) is read cell by cell.
"""

from __future__ import annotations

import math
from typing import Any

from ._json_cells import json_cell

__all__ = ["cell_texts", "matching_mask"]


def _js_number(value: float) -> str:
    """``String(value)`` in JavaScript: ``1.0`` -> ``1``, ``1e-05`` -> ``0.00001``."""
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if 1e-6 <= abs(value) < 1e21:
        import numpy as np

        return str(np.format_float_positional(value, trim="-"))
    mantissa, _, exponent = repr(value).partition("e")
    return f"{mantissa}e{int(exponent):+d}"


def _shown_number(value: float) -> str:
    """``value.toLocaleString("en")``: grouped, at most three decimals."""
    if isinstance(value, int):
        return f"{value:,}"
    text = f"{value:,.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def cell_texts(value: Any) -> tuple[str, ...]:
    """The lower-case texts a cell may match: as sent to the browser and as shown."""
    cell = json_cell(value)
    if cell is None:
        return ()
    if isinstance(cell, bool):
        return ("true" if cell else "false",)
    if isinstance(cell, int):
        return (str(cell), _shown_number(cell))
    if isinstance(cell, float):
        if not math.isfinite(cell):
            return ()
        return (_js_number(cell), _shown_number(cell))
    return (str(cell).lower(),)  # text, and whatever else as the browser gets it (its str)


def _hits(value: Any, query: str) -> bool:
    return any(query in text for text in cell_texts(value))


def _column_mask(column: Any, query: str) -> Any:
    import numpy as np
    import pandas as pd

    try:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists, dicts): read each one
        return np.fromiter((_hits(v, query) for v in column), dtype=bool, count=len(column))
    if getattr(column.dtype, "kind", "") in "iu" and "," not in query:
        # whole numbers: a comma-free text is in the shown form ("1,234") only
        # where it is in the digits, so the digits alone decide, in one C loop
        digits = np.asarray(uniques).astype(str)
        found = np.char.find(digits, query) >= 0
    else:
        found = np.fromiter((_hits(u, query) for u in uniques), dtype=bool, count=len(uniques))
    found = np.append(found, False)  # code -1 (a missing cell) indexes this: never a match
    return found[codes]


def matching_mask(frame: Any, query: str) -> Any:
    """A boolean array: which rows of the pandas ``frame`` hold ``query`` in some cell."""
    import numpy as np

    needle = query.strip().lower()
    mask = np.zeros(len(frame), dtype=bool)
    if not needle:
        mask[:] = True
        return mask
    for position in range(frame.shape[1]):
        mask |= _column_mask(frame.iloc[:, position], needle)
    return mask
