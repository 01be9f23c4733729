"""Which process ran a run, so an interrupted run can be told from one still going."""

from __future__ import annotations

from pathlib import Path


def process_started(pid: int) -> float | None:
    """When ``pid`` started (clock ticks since boot, from /proc), or None when it is gone.

    The start time tells a run's own process from a later one that reused its pid.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its ")".
    fields = stat.rsplit(")", 1)[-1].split()
    try:
        return float(fields[19])
    except (IndexError, ValueError):
        return None


def still_running(pid: int | None, started: float | None) -> bool:
    """Whether the process that started a run is alive (the same process, not a reused pid)."""
    if pid is None:
        return False
    now = process_started(pid)
    return now is not None and (started is None or now == started)
