"""The harness itself: a notebook opens, runs, and kernel state can be read back."""

from __future__ import annotations

import pytest

from .harness import CellError

pytestmark = pytest.mark.e2e


def test_run_all_then_read_kernel_state(open_lab):
    lab = open_lab("e2e/harness_smoke.ipynb")
    lab.run_all()
    assert lab.run_code("print(value)").strip() == "42"
    assert lab.run_json("{'v': value * 2}") == {"v": 84}
    with pytest.raises(CellError, match="ZeroDivisionError"):
        lab.run_code("1 / 0")
