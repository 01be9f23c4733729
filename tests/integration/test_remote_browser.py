"""The remote browser path on this machine: a Chromium with a DevTools port, its own egress filter.

The "remote" Chromium is started here on 127.0.0.1 with ``--remote-debugging-port`` and
``--proxy-server`` naming a ``subterminator egress demoflix`` child, as a pod would run them
(docs/remote-browsers.md). ``cancel demoflix --pilot playbook`` then drives it with
``browser_backend = "cdp"``: the practice site counts exactly one cancellation, the egress
filter saw the traffic, the remote browser outlives the run (only its context closes), and
once the test stops it nothing is left running. The same flow then runs with
``browser_backend = "endpoint"`` through a Playwright browser server (playwright-core's
``launch-server``) on 127.0.0.1 whose Chromium uses the same filter.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.browser.discovery import require_browser, running_as_root
from subterminator_tui.browser.node import PACKAGE, find_node, find_playwright_mcp
from subterminator_tui.browser.processes import pid_alive, process_table
from subterminator_tui.exit_codes import TERMINATED
from subterminator_tui.practice.demoflix import DemoflixServer
from tests.conftest import wait_until_no_profile_processes
from tests.integration.cli_children import Cli, read_until
from tests.support.polling import last_polled

pytestmark = pytest.mark.browser

#: Chromium's own background traffic off, so the egress filter sees only the site's.
QUIET_FLAGS = (
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--metrics-recording-only",
)


def devtools_port(profile: Path, browser: subprocess.Popen[bytes], timeout: float = 30.0) -> int:
    """The port Chromium chose for ``--remote-debugging-port=0`` (it writes it to the profile)."""
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # Polling a file Chromium writes: there is no event to await from another process.
        if marker.is_file() and marker.read_text().strip():
            return int(marker.read_text().split()[0])
        if browser.poll() is not None:
            raise AssertionError(f"chromium exited with {browser.returncode}")
        time.sleep(0.05)
    raise AssertionError(f"chromium wrote no DevToolsActivePort within {timeout} s")


def wait_until_none_mention(text: str, timeout: float = 10.0) -> list[str]:
    """The command lines still naming ``text`` after up to ``timeout`` s (empty when none)."""
    # Other processes' exits: polling is all there is.
    return last_polled(
        lambda: [p.cmdline for p in process_table() if p.alive and text in p.cmdline],
        lambda left: not left,
        timeout,
    )


@pytest.fixture
def site() -> Iterator[DemoflixServer]:
    """The practice site the remote browser is sent to (already signed in)."""
    with DemoflixServer(variants=("remembered",)) as running:
        yield running


@pytest.fixture
def egress(browser_cli: Cli, site: DemoflixServer) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``subterminator egress demoflix`` on a free loopback port, and its proxy URL; the
    site's address means its own port only, as for a local run."""
    child = browser_cli.start(["egress", "demoflix", "--practice-url", site.base_url])
    line = read_until(child, "\n", timeout=30)
    match = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
    assert match is not None, line
    yield child, match[1]
    if child.poll() is None:
        child.kill()
        child.wait()


