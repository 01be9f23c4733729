"""One orchestrated run over a fake browser and a real journal, and the pages it starts on."""

from __future__ import annotations

from pathlib import Path

from subterminator_tui.browser.tools import MODEL_TOOL_NAMES
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.events import RunFinished
from subterminator_tui.orchestrator.loop import Orchestrator
from subterminator_tui.orchestrator.turns import RunOptions
from subterminator_tui.results import TaskResult
from subterminator_tui.rules import load_services
from subterminator_tui.rules.service_urls import pinned_to_site
from tests.fakes.browser import FakeBrowser
from tests.fakes.human import RecordingReporter, ScriptedHuman
from tests.fakes.pilot import ScriptedPilot, calls
from tests.fixtures.pages import page

START = "http://127.0.0.1:8000/account"


class LoopRun:
    """One orchestrated run over a fake browser, with a real journal in ``tmp_path``."""

    def __init__(self, tmp_path: Path, pilot: ScriptedPilot, browser: FakeBrowser) -> None:
        self.pilot, self.browser = pilot, browser
        self.human, self.reporter = ScriptedHuman(), RecordingReporter()
        self.journal = Journal(tmp_path / "journal.sqlite3")
        # The practice site's address pinned to its port, as a running browser does.
        service = pinned_to_site(load_services(user_file=None).get("demoflix"), START)
        self.orchestrator = Orchestrator(
            service,
            browser,
            pilot,
            self.human,
            self.reporter,
            Guard(service, offered_tools=MODEL_TOOL_NAMES),
            RunOptions(start_url=START, max_turns=5),
            self.journal,
        )

    async def result(self) -> TaskResult:
        """Run to the end; check the invariants every ending shares."""
        result = await self.orchestrator.run()
        finished = [e for e in self.reporter.events if isinstance(e, RunFinished)]
        assert [e.result for e in finished] == [result], "exactly one RunFinished, this result"
        assert result.run_id is not None
        row = self.journal.run(result.run_id)
        assert row is not None and row.ended_at is not None, "the journal row is finished"
        assert row.reason == result.reason
        return result


def finishing(claims: int = 1) -> tuple[ScriptedPilot, FakeBrowser]:
    """A pilot that clicks Finish cancellation on the confirmation page, then claims success;
    the browser shows the confirmation after the click."""
    finish = page("confirm").ref_of("button", "Finish cancellation")
    claim = calls("complete_task", status="success", reason="Cancelled.")
    pilot = ScriptedPilot([calls("browser_click", target=finish), *[claim] * claims])
    after = {"browser_navigate": page("confirm"), "browser_click": page("done")}
    return pilot, FakeBrowser(page("confirm"), answer=lambda name, _a: after[name])
