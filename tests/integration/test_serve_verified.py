"""serve's ``verified`` flag on evidence: hostile confirmation pages through real sessions.

A small site on 127.0.0.1 keeps the truth (did the finishing request do anything?)
and serves one flow per test; a real serve session (registry, guard, request gate,
approval desk, Playwright MCP, Chromium) walks it and the operator approves the
finishing click. The answer's ``verified`` and the journal's run must follow what
happened, not what the page prints:

- ``hidden``: the finish does nothing and the next page carries the confirmation only
  in an off-screen screen-reader-only element;
- ``early``: the confirmation sentence is already on the page before the finish, and
  stays there after a finish that does nothing;
- ``error``: the service answers the finishing request with 500 and a page that says
  the membership ends;
- ``honest``: the finish cancels and the confirmation is in plain sight: verified.

Each attack makes the success rules hold on the accessibility tree, which is what the
flag was computed on before: the tests fail there. A session whose approved step went
out unverified ends "sent, not verified" in the journal, never as if nothing was sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from subterminator_tui.guarded.gates import Decision
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import local_service, serve_registry

pytestmark = pytest.mark.browser

ENDS = "Your membership ends on December 22, 2026."
_SR_ONLY = (
    "position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;"
    "clip:rect(0,0,0,0);white-space:nowrap;border:0"
)


def _doc(title: str, body: str) -> bytes:
    return f"<!doctype html><title>{title}</title><main>{body}</main>".encode()


def _button(action: str, label: str) -> str:
    return f'<form method="post" action="{action}"><button>{label}</button></form>'


ACCOUNT = _doc(
    "Account", "<h1>Account</h1><p>Premium plan</p>" + _button("/cancel/start", "Cancel membership")
)
CONFIRM = _doc(
    "Confirm",
    "<h1>Finish cancelling</h1><p>Your access continues until December 22, 2026.</p>"
    + _button("/cancel/finish", "Finish cancellation"),
)
#: The confirmation sentence shown before the last step (a survey page's "ends on").
EARLY = _doc(
    "Confirm",
    f"<h1>Finish cancelling</h1><p>{ENDS}</p>" + _button("/cancel/finish", "Finish cancellation"),
)
DONE = _doc("Cancelled", f"<h1>Cancellation confirmed</h1><p>{ENDS}</p>")
HIDDEN = _doc("Thanks", f"<h1>Thanks for your feedback</h1><p style='{_SR_ONLY}'>{ENDS}</p>")


@dataclass
class Site:
    """Which flow is served, and the truth: how many finishing requests cancelled."""

    flow: str
    cancelled: int = 0


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            pages = {
                "/cancel/confirm": EARLY if site.flow == "early" else CONFIRM,
                "/cancel/done": DONE if site.cancelled else ACCOUNT,
                "/cancel/thanks": HIDDEN,
            }
            self._send(200, pages.get(self.path, ACCOUNT))

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path != "/cancel/finish":
                self._redirect("/cancel/confirm")
            elif site.flow == "honest":
                site.cancelled += 1
                self._redirect("/cancel/done")
            elif site.flow == "hidden":
                self._redirect("/cancel/thanks")
            elif site.flow == "early":
                self._redirect("/cancel/confirm")
            else:
                # The service failed the request, and its error page claims success anyway.
                self._send(500, DONE)

        def _redirect(self, target: str) -> None:
            self.send_response(303)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            return

    return Handler


@pytest.fixture
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Site, Path]]:
    """The site serving ``request.param``'s flow, and a services file for it."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    site = Site(request.param)
    rules = (
        "[[services.local.checkpoint]]\n"
        'why = "Finishing the cancellation is irreversible"\n'
        'tool = ["browser_click"]\ntarget_any = ["finish cancellation"]\n'
        "[[services.local.success]]\n"
        'why = "The membership has an end date"\ntext_any = ["membership ends on"]\n'
    )
    with local_service(tmp_path, _handler(site), rules) as services:
        yield site, services


async def click(session: BrowserSession, name: str) -> Answer:
    """The agent clicks the button named ``name`` on its current page."""
    assert session.page is not None
    return await session.run("browser_click", {"target": session.page.ref_of("button", name)})


