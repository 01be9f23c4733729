"""How Playwright MCP is started: the command line, the environment and the per-run directory."""

from __future__ import annotations

import os
import platform
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

from subterminator_tui.browser.discovery import require_browser, running_as_root
from subterminator_tui.browser.node import (
    NodeRuntime,
    PlaywrightMCPPackage,
    find_node,
    find_playwright_mcp,
)
from subterminator_tui.browser.private_devtools import private_devtools_possible
from subterminator_tui.browser.remote import RemoteBrowser, remote_browser
from subterminator_tui.settings import DEFAULT_SETTLE_MS, Settings, user_state_dir

# Variables a headed browser needs to reach the display; everything else
# (API keys above all) stays out of the Node process's environment.
_DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "LANG", "TZ")

#: Loaded before Playwright MCP: keeps V8's compiled bundles between starts (its header
#: says how, and why it can never run other code than the bundles' own).
NODE_CODE_CACHE_HOOK = Path(__file__).with_name("node_code_cache.js")
#: Where the hook keeps them (``PlaywrightMCPPackage.code_cache_dir``).
NODE_CODE_CACHE_VARIABLE = "SUBTERMINATOR_NODE_CODE_CACHE"


def display_available() -> bool:
    """True when a headed browser can open a window here."""
    if platform.system() == "Linux":
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


@dataclass(frozen=True)
class LaunchPlan:
    """Everything needed to start one Playwright MCP server for one run."""

    node: NodeRuntime
    package: PlaywrightMCPPackage
    #: The local browser executable; None when the browser is remote.
    browser: Path | None
    profile_dir: Path
    run_dir: Path
    headless: bool
    no_sandbox: bool
    viewport: str = "1280x800"
    #: The run's egress proxy (``http://127.0.0.1:PORT``); None lets the browser go direct.
    proxy_server: str | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    #: A remote browser (``cdp`` or ``endpoint``) to drive instead of starting one here.
    remote: RemoteBrowser | None = None
    #: Playwright MCP's wait after an action for the work it started (see Settings.settle_ms).
    settle_ms: int = DEFAULT_SETTLE_MS
    #: No UDP around the proxy, no speculative loads (hardening.py). Off only for a proof
    #: that an attack works when nothing protects the browser.
    hardened: bool = True
    # --- private DevTools (private_devtools.py) ---
    #: The browser runs in a network namespace of its own, its DevTools port reached only
    #: through a Unix socket in a private directory; False: the port on 127.0.0.1.
    private_devtools: bool = False
    # --- end private DevTools ---

    @property
    def browser_description(self) -> str:
        """The browser, for messages: its executable here, or the remote one."""
        return self.remote.describe() if self.remote is not None else str(self.browser)

    @property
    def output_dir(self) -> Path:
        """Where Playwright MCP writes snapshot files and screenshots."""
        return self.run_dir / "output"

    @property
    def browser_config(self) -> Path:
        """Playwright MCP's config file: Chromium's own switches (hardening.py)."""
        return self.run_dir / "playwright-mcp-config.json"

    @property
    def browser_launcher(self) -> Path:
        """The script Playwright starts instead of the browser when DevTools are private."""
        return self.run_dir / "browser-in-namespace"

    @property
    def server_log(self) -> Path:
        """Playwright MCP's stderr, kept for diagnostics instead of cluttering the terminal."""
        return self.run_dir / "playwright-mcp.log"

    def arguments(self) -> list[str]:
        """The server's command line after ``node``."""
        # Node's own option first: the compiled bundles kept between starts.
        args = ["--require", str(NODE_CODE_CACHE_HOOK), str(self.package.cli)]
        if self.remote is not None:
            # No profile, executable, headless or sandbox flags: the browser is elsewhere.
            args += self.remote.arguments()
        else:
            args += ["--user-data-dir", str(self.profile_dir)]
            # Private DevTools: the launcher execs the browser inside its own network.
            launcher = self.browser_launcher if self.private_devtools else self.browser
            args += ["--executable-path", str(launcher)]
            # Our DevTools port, no UDP around the proxy, no speculative loads.
            args += ["--config", str(self.browser_config)]
        args += [
            "--output-dir",
            str(self.output_dir),
            "--snapshot-boxes",
            "--codegen",
            "none",
            "--file-paths",
            "absolute",
            "--viewport-size",
            self.viewport,
            # Pages may register tools through WebMCP; none of them may reach a model.
            "--no-webmcp",
            # Also paid by the guard's own DOM read (an evaluate counts as an action).
            "--timeout-settle",
            str(self.settle_ms),
            # SubTerminator decides when a browser closes (the end of a run, serve's idle
            # timeout). Playwright MCP's own default closes a headless one after an hour
            # without a call: under a person still deciding at a checkpoint.
            "--idle-timeout",
            "0",
            # Every console message is linked in the next answer (gateway.console_messages).
            "--console-level",
            "debug",
        ]
        if self.headless and self.remote is None:
            args.append("--headless")
        if self.no_sandbox and self.remote is None:
            args.append("--no-sandbox")
        if self.proxy_server:
            # No --proxy-bypass: Playwright then adds "<-loopback>", so loopback goes through too.
            args += ["--proxy-server", self.proxy_server]
        return args

    def environment(self) -> dict[str, str]:
        """Variables added to the SDK's minimal default environment."""
        env = {key: os.environ[key] for key in _DISPLAY_VARIABLES if key in os.environ}
        env[NODE_CODE_CACHE_VARIABLE] = str(self.package.code_cache_dir)
        env.update(self.extra_env)
        return env


def new_run_dir(root: Path | None = None) -> Path:
    """A fresh per-run directory, never the current directory."""
    base = root or user_state_dir() / "runs"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = base / f"{stamp}-{secrets.token_hex(3)}"
    # The run's snapshots, console logs and screenshots are the person's: theirs alone.
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    run_dir.mkdir(mode=0o700)
    (run_dir / "output").mkdir(mode=0o700)
    return run_dir


def plan_launch(
    settings: Settings,
    *,
    headless: bool | None = None,
    profile_dir: Path | None = None,
    runs_root: Path | None = None,
    proxy_server: str | None = None,
) -> LaunchPlan:
    """Resolve Node, the pinned package, the browser and the directories.

    Raises ConfigurationError saying what to install when something is missing.
    """
    node = find_node(str(settings.node) if settings.node else None)
    package = find_playwright_mcp()
    remote = remote_browser(settings)
    browser = require_browser(settings.browser) if remote is None else None
    chosen_headless = headless if headless is not None else settings.headless
    if chosen_headless is None:
        chosen_headless = not display_available()
    profile = (profile_dir or settings.resolved_profile_dir()).expanduser().resolve()
    # The profile holds cookies and the DevTools port file: nobody else may read it.
    profile.mkdir(parents=True, exist_ok=True, mode=0o700)
    profile.chmod(0o700)
    return LaunchPlan(
        node=node,
        package=package,
        browser=browser,
        profile_dir=profile,
        run_dir=new_run_dir(runs_root),
        headless=chosen_headless,
        no_sandbox=running_as_root(),
        proxy_server=proxy_server,
        remote=remote,
        settle_ms=settings.settle_ms,
        private_devtools=remote is None
        and private_devtools_possible(proxy_server, headless=chosen_headless),
    )
