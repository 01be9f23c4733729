"""CPU seconds by test module, children included (a pytest plugin; not a test).

    PYTHONPATH=. .venv/bin/pytest -p benchmarks.module_cpu -m "not slow" -n 5 --dist worksteal

Pytest's durations are wall time, and on this 2-core machine a test that waits (a timer,
a hung browser it proves is noticed) looks as slow as one that computes, though the other
workers use the cores meanwhile: the suite is bounded by CPU. This plugin moves each
worker, and the warm interpreters it forks the CLI and serve children from
(``tests/support/warm_children.py``), into a control group of the module whose test it
is about to run; every process started from then on (Playwright MCP, Chromium, CLI and
serve children) counts there, to its last child, exited or not. At the end the table is
written to ``build/module-cpu.txt``, the modules with the most CPU first.

Needs root and the cgroup v1 ``cpuacct`` hierarchy (``/sys/fs/cgroup/cpuacct``); without
them it says so once and measures nothing. Figures taken under five workers on two cores
are about half again what the same module spends alone (the gauntlet's trap runs: 126 CPU
s in a run of the suite, 83 on their own): compare figures taken the same way.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

import pytest

from subterminator_tui.browser.processes import process_table

CPUACCT = Path("/sys/fs/cgroup/cpuacct")
GROUPS = CPUACCT / "subterminator-module-cpu"
REPORT = Path("build/module-cpu.txt")


def _group_of(module: str) -> Path:
    return GROUPS / re.sub(r"[^A-Za-z0-9_.]", "_", module)


def _warm_interpreters(parent: int) -> list[int]:
    """The warm interpreters ``parent`` started: their forks are its CLI and serve children."""
    return [
        row.pid
        for row in process_table()
        if row.ppid == parent and "warm_children.py" in row.cmdline
    ]


class ModuleCpu:
    """Moves this process into its module's group as each module starts."""

    def __init__(self) -> None:
        self.module: str | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        module = item.nodeid.split("::")[0]
        if module == self.module:
            return
        self.module = module
        group = _group_of(module)
        group.mkdir(parents=True, exist_ok=True)
        for pid in (os.getpid(), *_warm_interpreters(os.getpid())):
            try:
                (group / "cgroup.procs").write_text(str(pid))
            except OSError:
                continue  # gone since it was listed


def pytest_configure(config: pytest.Config) -> None:
    if not (CPUACCT / "cpuacct.usage").exists() or os.geteuid() != 0:
        if not hasattr(config, "workerinput"):
            print("module_cpu: needs root and /sys/fs/cgroup/cpuacct; nothing measured")
        return
    if not hasattr(config, "workerinput"):
        _clear()
    config.pluginmanager.register(ModuleCpu(), "module-cpu")


def _clear() -> None:
    """Remove the last measurement's groups (each empty once its processes ended)."""
    if GROUPS.exists():
        for group in GROUPS.iterdir():
            if group.is_dir():
                # A process of the last measurement still in it: its group stays.
                with contextlib.suppress(OSError):
                    group.rmdir()
    GROUPS.mkdir(exist_ok=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not GROUPS.exists():
        return
    rows = sorted(
        (
            (int((group / "cpuacct.usage").read_text()) / 1e9, group.name)
            for group in GROUPS.iterdir()
            if group.is_dir()
        ),
        reverse=True,
    )
    REPORT.parent.mkdir(exist_ok=True)
    lines = [f"{seconds:8.1f}  {name}" for seconds, name in rows]
    lines.append(f"{sum(seconds for seconds, _ in rows):8.1f}  all modules")
    REPORT.write_text("\n".join(lines) + "\n")
    print(f"module_cpu: {REPORT} ({len(rows)} modules)")