async def to_the_last_step(session: BrowserSession) -> Answer:
    """The agent opens the account page and starts cancelling: the last step's page."""
    await session.run("browser_snapshot", {})
    started = await click(session, "Cancel membership")
    assert started.status == "ok", started.message
    return started


async def finish_approved(registry: SessionRegistry, session: BrowserSession) -> Answer:
    """The agent clicks the last step; the operator approves it; the answer the agent gets."""
    held = await click(session, "Finish cancellation")
    assert held.status == "approval_pending", held.message
    registry.desk.decide(held.approval_id or "", Decision("approve"))
    decided = await registry.desk.wait("agent", held.approval_id or "", 30)
    assert decided.answer is not None and decided.answer.page is not None
    return decided.answer


async def ended(registry: SessionRegistry, session: BrowserSession) -> tuple[str, bool]:
    """Close the session; its journal run's reason and verified flag."""
    run_id = session.run_id
    await registry.close("agent", session.key.name)
    run = registry.journal.run(run_id)
    assert run is not None
    if run.reason == "sent_not_verified":
        assert "Sent, not verified: check http://127.0.0.1:" in (run.message or ""), run.message
    return run.reason, bool(run.verified)


@pytest.mark.parametrize("served", ["hidden"], indirect=True)
async def test_confirmation_text_nobody_can_see_is_not_verified(
    served: tuple[Site, Path], tmp_path: Path
) -> None:
    """After the approved finish, a confirmation only in an off-screen element is no evidence."""
    site, services = served
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await to_the_last_step(session)
        answer = await finish_approved(registry, session)
        assert answer.status == "ok" and answer.page is not None
        assert ENDS in answer.page.content, "the tree carries the hidden sentence"
        assert answer.verified is False and answer.structured()["verified"] is False
        assert await ended(registry, session) == ("sent_not_verified", False)
    assert site.cancelled == 0


@pytest.mark.parametrize("served", ["early"], indirect=True)
async def test_confirmation_text_shown_before_the_step_is_not_verified(
    served: tuple[Site, Path], tmp_path: Path
) -> None:
    """The sentence was on the page before the approved finish: neither before nor after
    the step is the page verified."""
    site, services = served
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        before = await to_the_last_step(session)
        assert before.page is not None and ENDS in before.page.content
        assert before.verified is False
        answer = await finish_approved(registry, session)
        assert answer.status == "ok" and answer.page is not None
        assert ENDS in answer.page.content
        assert answer.verified is False
        assert await ended(registry, session) == ("sent_not_verified", False)
    assert site.cancelled == 0


@pytest.mark.parametrize("served", ["error"], indirect=True)
async def test_a_step_the_service_answered_with_an_error_is_not_verified(
    served: tuple[Site, Path], tmp_path: Path
) -> None:
    """The finishing request was answered 500 (the request gate's log says so); the error
    page's "membership ends on" in plain sight is no evidence."""
    site, services = served
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await to_the_last_step(session)
        answer = await finish_approved(registry, session)
        assert answer.page is not None and ENDS in answer.page.content
        logged = RequestLog(registry.journal).requests(session.run_id)
        finishes = [row for row in logged if row.path == "/cancel/finish"]
        assert [(r.kind, r.status) for r in finishes] == [("gated", 500)], finishes
        assert finishes[0].step_id is not None
        assert answer.verified is False
        assert await ended(registry, session) == ("sent_not_verified", False)
    assert site.cancelled == 0


@pytest.mark.parametrize("served", ["honest"], indirect=True)
async def test_an_approved_finish_with_a_visible_confirmation_is_verified(
    served: tuple[Site, Path], tmp_path: Path
) -> None:
    """The honest path: approved, answered 303, the confirmation in plain sight: verified,
    and the session's run ends completed and verified."""
    site, services = served
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await to_the_last_step(session)
        answer = await finish_approved(registry, session)
        assert answer.status == "ok" and answer.page is not None
        assert answer.page.url.endswith("/cancel/done")
        assert answer.verified is True and answer.structured()["verified"] is True
        assert await ended(registry, session) == ("completed", True)
    assert site.cancelled == 1
