"""Measure the gateway's start-up and shutdown (not a test: tests never assert on speed).

    .venv/bin/python benchmarks/startup.py [--runs 5]

Prints, per run and as medians: Playwright MCP connect + tools/list (a person
waits for it before the first turn), cold start to the first snapshot of the practice
site (browser launch included), and close until no process uses the profile.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.browser.processes import processes_using_profile
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.settings import load_settings


async def one_run(workdir: Path, site: DemoflixServer) -> tuple[float, float, float]:
    """(connect + tools/list, start to first snapshot, close) in seconds."""
    plan = plan_launch(
        load_settings(), headless=True, profile_dir=workdir / "profile", runs_root=workdir
    )
    started = time.perf_counter()
    gateway = BrowserGateway(plan)
    await gateway.start()
    connected = time.perf_counter()
    await gateway.call("browser_navigate", {"url": f"{site.base_url}/login"})
    first_page = time.perf_counter()
    await gateway.close()
    leftover = processes_using_profile(plan.profile_dir)
    closed = time.perf_counter()
    assert not leftover, f"processes left behind: {leftover}"
    return connected - started, first_page - started, closed - first_page


async def main(runs: int) -> None:
    """Run and print the figures."""
    rows = []
    with DemoflixServer() as site, tempfile.TemporaryDirectory() as tmp:
        for index in range(runs):
            rows.append(await one_run(Path(tmp) / str(index), site))
            connect, first, close = rows[-1]
            print(
                f"run {index + 1}: connect+list {connect:.3f} s, "
                f"first snapshot {first:.3f} s, close {close:.3f} s"
            )
    for name, column in zip(
        ("connect+list", "first snapshot", "close"), zip(*rows, strict=True), strict=True
    ):
        print(f"median {name}: {statistics.median(column):.3f} s (max {max(column):.3f} s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    asyncio.run(main(parser.parse_args().runs))
