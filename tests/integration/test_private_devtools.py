"""The run's browser can be driven over DevTools by SubTerminator alone.

Real Playwright MCP and Chromium behind the run's egress filter, and a local site
whose page carries a token in its address and sends a POST as it loads. Another
process (``devtools_probe.py``, a plain subprocess) tries every listening loopback
port for a DevTools endpoint and reads the pages of every browser it finds: with the
browser in its own network namespace it reads none of ours, while SubTerminator's
own session (over the private socket) still pauses the page's POST and the filter
still refuses a host outside the policy. With today's launch (the port on
127.0.0.1) the same probe reads our page: the attack works. Another user cannot open
the private socket at all, and the forwarder dies with the browser.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest

from subterminator_tui.browser.egress import EgressPolicy, egress_filter
from subterminator_tui.browser.egress.proxy import EgressProxy
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.interception import InterceptedRequest, Verdict
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.browser.private_devtools import namespaces_available
from subterminator_tui.browser.processes import process_table
from subterminator_tui.settings import load_settings
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import local_service, serve_registry
from tests.support.pages import serving
from tests.support.polling import last_polled

pytestmark = pytest.mark.browser

PROBE = Path(__file__).with_name("devtools_probe.py")
PAGE = (
    b"<!doctype html><title>Account</title><h1>Account</h1>"
    b"<script>fetch('/hit', {method: 'POST', body: 'confirm=yes'}).catch(() => 0);</script>"
)


class _Site(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def do_POST(self) -> None:
        _Site.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_args: object) -> None:
        return


class FailPosts:
    """Fails every POST, remembering it: our own DevTools session is watching."""

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.seen = asyncio.Event()

    async def judge(self, request: InterceptedRequest) -> Verdict:
        """fail a POST, send the rest."""
        if request.method != "POST":
            return "send"
        self.failed.append(request.url)
        self.seen.set()
        return "fail"

    def answered(self, request: InterceptedRequest, status: int | None) -> None:
        """Nothing is observed."""

    def socket_frame(self, url: str, payload: str) -> None:
        """No sockets here."""


@pytest.fixture
def site() -> Iterator[str]:
    """The local site's origin."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    _Site.hits = []
    with serving(_Site) as origin:
        yield origin


@pytest.fixture
def namespaces() -> None:
    """Skips where this kernel makes no network namespace (the fallback keeps the port)."""
    if not namespaces_available():
        pytest.skip("no network namespace here: the browser keeps its port on 127.0.0.1")


@asynccontextmanager
async def run_browser(
    tmp_path: Path, site: str, *, private: bool
) -> AsyncIterator[tuple[BrowserGateway, EgressProxy]]:
    """A run's browser behind its egress filter (the site only), private or today's launch."""
    async with egress_filter(EgressPolicy.for_domains([site])) as egress:
        plan = plan_launch(
            load_settings(),
            headless=True,
            profile_dir=tmp_path / "profile",
            runs_root=tmp_path / "runs",
            proxy_server=egress.url,
        )
        assert plan.private_devtools == namespaces_available()
        plan = dataclasses.replace(plan, private_devtools=private)
        gateway = BrowserGateway(plan)
        gateway.devtools_ports = egress.refused_ports
        async with gateway:
            yield gateway, egress


def hunt() -> dict[str, list[str]]:
    """Run the probe in a process of its own; what it found."""
    found = subprocess.run(
        [sys.executable, str(PROBE)], capture_output=True, text=True, timeout=120, check=True
    )
    result: dict[str, list[str]] = json.loads(found.stdout)
    return result


def marked_page(site: str) -> str:
    """A page address no other browser on this machine has open."""
    return f"{site}/account?token={secrets.token_hex(8)}"


