"""Serve sessions on hostile and unusual pages: other local ports, dialogs, title-less pages.

The real serve core (registry, session, guard, gateway, egress filter) on a real browser.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from subterminator_tui.guarded.gates import Decision
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.serve.oversight.approvals import Approval
from tests.conftest import browser_parts_missing
from tests.integration.egress_sites import CountingServer
from tests.integration.serve_parts import local_service, serve_registry

pytestmark = pytest.mark.browser

_HTML = "text/html; charset=utf-8"
PAGES: dict[str, tuple[str, str]] = {
    "/account": (
        _HTML,
        '<title>Account</title><h1>Your plan</h1><button onclick="document.title = '
        "confirm('Finish cancellation now?') ? 'Cancelled' : 'Kept'\">Next step</button>"
        "<button onclick=\"alert('Your preferences were saved.');"
        "alert('One more step to go.')\">Save preferences</button>",
    ),
    "/plan.json": ("application/json", '{"plan": "premium"}'),
    "/notice.txt": ("text/plain; charset=utf-8", "Your plan renews monthly."),
}


class _Pages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        kind, body = PAGES.get(self.path, (_HTML, "<title>Not found</title>"))
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    """A services file for a site on this computer (its origin only); skipped without a browser."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with local_service(tmp_path, _Pages) as services:
        yield services


async def test_a_practice_session_cannot_reach_another_local_port(tmp_path: Path) -> None:
    """The practice site's address is its port only: serve's own /mcp and other local
    servers on 127.0.0.1 are refused, and nothing reaches them."""
    if browser_parts_missing():
        pytest.skip(browser_parts_missing() or "")
    with DemoflixServer(["remembered"]) as practice, CountingServer("127.0.0.1") as other:
        async with serve_registry(tmp_path, practice.base_url) as registry:
            session, _ = registry.open("agent", "main", "demoflix")
            assert (await session.run("browser_snapshot", {})).status == "ok"
            answer = await session.run("browser_navigate", {"url": f"{other.base_url}/mcp"})
            assert answer.status == "refused", answer.message
        assert other.connections == 0


async def test_a_confirm_goes_to_the_dialog_tool_judged_like_a_click(
    site: Path, tmp_path: Path
) -> None:
    """A confirm() blocks other calls (saying so); accepting it is held when its message
    finishes something; dismissing it goes through."""
    async with serve_registry(tmp_path, None, (site,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await session.run("browser_snapshot", {})
        assert session.page is not None
        opened = await session.run(
            "browser_click", {"target": session.page.ref_of("button", "Next step")}
        )
        assert opened.status == "ok" and "Finish cancellation now?" in opened.text()
        assert "the dialog tool" in opened.text()
        blocked = await session.run("browser_navigate", {"url": "/plan.json"})
        assert blocked.status == "error" and "dialog tool" in blocked.message
        held = await session.run("browser_handle_dialog", {"accept": True})
        assert held.status == "approval_pending", held.message
        registry.desk.decide(held.approval_id or "", Decision("reject"))
        await registry.desk.wait("agent", held.approval_id or "", 30)
        dismissed = await session.run("browser_handle_dialog", {"accept": False})
        assert dismissed.status == "ok" and dismissed.page is not None
        assert dismissed.page.title == "Kept"


async def test_alerts_and_title_less_pages_keep_the_session_working(
    site: Path, tmp_path: Path
) -> None:
    """Two alerts are acknowledged and reported; JSON and text pages are pages; navigating
    away from them works."""
    async with serve_registry(tmp_path, None, (site,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await session.run("browser_snapshot", {})
        assert session.page is not None
        saved = await session.run(
            "browser_click", {"target": session.page.ref_of("button", "Save preferences")}
        )
        assert saved.status == "ok", saved.message
        assert "One more step to go." in saved.text()
        for path, words in (("/plan.json", "premium"), ("/notice.txt", "renews monthly")):
            answer = await session.run("browser_navigate", {"url": path})
            assert answer.status == "ok", answer.message
            assert answer.page is not None and words in answer.page.content
        back = await session.run("browser_navigate", {"url": "/account"})
        assert back.status == "ok" and back.page is not None and back.page.title == "Account"


async def test_a_call_held_when_its_session_closes_is_not_an_operator_rejection(
    site: Path, tmp_path: Path
) -> None:
    """Closing the session (or stopping the server) ends a held call unsent, saying so; the
    agent is never told the operator rejected what the operator never saw decided."""
    async with serve_registry(tmp_path, None, (site,)) as registry:
        held: dict[str, Approval] = {}
        for name in ("closing", "stopping"):
            session, _ = registry.open("agent", name, "local")
            await session.run("browser_snapshot", {})
            assert session.page is not None
            await session.run(
                "browser_click", {"target": session.page.ref_of("button", "Next step")}
            )
            answer = await session.run("browser_handle_dialog", {"accept": True})
            assert answer.status == "approval_pending"
            held[name] = registry.desk.get("agent", answer.approval_id or "")
        await registry.close("agent", "closing")
        await registry.close_all()
        for name, why in (("closing", "the session closed"), ("stopping", "the server stopped")):
            approval = await registry.desk.wait("agent", held[name].id, 30)
            assert approval.answer is not None
            assert approval.answer.status == "error"
            assert f"Not sent: {why}" in approval.answer.message
            assert "operator rejected" not in approval.answer.message


async def test_an_agent_cannot_sign_in(tmp_path: Path) -> None:
    """On the sign-in page an agent's typing and clicking are refused before the browser;
    looking and leaving still work. Agents never sign in: now a rule, not advice."""
    if browser_parts_missing():
        pytest.skip(browser_parts_missing() or "")
    with DemoflixServer() as practice:
        async with serve_registry(tmp_path, practice.base_url) as registry:
            session, _ = registry.open("agent", "main", "demoflix")
            first = await session.run("browser_snapshot", {})
            assert first.page is not None and "/login" in first.page.url
            username = first.page.ref_of("textbox", "Username")
            typed = await session.run("browser_type", {"target": username, "text": "demo"})
            assert typed.status == "refused" and "a sign-in" in typed.message
            signed = await session.run(
                "browser_click", {"target": first.page.ref_of("button", "Sign in")}
            )
            assert signed.status == "refused"
            assert (await session.run("browser_snapshot", {})).status == "ok"
        assert practice.state.sign_ins == 0
