"""The one statistic the bench reports everywhere."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    """The median of ``values``; 0.0 for none."""
    return float(statistics.median(values)) if values else 0.0
