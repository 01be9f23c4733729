"""A run of a portal service whose person signs in at Practice ID, and what the guards did."""

from __future__ import annotations

import dataclasses
import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.errors import MCPToolError
from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.practice.portal.state import PROVIDER_EMAIL, PROVIDER_PASSWORD, PortalState
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.results import TaskResult
from subterminator_tui.session import RunRequest, prepared_run
from subterminator_tui.settings import load_settings
from tests.conftest import browser_parts_missing
from tests.fakes.human import RecordingReporter
from tests.support.shared_browser import select_opened_tab

#: Practice ID, the sign-in provider, on a second loopback address.
PROVIDER = ipaddress.ip_address("127.0.0.2")


@dataclass
class PersonAtTheWindow:
    """Signs in at Practice ID when handed the browser (in a pop-up if asked), approves steps."""

    popup: bool = False
    gateway: BrowserGateway | None = None
    reach: Reachability | None = None
    handoffs: list[HandoffRequest] = field(default_factory=list)
    approvals: list[CheckpointRequest] = field(default_factory=list)
    #: At each approval: was the sign-in window open, and would the filter reach Practice ID?
    open_at_approval: list[bool] = field(default_factory=list)

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Approve, noting whether the identity provider is reachable at that moment."""
        assert self.reach is not None
        self.approvals.append(request)
        self.open_at_approval.append(
            self.reach.sign_in_open or self.reach.names_address(PROVIDER, 443)
        )
        return Decision("approve")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """Sign in at Practice ID in the browser, as the person would."""
        assert self.gateway is not None
        self.handoffs.append(request)
        page = await self.gateway.snapshot()
        if page.url.endswith("/login"):
            if self.popup:
                ref = page.ref_of("button", "Continue with Practice ID in a pop-up")
                page = (await self.gateway.call("browser_click", {"target": ref})).snapshot
                await select_opened_tab(self.gateway, 1)
            else:
                ref = page.ref_of("link", "Continue with Practice ID")
                await self.gateway.call("browser_click", {"target": ref})
            page = await self.gateway.snapshot()
        typed = [("Email", PROVIDER_EMAIL, False), ("Password", PROVIDER_PASSWORD, True)]
        for label, value, submit in typed:
            arguments = {"target": page.ref_of("textbox", label), "text": value, "submit": submit}
            await self.gateway.call("browser_type", arguments)
        return HandoffAnswer("done_in_browser")


@dataclass
class SignInRun:
    """What a sign-in run did."""

    result: TaskResult
    state: PortalState
    person: PersonAtTheWindow
    blocked_hosts: set[str]
    #: Requests to Practice ID the egress filter refused during the run itself.
    refused_during_run: int
    #: Practice ID pages the request gate answered with the refusal page instead.
    gate_refused: int
    #: After the run, on the same browser: the filter's answer to Practice ID.
    refused_after: bool
    journal_text: bytes


async def refused_now(gateway: BrowserGateway, url: str) -> bool:
    """Whether opening ``url`` is refused: by the request gate in the browser (while the run's
    gate still watches, nothing is sent) or by the egress filter's refusal page."""
    try:
        after = await gateway.call("browser_navigate", {"url": url})
    except MCPToolError as refused:
        return "ERR_BLOCKED_BY_CLIENT" in str(refused)
    return after.snapshot.title.startswith("SubTerminator blocked a request to")


async def run_portal(service: str, tmp_path: Path, *, popup: bool = False) -> SignInRun:
    """Run ``service`` (a portal variant) with a person who signs in at Practice ID."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    request = dataclasses.replace(
        RunRequest(service, pilot="playbook"), profile_dir=str(tmp_path / "profile")
    )
    person = PersonAtTheWindow(popup=popup)
    async with prepared_run(request) as prepared:
        opened = prepared.browser
        assert opened.practice is not None and opened.egress is not None
        person.gateway, person.reach = opened.gateway, opened.reach
        result = await prepared.run(person, RecordingReporter())
        blocked = opened.egress.counters.blocked
        refused_during_run = sum(1 for entry in blocked if entry.host == "127.0.0.2")
        # The request gate in the browser answers a sign-in page with the filter's own
        # refusal page while the window is closed; such a page never reaches the filter.
        gate_refused = opened.gateway.requests.refused_hosts.count("127.0.0.2")
        provider_url = opened.practice.provider_url  # type: ignore[attr-defined]
        refused_after = await refused_now(opened.gateway, f"{provider_url}/authorize")
        state = opened.practice.state
        blocked_hosts = opened.egress.counters.blocked_hosts()
    journal = load_settings().resolved_journal()
    text = b"".join(path.read_bytes() for path in journal.parent.glob(journal.name + "*"))
    return SignInRun(
        result, state, person, blocked_hosts, refused_during_run, gate_refused, refused_after, text
    )
