"""``subterminator doctor``: what SubTerminator found on this machine, and what to fix."""

from __future__ import annotations

import argparse
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from subterminator_tui.browser.discovery import find_browser, install_command, running_as_root
from subterminator_tui.browser.launch import display_available
from subterminator_tui.browser.node import find_node, find_playwright_mcp, pinned_version
from subterminator_tui.browser.private_devtools import devtools_report
from subterminator_tui.browser.profile_lock import read_lock
from subterminator_tui.errors import ConfigurationError, SubTerminatorError
from subterminator_tui.rules import load_services, user_services_file
from subterminator_tui.settings import config_file, load_settings

#: Keys are reported as set or not set, never shown.
API_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")


@dataclass(frozen=True)
class Check:
    """One line of the report."""

    name: str
    ok: bool
    detail: str
    essential: bool = True


def _guard(name: str, probe: Callable[[], str]) -> Check:
    try:
        return Check(name, True, probe())
    except (SubTerminatorError, OSError) as error:
        return Check(name, False, str(error))


def _browser_version(path: str) -> str:
    try:
        output = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=20, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return output.strip().splitlines()[0] if output.strip() else ""


def _describe_node() -> str:
    node = find_node()
    return f"{node.version_text} at {node.executable}"


def gather_checks() -> list[Check]:
    """Every check, in the order the report prints them."""
    settings = load_settings()
    checks = [
        _guard("Node.js", _describe_node),
        _guard(
            "Playwright MCP",
            lambda: f"@playwright/mcp {find_playwright_mcp().version} (pinned {pinned_version()})",
        ),
    ]
    try:
        browser = find_browser(settings.browser)
    except ConfigurationError as error:
        checks.append(Check("Browser", False, str(error)))
    else:
        if browser is None:
            checks.append(Check("Browser", False, f"none found; install with: {install_command()}"))
        else:
            version = _browser_version(str(browser))
            checks.append(
                Check("Browser", True, f"{browser}" + (f" ({version})" if version else ""))
            )
    sandbox = (
        "off: running as root, so Chromium gets --no-sandbox"
        if running_as_root()
        else "on (Chromium's own sandbox)"
    )
    checks.append(Check("Sandbox", True, sandbox, essential=False))
    private, devtools = devtools_report()
    checks.append(Check("DevTools", private, devtools, essential=False))
    egress = "a per-run proxy; private and loopback addresses only when allowed_domains names them"
    checks.append(Check("Egress filter", True, egress, essential=False))
    headless = settings.headless if settings.headless is not None else not display_available()
    checks.append(
        Check("Window", True, "headless (no display)" if headless else "headed", essential=False)
    )
    profile = settings.resolved_profile_dir()
    lock = read_lock(profile)
    lock_text = f"locked by {lock[0]} pid {lock[1]}" if lock else "not locked"
    checks.append(Check("Profile", True, f"{profile} ({lock_text})", essential=False))
    for key in API_KEYS:
        state = "set" if os.environ.get(key) else "not set"
        checks.append(Check(key, True, state, essential=False))
    checks.append(Check("Config file", True, str(config_file()), essential=False))
    checks.append(
        _guard(
            "Services",
            lambda: f"{len(load_services())} services (user file: {user_services_file()})",
        )
    )
    return checks


def run_doctor(_args: argparse.Namespace) -> int:
    """Print the report; exit 2 when something essential is missing."""
    try:
        checks = gather_checks()
    except SubTerminatorError as error:
        print(f"error: {error}")
        return error.exit_code
    width = max(len(check.name) for check in checks)
    for check in checks:
        # A missing non-essential part is a warning: runs still work, less safely.
        mark = "ok " if check.ok else ("FAIL" if check.essential else "warn")
        print(f"[{mark}] {check.name:<{width}}  {check.detail}")
    return 0 if all(check.ok for check in checks if check.essential) else 2
