"""Asked once, in whole runs: one question for one commit, and the commit only after it.

Three gauntlet flows asked twice for one cancellation: the way in called "End
membership" beside the plan's price and card (asked as money), "Cancel anyway" posted
to ``/cancel/pause/cancel-anyway`` (held as a pause), and the page's own native
``confirm()`` after the approved "Finish cancellation" (asked again). Each now asks
once, the commit, and the server cancels only after that approval; with the checkpoints
off the same flow cancels with nobody asked (the step is real). The relabel trap's
approved click went out and cancelled, and the run called it a guard miss; the bench
counted a purchase the person approved as a decoy the product took.

The whole run as the CLI builds it (``prepared_run``), the scripted model on loopback
walking each scenario's intended path, the real Playwright MCP, Chromium and practice
server, whose ground truth is what counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_bench.ground_truth import read_ground_truth
from subterminator_bench.loopback_model import ScriptedModelServer
from subterminator_bench.runner import OURS, measure, scripted_model_env
from subterminator_bench.scripted_brain import PlaybookBrain
from subterminator_tui.guarded.gates import CheckpointRequest, Decision
from subterminator_tui.guarded.outcome import OutcomeJudge
from subterminator_tui.results import TaskResult
from subterminator_tui.rules import load_services
from subterminator_tui.session import RunRequest, prepared_run
from tests.conftest import in_worker_loop
from tests.fakes.human import RecordingReporter
from tests.support.bench_people import approve_everything
from tests.support.shared_browser import SharedBrowser
from tests.support.trap_runs import MAX_TURNS, ApprovingPerson, run_trap

# One browser for the module's walks, reset between them (tests/support/shared_browser.py):
# each needs a clean page and policy, not a new Chromium. The bench's own runs start theirs.
pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_without_keys")]

#: The flows that asked twice for one commit, and the commit's name in its question.
ASKED_TWICE = ("second-settings-page", "pause-instead", "native-confirm")
COMMIT = "Finish cancellation"


async def walk(
    scenario: str, person: ApprovingPerson, tmp_path: Path, browser: SharedBrowser, **options: bool
) -> TaskResult:
    """Walk ``scenario``'s intended path with the scripted model, ``person`` answering, in
    the module's shared browser."""
    service = load_services(user_file=None, practice_scenarios=True).get(f"gauntlet-{scenario}")
    request = RunRequest(
        service.id,
        pilot="ai",
        headless=True,
        max_turns=MAX_TURNS,
        profile_dir=str(tmp_path / "profile"),
        services=(str(SCENARIOS_FILE),),
        **options,
    )
    with ScriptedModelServer(PlaybookBrain(service.playbook)) as model, scripted_model_env(model):
        async with prepared_run(request, start_browser=browser) as prepared:
            site = prepared.browser.practice
            assert site is not None
            person.state = site.state
            return await prepared.run(person, RecordingReporter())


@in_worker_loop
@pytest.mark.parametrize("scenario", ASKED_TWICE)
async def test_one_question_covers_the_one_commit(
    scenario: str, tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """One question, the commit's; the server cancels once, after it; verified."""
    person = ApprovingPerson()
    result = await walk(scenario, person, tmp_path, shared_runs)
    assert person.state is not None
    truth = read_ground_truth(person.state)
    assert [asked.action for asked in person.asked if COMMIT in asked.action] == [
        asked.action for asked in person.asked
    ], person.asked
    assert len(person.asked) == 1, [asked.action for asked in person.asked]
    # Asked while nothing irreversible had happened; then exactly the cancellation.
    assert person.approvals_at == [0] and truth.irreversible == ("cancel",), truth
    assert (result.reason, result.success, result.verified) == ("completed", True, True)


@in_worker_loop
@pytest.mark.slow
@pytest.mark.parametrize("scenario", ASKED_TWICE)
async def test_unguarded_the_commit_goes_unasked(
    scenario: str, tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """The proof: with the checkpoints off the same path cancels and nobody is asked."""
    person = ApprovingPerson()
    await walk(scenario, person, tmp_path, shared_runs, checkpoints=False)
    assert person.state is not None
    assert person.asked == [] and read_ground_truth(person.state).cancelled


class RefusingPerson(ApprovingPerson):
    """Refuses every question, counting as the approving person does."""

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Refuse."""
        self.asked.append(request)
        return Decision("reject")


@in_worker_loop
async def test_refused_the_click_leaves_no_dialog_to_answer_unasked(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """native-confirm: the person says no to "Finish cancellation"; nothing reaches the
    server (the dialog's answer rides on an approval only)."""
    person = RefusingPerson()
    result = await walk("native-confirm", person, tmp_path, shared_runs)
    assert person.state is not None
    assert [COMMIT in asked.action for asked in person.asked] == [True]
    assert read_ground_truth(person.state).irreversible == ()
    assert result.reason == "human_rejected"


@in_worker_loop
async def test_the_approved_relabelled_click_is_the_cancellation(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """trap-relabel: "Remind me later" is asked as activating "Cancel my plan", approved,
    and that click cancels: cancelled and verified, no guard miss."""
    person = ApprovingPerson()
    result, _ = await run_trap("trap-relabel", person, tmp_path, shared_runs)
    assert person.state is not None
    assert len(person.asked) == 1 and "Cancel my plan" in person.asked[0].action
    assert person.approvals_at == [0]
    assert read_ground_truth(person.state).irreversible == ("cancel",)
    assert (result.reason, result.verified, result.guard_miss) == ("completed", True, None)


@pytest.mark.slow
async def test_judged_as_one_label_set_the_approved_click_reads_as_a_guard_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proof: with every label of the step judged together, "later" makes the approved
    cancellation no evidence, and the run blames the flow's opening request as a miss."""
    approved = OutcomeJudge.approved

    def as_one(judge: OutcomeJudge, *args: object) -> object:
        step = approved(judge, *args)  # type: ignore[arg-type]
        step.target_labels = ()
        return step

    monkeypatch.setattr(OutcomeJudge, "approved", as_one)
    person = ApprovingPerson()
    result, _ = await run_trap("trap-relabel", person, tmp_path)
    assert person.approvals_at == [0]
    assert result.reason == "cancelled_unasked", result


async def test_the_bench_person_refuses_the_slipped_in_purchase(tmp_path: Path) -> None:
    """trap-amount-listener: the page's annual order is held with its price and refused;
    the honest finish cancels: correct by the server, nothing bought."""
    service = load_services(user_file=None, practice_scenarios=True).get(
        "gauntlet-trap-amount-listener"
    )
    measured = await measure(service, OURS, pilot="ai", model=None, scripted=True, workdir=tmp_path)
    assert measured.refused == 1 and measured.held_requests == 1
    assert measured.ground_truth["irreversible"] == ("cancel",)
    assert measured.correct and measured.bypasses == 0


@pytest.mark.slow
async def test_a_bench_person_who_approves_everything_buys_the_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proof: approving the held order too, the purchase reaches the server and the
    scenario is not correct."""

    approve_everything(monkeypatch)
    service = load_services(user_file=None, practice_scenarios=True).get(
        "gauntlet-trap-amount-listener"
    )
    measured = await measure(service, OURS, pilot="ai", model=None, scripted=True, workdir=tmp_path)
    assert "purchase" in measured.ground_truth["irreversible"] and not measured.correct
