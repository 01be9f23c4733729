"""serve against a hostile agent and page, second round: what an approval covers.

A site on 127.0.0.1 routes the way Express's default router does (letters in any
case, a trailing slash optional) and keeps the truth: which handlers ran. A real
serve session (registry, guard, request gate, approval desk, Playwright MCP,
Chromium) is driven by the test as the agent and as the operator:

- a held navigation respelled (a trailing slash, other letter case) is the same
  address and is held again, never sent;
- a click on the icon inside a script-driven "Finish cancellation" control is that
  control's click, and is asked;
- approving "Finish cancellation" covers that step only: a charge the page sends
  while it goes out is held and asked on its own.

Each test has its proof: without the protection the same steps reach the handler.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from subterminator_tui.guarded.gates import Decision
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import local_service, serve_registry
from tests.support.polling import until
from tests.support.site_handler import SiteHandler

pytestmark = pytest.mark.browser

ICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/%3E"


def _doc(title: str, body: str) -> bytes:
    return f"<!doctype html><title>{title}</title><main>{body}</main>".encode()


ACCOUNT = _doc(
    "Account",
    "<h1>Account</h1><p>Premium plan, renews May 2.</p>"
    '<a href="/cancel/finish?confirm=yes">Finish cancellation</a>'
    # A control driven by script alone: the icon inside it is what an agent clicks.
    '<div role="button" tabindex="0" id="scripted">'
    f'<img src="{ICON}" alt="arrow"> Finish cancellation</div>'
    '<form method="post" action="/cancel/confirm" id="last">'
    "<button>Confirm cancellation</button></form>"
    "<script>"
    "document.getElementById('scripted').addEventListener('click', () =>"
    "  fetch('/api/v1/a7', {method: 'POST', body: 'step=3'}));"
    # A charge riding along with the approved step.
    "document.getElementById('last').addEventListener('submit', () =>"
    "  fetch('/api/charge', {method: 'POST', keepalive: true,"
    "    headers: {'Content-Type': 'application/x-www-form-urlencoded'},"
    "    body: 'amount=99.99&plan=annual'}));"
    "</script>",
)
DONE = _doc("Cancelled", "<h1>Cancellation confirmed</h1><p>Your membership ends on May 2.</p>")


@dataclass
class Site:
    """The handlers that ran, by route (what the service did, whatever the page said)."""

    ran: list[str] = field(default_factory=list)


def _route(path: str) -> str:
    """Express's default router: case-insensitive, a trailing slash optional."""
    route = urlsplit(path).path.lower().rstrip("/") or "/"
    return route


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(SiteHandler):
        def do_GET(self) -> None:
            route = _route(self.path)
            if route == "/cancel/finish":
                site.ran.append("GET /cancel/finish")
                self.send(200, DONE)
            else:
                self.send(200, ACCOUNT)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            route = _route(self.path)
            site.ran.append(f"POST {route}")
            if route == "/cancel/confirm":
                self.see_other("/done")
                return
            self.send(200, b"{}", "application/json")

    return Handler


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Site, Path]]:
    """The site and a services file for it (the built-in checkpoints only)."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    site = Site()
    with local_service(tmp_path, _handler(site)) as services:
        yield site, services


async def _opened(registry: SessionRegistry) -> BrowserSession:
    session, _ = registry.open("agent", "main", "local")
    answer = await session.run("browser_snapshot", {})
    assert answer.status == "ok", answer.message
    return session


async def _refuse_everything(registry: SessionRegistry, asked: list[str]) -> None:
    """The operator: refuses every question as it comes, and notes what was asked."""
    while True:
        for approval in registry.desk.pending():
            asked.append(approval.action)
            registry.desk.decide(approval.id, Decision("reject"))
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("spelling", ["/cancel/finish/?confirm=yes", "/Cancel/Finish?confirm=yes"])
async def test_a_held_address_respelled_is_the_same_address(
    served: tuple[Site, Path], tmp_path: Path, spelling: str
) -> None:
    """After the link's address was held, the same route spelled otherwise is held too."""
    site, services = served
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session = await _opened(registry)
        held = await session.run("browser_navigate", {"url": "/cancel/finish?confirm=yes"})
        assert held.status == "approval_pending", held.message
        registry.desk.decide(held.approval_id or "", Decision("reject"))
        await registry.desk.wait("agent", held.approval_id or "", 30)
        again = await session.run("browser_navigate", {"url": spelling})
        assert again.status == "approval_pending", again.message
        registry.desk.decide(again.approval_id or "", Decision("reject"))
        await registry.desk.wait("agent", again.approval_id or "", 30)
    assert site.ran == [], site.ran


async def test_the_icon_inside_a_script_driven_control_is_that_controls_click(
    served: tuple[Site, Path], tmp_path: Path
) -> None:
    """The icon's click is judged as the click of "Finish cancellation" around it: asked."""
    site, services = served
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session = await _opened(registry)
        assert session.page is not None
        icon = session.page.ref_of("img", "arrow")
        held = await session.run("browser_click", {"target": icon})
        assert held.status == "approval_pending", held.message
        registry.desk.decide(held.approval_id or "", Decision("reject"))
        await registry.desk.wait("agent", held.approval_id or "", 30)
    assert site.ran == [], site.ran


async def test_an_approval_covers_its_step_and_not_a_charge_sent_beside_it(
    served: tuple[Site, Path], tmp_path: Path
) -> None:
    """Approving "Confirm cancellation" sends the cancellation; the page's charge beside it
    is held and asked on its own (here refused): it never reaches the service."""
    site, services = served
    asked: list[str] = []
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session = await _opened(registry)
        assert session.page is not None
        button = session.page.ref_of("button", "Confirm cancellation")
        held = await session.run("browser_click", {"target": button})
        assert held.status == "approval_pending", held.message
        operator = asyncio.create_task(_refuse_everything(registry, asked))
        try:
            registry.desk.decide(held.approval_id or "", Decision("approve"))
            # Approved before the operator loop could refuse it: only what follows is refused.
            await registry.desk.wait("agent", held.approval_id or "", 30)
            await until(lambda: "POST /cancel/confirm" in site.ran, what="the cancellation")
        finally:
            operator.cancel()
    assert "POST /api/charge" not in site.ran, site.ran
    assert any("/api/charge" in action for action in asked), asked
