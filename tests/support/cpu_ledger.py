"""CPU seconds per test, the worker's own and its reaped children's, for finding slow tests.

Wall time on a shared machine says more about the neighbours than about the test; the CPU
a test spends (its browser, Playwright MCP, a serve child) is what the suite's length is
made of. Off unless ``SUBTERMINATOR_TEST_CPU_LOG`` names a directory: each worker then
appends ``nodeid<TAB>cpu seconds<TAB>wall seconds`` lines to its own file there, and
``scripts/test_cpu_report.py`` sums them per test and per file.

The worker's children (Playwright MCP, Chromium and its helpers, serve children) are
read from /proc by a thread every :data:`SAMPLE_SECONDS`, since a browser killed with its
process group is never reaped into the worker's ``RUSAGE_CHILDREN``: a process that ends
between two looks loses at most that long of its CPU. A module-scoped browser's time lands
on the tests that run while it works. The looks cost CPU of their own (counted in the
worker's), roughly in proportion to wall time on a busy machine: compare two ledgers
taken the same way, not a ledger with ``/usr/bin/time``.
"""

from __future__ import annotations

import os
import resource
import threading
import time
from pathlib import Path

#: The environment variable naming the directory the ledger is written to.
LEDGER_VARIABLE = "SUBTERMINATOR_TEST_CPU_LOG"


def ledger_directory() -> Path | None:
    """Where to write the ledger, or None when it is off."""
    named = os.environ.get(LEDGER_VARIABLE)
    return Path(named) if named else None


#: How often the worker's descendants are looked at.
SAMPLE_SECONDS = 0.2
_TICKS = os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, int, int]]:
    """Every process: its parent, its start time and its CPU ticks (user and system)."""
    found: dict[int, tuple[int, int, int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                text = stat.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        # After the name: state, ppid, ... utime (14th of stat), stime, ..., starttime (22nd).
        found[int(entry)] = (int(fields[1]), int(fields[19]), int(fields[11]) + int(fields[12]))
    return found


class DescendantCpu:
    """The CPU this process's descendants have spent since it started looking."""

    def __init__(self) -> None:
        self._last: dict[tuple[int, int], int] = {}
        self._ticks = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._watch, name="cpu-ledger", daemon=True).start()

    def _watch(self) -> None:
        while True:
            self.look()
            time.sleep(SAMPLE_SECONDS)

    def look(self) -> float:
        """Look now; every descendant's CPU seen so far, in seconds."""
        processes = _processes()
        children: dict[int, list[int]] = {}
        for pid, (parent, _, _) in processes.items():
            children.setdefault(parent, []).append(pid)
        pending, tree = [os.getpid()], []
        while pending:
            for child in children.get(pending.pop(), []):
                tree.append(child)
                pending.append(child)
        with self._lock:
            for pid in tree:
                _, started, ticks = processes[pid]
                key = (pid, started)
                self._ticks += max(0, ticks - self._last.get(key, 0))
                self._last[key] = ticks
            return self._ticks / _TICKS


_DESCENDANTS: DescendantCpu | None = None


def cpu_seconds() -> float:
    """User and system CPU of this process and of every descendant seen so far."""
    global _DESCENDANTS
    if _DESCENDANTS is None:
        _DESCENDANTS = DescendantCpu()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime + _DESCENDANTS.look()


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
