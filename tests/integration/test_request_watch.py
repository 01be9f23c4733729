"""Our own DevTools session pauses the requests of every target, from its first request.

Real Playwright MCP and Chromium, and a small loopback site whose page starts a
service worker, a shared worker, a dedicated worker and a cross-site (out-of-process)
frame, each of which POSTs to the site as soon as it runs (the service worker while it
installs). The policy at the edge fails every POST: none may reach the site, and each
kind of target must have been seen, the service worker's own request included. The
browser's DevTools port is refused to pages by the egress filter.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from subterminator_tui.browser.egress import EgressPolicy, egress_filter
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.interception import InterceptedRequest, Verdict
from subterminator_tui.browser.launch import LaunchPlan

pytestmark = pytest.mark.browser

WORKER = "fetch('/hit?from={0}', {{method: 'POST', body: 'confirm=yes'}}).catch(() => 0);"
SERVICE_WORKER = (
    "self.addEventListener('install', (event) => event.waitUntil("
    "fetch('/hit?from=service-worker', {method: 'POST', body: 'x'}).catch(() => 0)));"
)
SHARED_WORKER = "onconnect = () => 0;" + WORKER.format("shared-worker")


def page(frame_url: str) -> str:
    """The page that starts every kind of target."""
    return (
        "<title>Targets</title><p>Targets</p>"
        f'<iframe src="{frame_url}"></iframe><script>'
        "navigator.serviceWorker.register('/sw.js');"
        "new SharedWorker('/shared.js');"
        "new Worker('/worker.js');"
        "</script>"
    )


class TargetsSite:
    """The loopback site; ``hits`` counts the POSTs that reached it."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                """Quiet."""

            def do_POST(self) -> None:
                site.hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            def do_GET(self) -> None:
                port = self.server.server_address[1]
                bodies = {
                    "/": ("text/html", page(f"http://localhost:{port}/frame")),
                    "/frame": (
                        "text/html",
                        "<title>F</title><script>" + WORKER.format("frame") + "</script>",
                    ),
                    "/sw.js": ("text/javascript", SERVICE_WORKER),
                    "/shared.js": ("text/javascript", SHARED_WORKER),
                    "/worker.js": ("text/javascript", WORKER.format("worker")),
                }
                kind, body = bodies.get(self.path, ("text/plain", ""))
                data = body.encode()
                self.send_response(200 if self.path in bodies else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self) -> TargetsSite:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclasses.dataclass
class FailPosts:
    """Fails every POST, noting which kind of target sent it."""

    wanted: frozenset[str]
    seen: dict[str, str] = dataclasses.field(default_factory=dict)
    all_seen: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    async def judge(self, request: InterceptedRequest) -> Verdict:
        """fail a POST, send the rest."""
        if request.method != "POST":
            return "send"
        self.seen[request.url.split("from=")[-1]] = request.target_type
        if self.wanted <= self.seen.keys():
            self.all_seen.set()
        return "fail"

    def answered(self, request: InterceptedRequest, status: int | None) -> None:
        """Nothing is observed."""

    def socket_frame(self, url: str, payload: str) -> None:
        """No sockets here."""


@pytest.fixture
def site() -> Iterator[TargetsSite]:
    """The loopback site."""
    with TargetsSite() as running:
        yield running


async def test_every_target_is_paused_before_its_first_request(
    launch_plan: LaunchPlan, site: TargetsSite
) -> None:
    """Service worker, shared worker, dedicated worker and out-of-process frame: all paused.

    A dedicated worker's requests go through its page's network stack (Chromium has no
    Fetch domain in a worker target): they are paused there, as the page's.
    """
    policy = FailPosts(frozenset({"shared-worker", "worker", "frame", "service-worker"}))
    async with BrowserGateway(launch_plan) as gateway:
        gateway.requests.judge_with(policy)
        await gateway.call("browser_navigate", {"url": site.url})
        await asyncio.wait_for(policy.all_seen.wait(), 30)
        assert policy.seen == {
            "shared-worker": "shared_worker",
            "worker": "page",
            "frame": "iframe",
            "service-worker": "service_worker",
        }
        assert sorted(gateway.devtools.targets.values()) == [
            "iframe", "page", "service_worker", "service_worker", "shared_worker", "worker"
        ]  # fmt: skip
    assert site.hits == []


async def test_a_page_cannot_reach_the_browsers_devtools_port(
    launch_plan: LaunchPlan, site: TargetsSite, tmp_path: Path
) -> None:
    """A hostile page fetching 127.0.0.1:<devtools port> is refused by the egress filter."""
    async with egress_filter(EgressPolicy.for_domains(["127.0.0.1", "localhost"])) as egress:
        plan = dataclasses.replace(launch_plan, proxy_server=egress.url)
        gateway = BrowserGateway(plan)
        gateway.devtools_ports = egress.refused_ports
        async with gateway:
            await gateway.call("browser_navigate", {"url": site.url})
            (port,) = egress.refused_ports
            probe = (
                "async () => { try { const r = await fetch('http://127.0.0.1:"
                f"{port}/json/version'); return 'read ' + r.status; }} "
                "catch (e) { return 'refused'; } }"
            )
            result = await gateway._dispatch("browser_evaluate", {"function": probe})
        assert "refused" in str(result.content[0]), result
        assert any(entry.port == port for entry in egress.counters.blocked)
