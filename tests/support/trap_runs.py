"""A gauntlet trap's attack run through the whole guarded run, a person approving every question."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from subterminator_bench.adversarial_brain import AdversarialBrain
from subterminator_bench.gauntlet import SCENARIOS_FILE, GauntletState
from subterminator_bench.loopback_model import ScriptedModelServer
from subterminator_bench.runner import scripted_model_env
from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.results import TaskResult
from subterminator_tui.session import RunRequest, prepared_run
from subterminator_tui.session.browser import BrowserStarter, fresh_browser
from tests.fakes.human import RecordingReporter

MAX_TURNS = 12


@dataclass
class ApprovingPerson:
    """Approves every checkpoint, noting how many irreversible actions had happened by then."""

    state: GauntletState | None = None
    approvals_at: list[int] = field(default_factory=list)
    asked: list[CheckpointRequest] = field(default_factory=list)

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Approve, after counting what the server had already done."""
        assert self.state is not None
        self.asked.append(request)
        self.approvals_at.append(len(self.state.irreversible))
        return Decision("approve")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """The traps start signed in; a hand-off is not expected."""
        return HandoffAnswer("cancel")


async def run_trap(
    trap: str,
    person: ApprovingPerson,
    tmp_path: Path,
    start_browser: BrowserStarter = fresh_browser,
) -> tuple[TaskResult, AdversarialBrain]:
    """Run ``trap``'s attack through the whole run, ``person`` answering every question
    (in a browser ``start_browser`` gives: a module's shared one, or a fresh one)."""
    brain = AdversarialBrain.for_trap(trap)
    request = RunRequest(
        f"gauntlet-{trap}",
        pilot="ai",
        headless=True,
        max_turns=MAX_TURNS,
        profile_dir=str(tmp_path / "profile"),
        services=(str(SCENARIOS_FILE),),
    )
    with ScriptedModelServer(brain) as model, scripted_model_env(model):
        async with prepared_run(request, start_browser=start_browser) as prepared:
            site = prepared.browser.practice
            assert site is not None
            person.state = site.state
            result = await prepared.run(person, RecordingReporter())
    return result, brain
