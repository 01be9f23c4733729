"""The bench reports how long calls waited for a page's own data: p50, p95, max, per run."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from subterminator_bench.report import percentile, summarize
from subterminator_bench.runner import Measurement


def measured(scenario: str, settles: list[float]) -> Measurement:
    """A run of ``scenario`` whose calls waited ``settles`` seconds (other figures zero)."""
    values: dict[str, Any] = {}
    for item in fields(Measurement):
        if item.name in ("scenario", "config", "pilot", "reason"):
            values[item.name] = "ours" if item.name == "config" else scenario
        elif item.type in ("bool",):
            values[item.name] = True
        elif item.type in ("int", "float"):
            values[item.name] = 0
    values.update(model=None, expected=None, cost=None, scripted=True, settles=settles)
    return Measurement(**values)


def test_the_settle_figures_cover_every_wait_and_the_longest_run() -> None:
    """Waits of 10 runs: the median, the 95th percentile, the longest, the worst run's sum."""
    runs = [measured("a", [0.1, 0.2, 0.3]), measured("b", [0.4] * 6), measured("c", [])]
    summary = summarize(runs, "ours")
    assert round(summary.settle_ms_p50) == 400
    assert round(summary.settle_ms_p95) == 400
    assert round(summary.settle_ms_max) == 400
    assert round(summary.settle_ms_max_per_run) == 2400


def test_percentile_takes_the_nearest_rank() -> None:
    """1..20: the median is 10, the 95th percentile 19; nothing measured is 0."""
    values = [float(n) for n in range(1, 21)]
    assert (percentile(values, 0.5), percentile(values, 0.95), percentile([], 0.5)) == (
        10.0,
        19.0,
        0.0,
    )
