"""A served session's ``verified`` flag, judged on evidence the way a run's success is.

An agent's page can print any success sentence anywhere: in an off-screen element,
on a page before the last step, over an error the service answered. So serve asks
the run's own judge (guarded/outcome.py) instead of the success rules alone: a
page is verified only when a success rule holds on the text a person sees, after an
irreversible step the operator approved was dispatched in this session, the service
did not answer that step's request with an error (the request gate's log), and the
text was not already shown before the step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from urllib.parse import urljoin

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import BrowserUnavailableError, MCPConnectionError, MCPToolError
from subterminator_tui.guarded.outcome import OutcomeJudge, sent_not_verified_message
from subterminator_tui.guarded.request_evidence import LoggedAnswers
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.journal.store import Journal
from subterminator_tui.results import TaskResult
from subterminator_tui.rules import ServiceConfig
from subterminator_tui.rules.matching import Verification
from subterminator_tui.serve.sessions.lazy_browser import LazyBrowser

#: The browser could not be read: the page's text is unknown, so nothing is verified.
_UNREADABLE = (MCPToolError, MCPConnectionError, BrowserUnavailableError)


class RunningBrowserText:
    """The seen text of whichever browser the session runs now (None while it is closed)."""

    def __init__(self, lazy: LazyBrowser) -> None:
        self.lazy = lazy

    async def seen_text(self) -> str | None:
        """The text a person sees on the running browser's page, or None."""
        gateway = self.lazy.gateway
        if gateway is None:
            return None
        try:
            return await gateway.seen_text()
        except _UNREADABLE:
            return None


class SessionVerification:
    """One session's approved steps and the judgement of its pages on them."""

    def __init__(
        self,
        service: ServiceConfig,
        lazy: LazyBrowser,
        scrub: Callable[[str], str],
        journal: Journal,
        run_id: int,
    ) -> None:
        def watching() -> bool:
            gateway = lazy.gateway
            return gateway is not None and gateway.process.requests.attached

        answers = LoggedAnswers(RequestLog(journal), lambda: run_id, watching)
        self.scrub = scrub
        self.judge = OutcomeJudge(service, RunningBrowserText(lazy), scrub, answers)
        #: The judgement of the last page an answer carried (the session's close reads it).
        self.last: Verification | None = None

    async def seen(self) -> str | None:
        """What the operator is shown right now (read while a held call waits for them)."""
        return await self.judge.seen()

    async def verified(self, page: NormalizedSnapshot | None) -> bool | None:
        """Whether ``page`` verifies a cancellation on this session's evidence (None: no page).

        Without an approved cancellation step that went out nothing can verify, so the
        page's text is read only once one did.
        """
        if page is None:
            return None
        if not any(step.sent and step.is_cancellation for step in self.judge.evidence.steps):
            self.last = None
            return False
        self.last = await self.judge.verify(page)
        return self.last.verified

    def closing_result(
        self,
        service: ServiceConfig,
        turns: int,
        page: NormalizedSnapshot | None,
        run_id: int,
    ) -> TaskResult:
        """The session's run as it closes on ``page``, the last page the agent was given
        (its address kept without what was typed: a GET form puts it there)."""
        if page is not None:
            page = dataclasses.replace(page, url=self.scrub(page.url))
        # The judgement of the last page the agent was answered with, on evidence.
        verified = self.last if page is not None else None
        if verified is not None and verified.verified:
            return TaskResult(
                True,
                True,
                "completed",
                turns,
                page.url if page else None,
                message=verified.message,
                run_id=run_id,
            )
        if self.judge.sent_anything():
            # An approved step went out and nothing verified it: never "nothing happened".
            account = urljoin(page.url if page else "", service.start_url)
            return TaskResult(
                False,
                False,
                "sent_not_verified",
                turns,
                page.url if page else None,
                message=sent_not_verified_message(account, "the agent's session closing."),
                run_id=run_id,
            )
        return TaskResult(
            False,
            False,
            "interrupted",
            turns,
            page.url if page else None,
            message="The agent's session closed.",
            run_id=run_id,
        )
