"""The servers compared, each started the way its documentation says, for one scenario.

- ``subterminator``: ``subterminator serve`` over stdio with its own tools, the scenario's
  practice site given by ``--practice-url``, one session opened at start, and a scripted
  operator on a pseudo-terminal (operator.py).
- ``subterminator-playwright``: the same command with ``--tools playwright``, its
  Playwright-compatible tool profile, driven by the unchanged Playwright dialect.
- ``playwright-mcp``: the pinned ``@playwright/mcp`` with the flags its README gives for
  safety: ``--allowed-origins`` (the site's origin only), ``--block-service-workers``,
  ``--isolated`` (a profile in memory), ``--headless``, Debian's Chromium.
- ``chrome-devtools-mcp``: the pinned ``chrome-devtools-mcp``, ``--isolated``,
  ``--headless``, Debian's Chromium, no usage statistics or CrUX lookups (nothing leaves
  for Google), no JavaScript evaluation, and ``--allowedUrlPattern`` for the site's
  origin, its own documented counterpart of ``--allowed-origins``.

As root Chromium refuses its sandbox, so each gets ``--no-sandbox`` then only, as
SubTerminator's own launch does.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from mcp import StdioServerParameters

from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_bench.peers.dialects import (
    DevToolsDialect,
    Dialect,
    PlaywrightDialect,
    ServeDialect,
)
from subterminator_tui.browser.discovery import find_browser, running_as_root
from subterminator_tui.browser.node import find_node, find_playwright_mcp
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.resources import node_project_dir
from subterminator_tui.rules import ServiceConfig
from subterminator_tui.serve.names import LOCAL_PRINCIPAL

DEVTOOLS_PACKAGE = "chrome-devtools-mcp"
#: The session serve opens at start for the agent (``--session``).
SERVE_SESSION = "main"


@dataclass(frozen=True)
class Launch:
    """Where one scenario's server runs: its site, its folder, its operator's terminal."""

    site_url: str
    service: ServiceConfig
    workdir: Path
    operator_tty: str = ""
    #: A saved sign-in the person made, for a server that starts sessions from one.
    sign_in: Path | None = None

    @property
    def origin(self) -> str:
        """The site's origin (``http://127.0.0.1:PORT``)."""
        parts = urlsplit(self.site_url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def serve_profile(self) -> Path:
        """The profile of serve's session browser, where the person finds its window."""
        return self.workdir / "profiles" / LOCAL_PRINCIPAL / SERVE_SESSION / "profile"


@dataclass(frozen=True)
class PeerServer:
    """One server of the comparison: its name, how it starts, the dialect it speaks."""

    name: str
    #: What the table says the server is.
    label: str
    dialect: type[Dialect]
    parameters: Callable[[Launch], StdioServerParameters]
    #: Whether a person answers held calls and signs in at the browser's window (serve),
    #: or nothing is ever asked of anyone.
    has_operator: bool = False


def _chromium() -> str:
    browser = find_browser()
    if browser is None:
        raise ConfigurationError("No Chrome or Chromium found: run make setup.")
    return str(browser)


def _child_environment(workdir: Path) -> dict[str, str]:
    """The parent's environment without API keys, with homes of the run's own."""
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(workdir / "home" / name.lower())
    env["SUBTERMINATOR_JOURNAL"] = str(workdir / "journal.sqlite3")
    env.pop("SUBTERMINATOR_CONFIG", None)
    return env


def _serve(extra: tuple[str, ...]) -> Callable[[Launch], StdioServerParameters]:
    def parameters(launch: Launch) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "subterminator_tui",
                "serve",
                *extra,
                "--operator-tty",
                launch.operator_tty,
                "--services",
                str(SCENARIOS_FILE),
                "--practice-url",
                launch.site_url,
                "--session",
                f"{SERVE_SESSION}={launch.service.id}",
                "--profile-root",
                str(launch.workdir / "profiles"),
                *(["--sign-in", f"{SERVE_SESSION}={launch.sign_in}"] if launch.sign_in else []),
            ],
            env=_child_environment(launch.workdir),
        )

    return parameters


def _playwright_mcp(launch: Launch) -> StdioServerParameters:
    args = [
        str(find_playwright_mcp().cli),
        "--headless",
        "--isolated",
        "--block-service-workers",
        "--allowed-origins",
        launch.origin,
        "--executable-path",
        _chromium(),
        "--output-dir",
        str(launch.workdir / "playwright-output"),
    ]
    if running_as_root():
        args.append("--no-sandbox")
    return StdioServerParameters(
        command=str(find_node().executable), args=args, env=_child_environment(launch.workdir)
    )


def devtools_cli() -> Path:
    """The pinned Chrome DevTools MCP's entry point under ``node_modules``."""
    package = node_project_dir() / "node_modules" / DEVTOOLS_PACKAGE
    try:
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except OSError:
        raise ConfigurationError(
            f"{DEVTOOLS_PACKAGE} is not installed: run make setup-tests."
        ) from None
    return package / str(manifest["bin"][DEVTOOLS_PACKAGE])


def _devtools_mcp(launch: Launch) -> StdioServerParameters:
    args = [
        str(devtools_cli()),
        "--headless",
        "--isolated",
        "--executablePath",
        _chromium(),
        "--no-usage-statistics",
        "--no-performance-crux",
        "--no-javascript-evaluation",
        "--no-page-id-routing",
        "--allowedUrlPattern",
        f"{launch.origin}/*",
    ]
    if running_as_root():
        args.append("--chromeArg=--no-sandbox")
    env = _child_environment(launch.workdir)
    env["CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS"] = "1"
    return StdioServerParameters(command=str(find_node().executable), args=args, env=env)


SERVE = PeerServer(
    "subterminator", "subterminator serve", ServeDialect, _serve(()), has_operator=True
)
SERVE_PLAYWRIGHT = PeerServer(
    "subterminator-playwright",
    "subterminator serve --tools playwright",
    PlaywrightDialect,
    _serve(("--tools", "playwright")),
    has_operator=True,
)
PLAYWRIGHT_MCP = PeerServer("playwright-mcp", "Playwright MCP", PlaywrightDialect, _playwright_mcp)
DEVTOOLS_MCP = PeerServer(
    "chrome-devtools-mcp", "Chrome DevTools MCP", DevToolsDialect, _devtools_mcp
)

#: Every server the bench can compare, by the name ``--servers`` takes.
SERVERS = {s.name: s for s in (SERVE, SERVE_PLAYWRIGHT, PLAYWRIGHT_MCP, DEVTOOLS_MCP)}
