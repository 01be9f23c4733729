"""Launch plans with fixed paths, for tests that check a command line without starting it."""

from __future__ import annotations

from pathlib import Path

from subterminator_tui.browser.launch import LaunchPlan
from subterminator_tui.browser.node import NodeRuntime, PlaywrightMCPPackage

#: Where the pinned Playwright MCP's entry point sits in these plans.
CLI = Path("/opt/node_modules/@playwright/mcp/cli.js")


def make_plan(tmp_path: Path, *, headless: bool = True, no_sandbox: bool = False) -> LaunchPlan:
    """A plan with fixed paths; nothing is started."""
    return LaunchPlan(
        node=NodeRuntime(executable=Path("/usr/bin/node"), version=(20, 20, 2)),
        package=PlaywrightMCPPackage(cli=CLI, version="0.0.83"),
        browser=Path("/usr/bin/chromium"),
        profile_dir=tmp_path / "profile",
        run_dir=tmp_path / "runs" / "run-1",
        headless=headless,
        no_sandbox=no_sandbox,
    )
