"""A run from request to result: the journal and browser opened, the pilot and loop built.

Every front end (the headless CLI, the Textual app, the bench, the coming server)
starts runs through here and nowhere else.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from subterminator_tui.browser.tools import MODEL_TOOL_NAMES
from subterminator_tui.costs import price_for
from subterminator_tui.errors import JournalWriteError
from subterminator_tui.guarded.gates import HumanGate
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.journal.store import Journal, RunRow
from subterminator_tui.orchestrator.events import Notice, Reporter
from subterminator_tui.orchestrator.loop import Orchestrator
from subterminator_tui.orchestrator.turns import RunOptions
from subterminator_tui.pilots.base import Pilot
from subterminator_tui.plurals import plural
from subterminator_tui.practice.sites import practice_hint
from subterminator_tui.results import TaskResult
from subterminator_tui.session.browser import (
    BrowserStarter,
    ServiceBrowser,
    fresh_browser,
    open_service_browser,
)
from subterminator_tui.session.pilot import build_pilot
from subterminator_tui.session.request import CheckedRequest, RunRequest, check_request

#: Runs one cancellation against the gate and reporter a front end provides.
RunSession = Callable[[HumanGate, Reporter], Awaitable[TaskResult]]


@dataclass(frozen=True)
class PreparedRun:
    """A checked request with its journal and browser open, ready to run once."""

    checked: CheckedRequest
    browser: ServiceBrowser
    journal: Journal
    #: Earlier runs of this service that a crash or a kill left unfinished.
    interrupted: tuple[RunRow, ...] = ()

    async def run(
        self,
        gate: HumanGate,
        reporter: Reporter,
        *,
        pilot: Pilot | None = None,
        offered_tools: frozenset[str] = MODEL_TOOL_NAMES,
    ) -> TaskResult:
        """Build the pilot and the loop for ``gate`` and ``reporter``, and drive the run.

        ``pilot`` drives instead of the one the request asks for (a front end with a
        pilot of its own, such as the bench's baseline), and ``offered_tools`` are the
        browser tools the guard lets it call.
        """
        for earlier in self.interrupted:
            reporter.emit(Notice(interrupted_notice(self.journal, earlier), "warning"))
        orchestrator = self.orchestrator(gate, reporter, pilot=pilot, offered_tools=offered_tools)
        try:
            result = await orchestrator.run()
        finally:
            await orchestrator.pilot.aclose()
            # Playwright MCP's own files (snapshots, console logs) keep no typed value either.
            orchestrator.scrubber.files(self.browser.gateway.plan.output_dir)
        if result.run_id is not None:
            for earlier in self.interrupted:
                with contextlib.suppress(JournalWriteError):
                    self.journal.close_interrupted(earlier.id, by_run=result.run_id)
        return result

    def orchestrator(
        self,
        gate: HumanGate,
        reporter: Reporter,
        *,
        pilot: Pilot | None = None,
        offered_tools: frozenset[str] = MODEL_TOOL_NAMES,
    ) -> Orchestrator:
        """The loop for this run (the pilot's model client is created here)."""
        checked, opened = self.checked, self.browser
        if pilot is None:
            pilot = build_pilot(checked, opened.start_url, reporter)
        # The browser's service: a practice site's address is pinned to its port there.
        service = opened.service
        guard = Guard(
            service,
            offered_tools=offered_tools,
            checkpoints=checked.request.checkpoints,
            reach=opened.reach,
        )
        options = RunOptions(
            start_url=opened.start_url,
            max_turns=checked.max_turns,
            headed=not opened.gateway.plan.headless,
            dry_run=checked.request.dry_run,
            handoff_hint=practice_hint() if opened.practice is not None else "",
            # After an interrupted run the page is looked at first: it may be done already.
            verify_first=bool(self.interrupted),
            price=price_for(pilot.model_name, checked.settings.resolved_prices()),
        )
        return Orchestrator(
            service, opened.gateway, pilot, gate, reporter, guard, options, self.journal
        )


@asynccontextmanager
async def prepared_run(
    request: RunRequest | CheckedRequest, *, start_browser: BrowserStarter = fresh_browser
) -> AsyncIterator[PreparedRun]:
    """The journal and browser for ``request``, closed on exit however the run ends.

    ``start_browser`` starts the run's browser: a fresh one for every run in the product
    (tests may share one across runs, reset in between).
    """
    checked = request if isinstance(request, CheckedRequest) else check_request(request)
    with Journal(checked.settings.resolved_journal()) as journal:
        async with open_service_browser(
            checked.service,
            checked.settings,
            headless=checked.request.headless,
            profile_dir=checked.profile_dir,
            practice_url=checked.request.practice_url,
            sign_in=checked.sign_in,
            start_browser=start_browser,
        ) as opened:
            interrupted = tuple(journal.interrupted_runs(checked.service.id))
            yield PreparedRun(checked, opened, journal, interrupted)


def interrupted_notice(journal: Journal, run: RunRow) -> str:
    """What the person hears about an interrupted run of the same service."""
    steps = journal.steps(run.id)
    last = f"; its last irreversible step: {steps[-1].state.replace('_', ' ')}" if steps else ""
    return (
        f"Run {run.id} of {run.service} was interrupted after "
        f"{plural(run.turns or 0, 'turn')}{last}. "
        "This run looks at the page first and repeats nothing blindly: any irreversible step "
        "asks you again."
    )


class CancelSession:
    """One cancellation for a front end: checked when made, the browser opened when called.

    ``browser`` is the running browser (and practice site) while the run lasts, so a
    front end can show or read it.
    """

    def __init__(
        self, request: RunRequest, *, start_browser: BrowserStarter = fresh_browser
    ) -> None:
        self.checked = check_request(request)
        self.browser: ServiceBrowser | None = None
        #: Starts the run's browser: a fresh one in the product (as for ``prepared_run``).
        self.start_browser = start_browser

    async def __call__(self, gate: HumanGate, reporter: Reporter) -> TaskResult:
        """Open everything, run to the end, close everything."""
        async with prepared_run(self.checked, start_browser=self.start_browser) as prepared:
            self.browser = prepared.browser
            return await prepared.run(gate, reporter)
