"""Lying and stale pages through the whole loop: success is judged on what happened.

A small site on 127.0.0.1 keeps the truth (did the finishing request arrive?) and
serves three hostile flows; a scripted pilot that clicks by name drives the real loop,
guard, Playwright MCP and Chromium, and a person approves every checkpoint:

- ``early``: the survey before the last step already prints "Your membership ends on
  ...": a claim there is not verified (no approved step was sent), and the run then
  finishes for real and is verified after the approved step.
- ``pushstate``: "Continue" writes ``/cancel/done`` into the address bar with
  ``history.pushState`` and shows the confirmation: nothing was approved or sent, so
  the run ends unverified and says "not cancelled", truthfully.
- ``stale``: the approved finish really cancels, then the site shows the stale account
  page: the run ends "sent, not verified" (exit 4), never "not cancelled".
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import pytest_asyncio

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.browser.tools import MODEL_TOOL_NAMES
from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.orchestrator.loop import Orchestrator
from subterminator_tui.orchestrator.turns import RunOptions
from subterminator_tui.pilots.base import PilotTurn
from subterminator_tui.results import TaskResult
from subterminator_tui.rules import ServiceConfig
from subterminator_tui.settings import load_settings
from tests.conftest import browser_parts_missing
from tests.fakes.human import RecordingReporter

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

ENDS = "Your membership ends on December 22, 2026."
STYLE = "<style>body{font:16px sans-serif}</style>"


def _doc(title: str, body: str) -> bytes:
    return f"<!doctype html><title>{title}</title>{STYLE}<main>{body}</main>".encode()


def _button(action: str, label: str) -> str:
    return f'<form method="post" action="{action}"><button>{label}</button></form>'


ACCOUNT = _doc(
    "Account",
    "<h1>Account</h1><p>Premium plan</p>" + _button("/cancel/start", "Cancel membership"),
)
CONFIRM = _doc(
    "Confirm",
    "<h1>Finish cancelling</h1><p>Your access continues until December 22, 2026.</p>"
    + _button("/cancel/finish", "Finish cancellation"),
)
DONE = _doc("Cancelled", f"<h1>Cancellation confirmed</h1><p>{ENDS}</p>")
EARLY = _doc(
    "Survey",
    f"<h1>Why are you leaving?</h1><p>{ENDS}</p>" + _button("/cancel/survey", "Continue"),
)
PUSH = _doc(
    "Review",
    "<h1>Review</h1><p id='msg'>One more step.</p>"
    "<button onclick=\"history.pushState({}, '', '/cancel/done');"
    f"document.getElementById('msg').textContent='{ENDS}'\">Continue</button>",
)
#: After each POST, per flow: where the browser goes next.
NEXT = {
    "early": {"/cancel/start": "/cancel/survey", "/cancel/survey": "/cancel/confirm"},
    "pushstate": {"/cancel/start": "/cancel/review"},
    "stale": {"/cancel/start": "/cancel/confirm"},
}


@dataclass
class Site:
    """The truth, and which flow is served."""

    flow: str = "early"
    finished: int = 0
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The site's address."""
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    pages = {
        "/account": ACCOUNT,
        "/cancel/survey": EARLY,
        "/cancel/review": PUSH,
        "/cancel/confirm": CONFIRM,
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/cancel/done":
                # The stale flow shows the old account page where the confirmation belongs.
                body = ACCOUNT if site.flow == "stale" or not site.finished else DONE
            else:
                body = pages.get(self.path, ACCOUNT)
            self._send(200, body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            if self.path == "/cancel/finish":
                site.finished += 1
                target = "/cancel/done"
            else:
                target = NEXT[site.flow].get(self.path, "/account")
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


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """The site, one flow at a time."""
    state = Site()
    state.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=state.server.serve_forever, daemon=True)
    thread.start()
    yield state
    state.server.shutdown()
    state.server.server_close()
    thread.join()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BrowserGateway]:
    """One headless browser for every flow."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    root = tmp_path_factory.mktemp("lies")
    plan = plan_launch(
        load_settings(), headless=True, profile_dir=root / "profile", runs_root=root / "runs"
    )
    async with BrowserGateway(plan) as gateway:
        yield gateway


@dataclass
class NamedPilot:
    """Clicks buttons by name, or claims success ("done"), in order; then claims again."""

    script: list[str]
    name: str = "ai"
    model_name: str | None = "scripted"
    heard: list[dict[str, Any]] = field(default_factory=list)

    def begin(self, snapshot: NormalizedSnapshot) -> None:
        """Nothing to prepare."""

    async def next_turn(self, snapshot: NormalizedSnapshot) -> PilotTurn:
        """The next scripted move on ``snapshot``."""
        move = self.script.pop(0) if self.script else "done"
        if move == "done":
            call = ToolCall("c", "complete_task", {"status": "success", "reason": "Cancelled."})
        else:
            call = ToolCall("c", "browser_click", {"target": snapshot.ref_of("button", move)})
        return PilotTurn(call, model_calls=1)

    def observe(
        self, call: ToolCall, status: dict[str, Any], snapshot: NormalizedSnapshot | None
    ) -> None:
        """Keep what the loop said."""
        self.heard.append(status)

    def nudge(self, text: str) -> None:
        """Never silent."""

    async def aclose(self) -> None:
        """Nothing to release."""


class Approves:
    """A person who approves every checkpoint."""

    def __init__(self) -> None:
        self.asked: list[CheckpointRequest] = []

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Yes."""
        self.asked.append(request)
        return Decision("approve")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """No hand-off here."""
        return HandoffAnswer("cancel")


