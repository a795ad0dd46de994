"""The fault matrix and the security page's figures (docs/guides/security.md) are current."""

from __future__ import annotations

import pytest

from fault_matrix import AREAS, collected_counts, expected_texts, replace_block, unassigned


@pytest.fixture(scope="module")
def counts():
    return collected_counts()


def test_every_fault_file_is_in_one_area(counts):
    assert counts, "pytest collected no fault tests"
    assert unassigned(counts) == []
    named = [f for area in AREAS for f in area.files]
    assert len(named) == len(set(named)), "a fault file is named by two areas"


def test_the_matrix_and_the_security_page_are_up_to_date(counts):
    for path, expected in expected_texts(counts).items():
        assert path.read_text(encoding="utf-8") == expected, (
            f"{path.name} is stale: run `python tests/fault_matrix.py` and commit the result"
        )


def test_a_block_is_replaced_whole_and_a_missing_one_is_an_error():
    text = "a\n<!-- x:start -->\nold\nlines\n<!-- x:end -->\nb"
    assert replace_block(text, "x", "new") == "a\n<!-- x:start -->\nnew\n<!-- x:end -->\nb"
    with pytest.raises(ValueError, match="x:start"):
        replace_block("no block here", "x", "new")
