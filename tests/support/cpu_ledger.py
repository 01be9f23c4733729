"""CPU seconds per test, the worker's own and its reaped children's, for finding slow tests.

Wall time on a shared machine says more about the neighbours than about the test; the CPU
a test spends (its browser, Playwright MCP, a serve child) is what the suite's length is
made of. Off unless ``SUBTERMINATOR_TEST_CPU_LOG`` names a directory: each worker then
appends ``nodeid<TAB>cpu seconds<TAB>wall seconds`` lines to its own file there, and
``scripts/test_cpu_report.py`` sums them per test and per file.

A child's CPU is counted when it is reaped, so a module-scoped browser's time lands on
the module's last test (per file the sum is right).
"""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

#: The environment variable naming the directory the ledger is written to.
LEDGER_VARIABLE = "SUBTERMINATOR_TEST_CPU_LOG"


def ledger_directory() -> Path | None:
    """Where to write the ledger, or None when it is off."""
    named = os.environ.get(LEDGER_VARIABLE)
    return Path(named) if named else None


def cpu_seconds() -> float:
    """User and system CPU of this process and every child it has reaped so far."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


class CpuLedger:
    """Measures one test at a time and appends its line to this worker's file."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.path = directory / f"cpu-{worker}-{os.getpid()}.tsv"

    def record(self, nodeid: str, cpu: float, wall: float) -> None:
        """Append one test's figures."""
        with self.path.open("a", encoding="utf-8") as ledger:
            ledger.write(f"{nodeid}\t{cpu:.3f}\t{wall:.3f}\n")


def measure_start() -> tuple[float, float]:
    """The CPU and wall clocks now, to subtract from later."""
    return cpu_seconds(), time.monotonic()
