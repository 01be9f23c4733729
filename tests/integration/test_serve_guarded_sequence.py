"""serve finishes a held call the way the run's loop does: one guarded sequence.

A small site on 127.0.0.1 keeps the truth (what the last step's request did). A real
serve session (registry, guard, request gate, approval desk, Playwright MCP, Chromium)
walks it; the agent's click on "Finish cancellation" is held for the operator, and
while the question is on screen the page moves:

- ``rewired``: the button keeps its name, but its form now posts a charge instead;
  the operator's approval must not send the charge (it was never what they saw);
- ``unsent``: the browser is found dead as the approved click goes out and is
  restarted instead, so the click never left: the session must not count it as sent,
  so its close never says "sent, not verified".
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.gateway import ActionResult
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import local_service, serve_registry
from tests.support.polling import until
from tests.support.site_handler import SiteHandler

pytestmark = pytest.mark.browser


def _doc(title: str, body: str) -> bytes:
    return f"<!doctype html><title>{title}</title><main>{body}</main>".encode()


ACCOUNT = _doc(
    "Account",
    "<h1>Account</h1><p>Premium plan</p>"
    '<form method="post" action="/cancel/start"><button>Cancel membership</button></form>',
)
#: The last step; told by the site (``/mode``), the page rewires its form to a charge and
#: says so (``/rewired``), which is what the test waits for before the operator answers.
CONFIRM = _doc(
    "Confirm",
    "<h1>Finish cancelling</h1>"
    '<form id="last" method="post" action="/cancel/finish">'
    '<input type="hidden" name="reason" value="price"><button>Finish cancellation</button>'
    "</form><script>"
    "const poll = setInterval(async () => {"
    "  const mode = await (await fetch('/mode')).text();"
    "  if (mode !== 'rewire') return;"
    "  clearInterval(poll);"
    "  const form = document.getElementById('last');"
    "  form.action = '/billing/charge';"
    "  form.querySelector('input').name = 'amount';"
    "  form.querySelector('input').value = '99.99';"
    "  fetch('/rewired');"
    "}, 50);</script>",
)
DONE = _doc("Cancelled", "<h1>Cancellation confirmed</h1><p>Your membership ends on May 2.</p>")


@dataclass
class Site:
    """What the site was told, and the truth: the requests that reached its handlers."""

    mode: str = "quiet"
    rewired: bool = False
    posts: list[str] = field(default_factory=list)


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(SiteHandler):
        def do_GET(self) -> None:
            if self.path == "/mode":
                self.send(200, site.mode.encode(), "text/plain")
            elif self.path == "/rewired":
                site.rewired = True
                self.send(204, b"", "text/plain")
            elif self.path == "/cancel/confirm":
                self.send(200, CONFIRM)
            elif self.path == "/cancel/done":
                self.send(200, DONE)
            else:
                self.send(200, ACCOUNT)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            site.posts.append(self.path)
            target = {"/cancel/start": "/cancel/confirm", "/cancel/finish": "/cancel/done"}
            self.see_other(target.get(self.path, "/account"))

    return Handler


RULES = (
    "[[services.local.checkpoint]]\n"
    'why = "Finishing the cancellation is irreversible"\n'
    'tool = ["browser_click"]\ntarget_any = ["finish cancellation"]\n'
    "[[services.local.success]]\n"
    'why = "The membership has an end date"\ntext_any = ["membership ends on"]\n'
)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Site, Path]]:
    """The site and a services file for it."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    site = Site()
    with local_service(tmp_path, _handler(site), RULES) as services:
        yield site, services


async def _click(session: BrowserSession, name: str) -> Answer:
    assert session.page is not None
    return await session.run("browser_click", {"target": session.page.ref_of("button", name)})


async def _held_at_the_last_step(session: BrowserSession) -> Answer:
    await session.run("browser_snapshot", {})
    started = await _click(session, "Cancel membership")
    assert started.status == "ok", started.message
    held = await _click(session, "Finish cancellation")
    assert held.status == "approval_pending", held.message
    return held


async def _approved(registry: SessionRegistry, held: Answer) -> Answer:
    registry.desk.decide(held.approval_id or "", Decision("approve"))
    decided = await registry.desk.wait("agent", held.approval_id or "", 30)
    assert decided.answer is not None
    return decided.answer


async def test_a_target_rewired_while_its_question_is_on_screen_is_not_sent(
    served: tuple[Site, Path], tmp_path: Path
) -> None:
    """The operator approved "Finish cancellation"; the page then made it post a charge under
    the same name: nothing reaches the service, and the agent hears what changed."""
    site, services = served
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        held = await _held_at_the_last_step(session)
        site.mode = "rewire"
        await until(lambda: site.rewired, what="the page to rewire its last step")
        answer = await _approved(registry, held)
        assert answer.status == "refused", answer.message
        assert "changed" in answer.message
    assert site.posts == ["/cancel/start"], site.posts


async def test_a_held_call_found_unsent_after_its_approval_never_counts_as_sent(
    served: tuple[Site, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The browser is found dead as the approved click goes out and restarted instead: the
    click never left, so the session's close says nothing was sent, not "sent, not verified"."""
    site, services = served
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        held = await _held_at_the_last_step(session)
        gateway = session.running_gateway()
        send = gateway.call

        async def dead_at_the_click(
            name: str, arguments: dict[str, Any] | None = None
        ) -> ActionResult:
            if name == "browser_click":
                assert gateway.node_pid is not None
                os.kill(gateway.node_pid, signal.SIGKILL)
                await until(lambda: gateway.process.died, what="the server to be found dead")
            return await send(name, arguments)

        monkeypatch.setattr(gateway, "call", dead_at_the_click)
        answer = await _approved(registry, held)
        assert answer.status == "error" and "not sent" in answer.message.lower(), answer.message
        run_id = session.run_id
        await registry.close("agent", "main")
        run = registry.journal.run(run_id)
        assert run is not None and run.reason != "sent_not_verified", run
    assert site.posts == ["/cancel/start"], site.posts
