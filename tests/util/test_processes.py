"""jtau.util.processes: work in worker processes, results in the items' order."""

from __future__ import annotations

import pytest

from jtau.util.processes import in_processes


def _square_or_fail(n: int) -> int:
    if n == 3:
        raise ValueError("three")
    return n * n


def test_results_come_in_the_items_order_and_a_failure_raises_at_its_turn():
    done = []
    futures = in_processes(_square_or_fail, [(n,) for n in range(6)], 2, lambda: done.append(1))
    assert len(done) == 5  # every item but the failed one
    assert [f.result() for f in futures[:3]] == [0, 1, 4]
    with pytest.raises(ValueError, match="three"):
        futures[3].result()
    assert futures[5].result() == 25