@pytest.mark.usefixtures("namespaces")
async def test_no_local_port_reaches_the_run_browsers_devtools(tmp_path: Path, site: str) -> None:
    """The probe reads none of our pages; our own session still pauses the page's POST;
    the filter still refuses a host outside the policy."""
    page = marked_page(site)
    async with run_browser(tmp_path, site, private=True) as (gateway, egress):
        policy = FailPosts()
        gateway.requests.policy = policy
        await gateway.call("browser_navigate", {"url": page})
        await asyncio.wait_for(policy.seen.wait(), 30)
        found = await asyncio.to_thread(hunt)
        refused = await gateway._dispatch("browser_navigate", {"url": "http://127.0.0.2:8080/"})
        # A loopback address the policy does not name: refused by the filter.
        assert any(entry.host == "127.0.0.2" for entry in egress.counters.blocked), refused
    assert found["tried"] > 0
    assert page not in found["pages"], found
    assert policy.failed == [f"{site}/hit"]
    assert _Site.hits == []


async def test_with_todays_port_the_same_probe_drives_the_browser(
    tmp_path: Path, site: str
) -> None:
    """The proof: the port on 127.0.0.1 (today's launch) gives our page away to the probe."""
    page = marked_page(site)
    async with run_browser(tmp_path, site, private=False) as (gateway, _):
        await gateway.call("browser_navigate", {"url": page})
        found = await asyncio.to_thread(hunt)
    assert page in found["pages"], found


@pytest.mark.usefixtures("namespaces")
async def test_another_user_cannot_open_the_browsers_socket(tmp_path: Path, site: str) -> None:
    """uid 65534 is refused the socket by its directory; the person's own process is let in."""
    if os.geteuid() != 0:
        pytest.skip("becoming another user needs root")
    async with run_browser(tmp_path, site, private=True) as (gateway, _):
        await gateway.call("browser_navigate", {"url": marked_page(site)})
        assert gateway.process.private is not None
        socket_path = str(gateway.process.private.socket_path)
        ask = [str(PROBE), "--socket", socket_path]
        # The system's interpreter: the other user may not enter this checkout.
        other = await asyncio.to_thread(
            subprocess.run, ["/usr/bin/python3", *ask], user=65534, capture_output=True
        )
        own = await asyncio.to_thread(subprocess.run, [sys.executable, *ask], capture_output=True)
    assert other.returncode == 3, other
    assert own.returncode == 0, own


def forwarders(profile: Path) -> list[int]:
    """The launcher's forwarders still running for ``profile``."""
    flag = f"--user-data-dir={profile}"
    return [
        proc.pid
        for proc in process_table()
        if proc.alive and "namespace_launcher" in proc.cmdline and flag in proc.cmdline
    ]


@pytest.mark.usefixtures("namespaces")
async def test_the_forwarder_dies_with_the_browser(tmp_path: Path, site: str) -> None:
    """Chromium SIGKILLed under a running session: its forwarder goes at once, by itself."""
    profile = tmp_path / "profile"
    async with run_browser(tmp_path, site, private=True) as (gateway, _):
        await gateway.call("browser_navigate", {"url": marked_page(site)})
        (forwarder,) = forwarders(profile.resolve())
        # The launcher forked the forwarder, then became Chromium: its parent is the browser.
        browser = next(proc.ppid for proc in process_table() if proc.pid == forwarder)
        os.kill(browser, signal.SIGKILL)
        left = last_polled(lambda: forwarders(profile.resolve()), lambda pids: not pids, 5.0)
        assert left == []
    assert forwarders(profile.resolve()) == []


@pytest.mark.usefixtures("namespaces")
async def test_a_served_sessions_browser_is_not_found_by_the_probe(tmp_path: Path) -> None:
    """``subterminator serve``: the session's browser runs private, and the probe reads none
    of its pages."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with local_service(tmp_path, _Site) as services:
        async with serve_registry(tmp_path, None, (services,)) as registry:
            session, _ = registry.open("agent", "main", "local")
            seen = await session.run("browser_snapshot", {})
            assert seen.page is not None and "/account" in seen.page.url, seen.message
            assert session.running_gateway().plan.private_devtools
            found = await asyncio.to_thread(hunt)
            await registry.close("agent", "main")
    assert not [url for url in found["pages"] if url.startswith(seen.page.url)], found