def service(url: str) -> ServiceConfig:
    """The site's rules: the final step asks; the end date verifies."""
    return ServiceConfig.model_validate(
        {
            "id": "liar",
            "source": "test",
            "name": "Liar",
            "start_url": f"{url}/account",
            # The site's origin: a loopback address means that address and port only.
            "allowed_domains": [url],
            "goal": "Cancel.",
            "checkpoint": [{"why": "Finishing is irreversible", "target_any": ["finish"]}],
            "success": [{"why": "The end date", "text_any": ["membership ends on"]}],
        },
        strict=False,
    )


async def run_flow(flow: str, script: list[str], site: Site, browser: BrowserGateway) -> TaskResult:
    """Run ``flow`` with the scripted pilot; the site's truth is reset first."""
    site.flow, site.finished = flow, 0
    rules = service(site.url)
    guard = Guard(rules, offered_tools=MODEL_TOOL_NAMES)
    options = RunOptions(start_url=f"{site.url}/account", max_turns=8)
    loop = Orchestrator(
        rules, browser, NamedPilot(script), Approves(), RecordingReporter(), guard, options
    )
    return await loop.run()


async def test_a_confirmation_printed_before_the_last_step_is_not_believed(
    site: Site, browser: BrowserGateway
) -> None:
    """The survey's early "membership ends on" verifies nothing; the real finish does."""
    script = ["Cancel membership", "done", "Continue", "Finish cancellation", "done"]
    result = await run_flow("early", script, site, browser)
    assert (result.reason, result.success, result.exit_code) == ("completed", True, 0)
    assert site.finished == 1
    assert "shown after the approved step" in (result.message or "")


async def test_a_pushstate_to_done_is_no_cancellation(site: Site, browser: BrowserGateway) -> None:
    """ "Continue" fakes /cancel/done and the end date; nothing was sent: not cancelled, exit 1."""
    result = await run_flow("pushstate", ["Cancel membership", "Continue"], site, browser)
    assert site.finished == 0
    assert (result.success, result.verified) == (False, False)
    assert (result.reason, result.exit_code) == ("verification_failed", 1)


async def test_a_stale_page_after_the_approved_finish_is_sent_not_verified(
    site: Site, browser: BrowserGateway
) -> None:
    """The service cancelled, the page went stale: "sent, not verified" (exit 4)."""
    result = await run_flow("stale", ["Cancel membership", "Finish cancellation"], site, browser)
    assert site.finished == 1
    assert (result.reason, result.exit_code) == ("sent_not_verified", 4)
    assert "check http://127.0.0.1" in (result.message or "")