@pytest.fixture
def remote_chromium(
    tmp_path: Path, isolated_home: Path, egress: tuple[subprocess.Popen[bytes], str]
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A Chromium on 127.0.0.1 with a DevTools port, all its traffic through the egress filter."""
    profile = tmp_path / "remote-profile"
    command = [
        str(require_browser(None)),
        "--headless",
        *(["--no-sandbox"] if running_as_root() else []),
        *QUIET_FLAGS,
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        f"--proxy-server={egress[1]}",
        # Loopback too: Chromium bypasses the proxy for it unless told not to.
        "--proxy-bypass-list=<-loopback>",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    browser = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield browser, f"http://127.0.0.1:{devtools_port(profile, browser)}"
    finally:
        if browser.poll() is None:
            os.killpg(browser.pid, signal.SIGKILL)
        browser.wait(timeout=30)
        assert wait_until_no_profile_processes(profile) == []
        # Its crash handler (which names the isolated home) leaves once the browser is gone.
        assert wait_until_none_mention(str(isolated_home)) == []


def cancellations(site: DemoflixServer) -> int:
    """The site's own count of finishing requests."""
    with urllib.request.urlopen(f"{site.base_url}/__state", timeout=5) as answer:
        return int(json.load(answer)["cancel_requests"])


def cancel_demoflix_remotely(
    browser_cli: Cli,
    egress: tuple[subprocess.Popen[bytes], str],
    site: DemoflixServer,
    backend: str,
    endpoint: str,
) -> None:
    """The playbook through a remote browser: one cancellation, traffic through the filter
    beside that browser, no Playwright MCP of the run left; the filter stopped after."""
    egress_child, egress_url = egress
    env = browser_cli.env(
        SUBTERMINATOR_BROWSER_BACKEND=backend,
        SUBTERMINATOR_BROWSER_ENDPOINT=endpoint,
        SUBTERMINATOR_REMOTE_EGRESS=egress_url,
    )
    args = browser_cli.cancel_args(
        "demoflix", "--no-tui", "--pilot", "playbook", "--practice-url", site.base_url
    )
    run = browser_cli.run(args, stdin=b"y\n", env=env)
    assert run.code == 0, run.stdout + run.stderr
    assert "completed and verified" in run.stdout
    assert cancellations(site) == 1
    # No Playwright MCP of the run is left (its command line names the isolated home).
    home = str(browser_cli.home)
    left = [
        p.cmdline for p in process_table() if p.alive and "node" in p.program and home in p.cmdline
    ]
    assert left == []
    egress_child.send_signal(signal.SIGTERM)
    out, _err = egress_child.communicate(timeout=30)
    assert egress_child.returncode == TERMINATED
    summary = re.search(rb"stopped: (\d+) allowed, (\d+) blocked", out)
    assert summary is not None, out
    assert int(summary[1]) > 0, "the remote browser's traffic did not go through the filter"


def test_demoflix_through_a_cdp_endpoint_cancels_once_and_leaves_nothing(
    browser_cli: Cli,
    egress: tuple[subprocess.Popen[bytes], str],
    site: DemoflixServer,
    remote_chromium: tuple[subprocess.Popen[bytes], str],
) -> None:
    """The playbook over CDP: one cancellation, traffic through the filter, nothing left."""
    browser, endpoint = remote_chromium
    cancel_demoflix_remotely(browser_cli, egress, site, "cdp", endpoint)
    # Only the run's context closed: the remote browser is the pod's, and still runs.
    assert browser.poll() is None


def descendants(root: int) -> set[int]:
    """The live processes ``root`` started, their children, and so on (not ``root``)."""
    table = [p for p in process_table() if p.alive]
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {p.pid for p in table if p.ppid in frontier} - found
        found |= frontier
    return found


@pytest.fixture
def playwright_server(
    tmp_path: Path, egress: tuple[subprocess.Popen[bytes], str]
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A Playwright browser server (playwright-core's ``launch-server``) on 127.0.0.1, its
    Chromium's traffic through the egress filter; its ``ws://`` endpoint.

    Nothing it started may outlive the test: its processes are noted while it runs and
    checked (then killed, failing the test) after it stops.
    """
    cli = find_playwright_mcp().cli.parents[2] / "playwright-core" / "cli.js"
    assert cli.is_file(), f"playwright-core is not installed beside {PACKAGE}"
    config = tmp_path / "browser-server.json"
    config.write_text(
        json.dumps(
            {
                "executablePath": str(require_browser(None)),
                "headless": True,
                "host": "127.0.0.1",
                "port": 0,
                "args": [
                    *(["--no-sandbox"] if running_as_root() else []),
                    *QUIET_FLAGS,
                    f"--proxy-server={egress[1]}",
                    "--proxy-bypass-list=<-loopback>",
                ],
            }
        ),
        encoding="utf-8",
    )
    command = [str(find_node().executable), str(cli), "launch-server", "--browser", "chromium"]
    server = subprocess.Popen(
        [*command, "--config", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    started: set[int] = set()
    try:
        line = read_until(server, "\n", timeout=60)
        match = re.search(r"ws://127\.0\.0\.1:\d+/\S+", line)
        assert match is not None, line
        started = descendants(server.pid)
        assert started, "the browser server started no browser"
        yield server, match[0]
    finally:
        started |= descendants(server.pid)
        if server.poll() is None:
            # Playwright's server closes its browser on SIGTERM.
            server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)
        # Other processes' exits: polling is all there is.
        left = last_polled(
            lambda: {pid for pid in started if pid_alive(pid)}, lambda alive: not alive, 10.0
        )
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == set(), f"the browser server left processes behind: {sorted(left)}"


def test_demoflix_through_a_playwright_browser_server_cancels_once_and_leaves_nothing(
    browser_cli: Cli,
    egress: tuple[subprocess.Popen[bytes], str],
    site: DemoflixServer,
    playwright_server: tuple[subprocess.Popen[bytes], str],
) -> None:
    """The playbook over ``--endpoint``: one cancellation, traffic through the filter beside
    the remote browser, the server still running after the run, no Playwright MCP left."""
    server, endpoint = playwright_server
    cancel_demoflix_remotely(browser_cli, egress, site, "endpoint", endpoint)
    # Only the run's context closed: the browser server and its Chromium still run.
    assert server.poll() is None and descendants(server.pid)


def test_a_remote_backend_without_its_egress_filter_is_refused(browser_cli: Cli) -> None:
    """``cdp`` without ``remote_egress``: a clear configuration error, exit 2, no browser."""
    env = browser_cli.env(
        SUBTERMINATOR_BROWSER_BACKEND="cdp",
        SUBTERMINATOR_BROWSER_ENDPOINT="http://127.0.0.1:9",
    )
    run = browser_cli.run(browser_cli.cancel_args("demoflix", "--no-tui"), env=env)
    assert run.code == 2, run.stdout + run.stderr
    assert "needs remote_egress" in run.stderr
