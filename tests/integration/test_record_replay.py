"""Record then replay on the gauntlet: the AI once, `record`, then the same service without a model.

The first run is the AI pilot (the scripted loopback model behind the real Anthropic
SDK); ``record_playbook`` writes its turns into the user's services file; the second
run is the default ``auto`` pilot with that file alone. Real browser, Playwright MCP,
practice site and journal throughout. The changed variant renames the button that
declines the offer: the playbook stops there and the AI finishes from that page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tomlkit

from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.events import Notice
from subterminator_tui.rules import PlaybookStep, load_services, user_services_file
from subterminator_tui.rules.recording import NEUTRAL_TEXT
from subterminator_tui.session import RunRequest
from subterminator_tui.session.record import RecordedService, record_playbook
from tests.conftest import in_worker_loop
from tests.fakes.human import ScriptedHuman
from tests.integration.runs import FinishedRun, run_service
from tests.support.scripted_models import scripted_model
from tests.support.shared_browser import SharedBrowser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.usefixtures("browser_without_keys"),
    in_worker_loop,
]

SCENARIOS = str(SCENARIOS_FILE)
#: The practice account, typed at hand-offs (never part of a turn, so never recorded).
PRACTICE_ACCOUNT = {
    "Username": "demo",
    "Password": "demo-pass",
    "Verification code": "246810",
    "Characters": "K7PX2",
}
FINISH = "Click button 'Finish cancellation'"


def gauntlet_steps(service_id: str) -> tuple[PlaybookStep, ...]:
    """The scenario's intended path, as scenarios.toml writes it."""
    services = load_services(user_file=None, practice_scenarios=True)
    return services.get(service_id).playbook


def person() -> ScriptedHuman:
    """Approves every checkpoint and types the practice account at every hand-off."""
    return ScriptedHuman([Decision("approve")] * 4, handoffs=[dict(PRACTICE_ACCOUNT)] * 4)


async def run_once(
    request: RunRequest, tmp_path: Path, name: str, shared: SharedBrowser
) -> FinishedRun:
    """One run on the worker's browser, reset before it: nothing of the run before (the
    AI's sign-in, its pages) is left, as on a profile of its own."""
    profile = tmp_path / name
    return await run_service(
        RunRequest(**{**request.__dict__, "profile_dir": str(profile), "headless": True}),
        person(),
        tmp_path,
        shared,
    )


async def ai_then_record(
    service_id: str, tmp_path: Path, env: pytest.MonkeyPatch, shared: SharedBrowser
) -> tuple[FinishedRun, RecordedService]:
    """The AI's run of ``service_id`` (from scenarios.toml), recorded into the user's file."""
    with scripted_model(gauntlet_steps(service_id), env) as model:
        first = await run_once(
            RunRequest(service_id, pilot="ai", services=(SCENARIOS,)), tmp_path, "ai", shared
        )
    assert first.result.reason == "completed", first.result
    assert first.result.model_calls == len(model.requests) > 0
    with Journal(first.journal_path) as journal:
        assert first.result.run_id is not None
        recorded = record_playbook(journal, first.result.run_id)
    return first, recorded


@pytest.mark.parametrize(
    "service_id",
    [
        "gauntlet-decoy-offer",
        pytest.param("gauntlet-survey-free-text", marks=pytest.mark.slow),
        pytest.param("gauntlet-login", marks=pytest.mark.slow),
        pytest.param("gauntlet-native-confirm", marks=pytest.mark.slow),
        pytest.param("gauntlet-cookie-banner", marks=pytest.mark.slow),
    ],
)
async def test_a_recorded_run_replays_without_a_model(
    service_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """Record, then replay from the user's file alone: 0 model calls, the same asks."""
    first, recorded = await ai_then_record(service_id, tmp_path, monkeypatch, shared_runs)
    assert recorded.path == user_services_file() and not recorded.replaced
    with scripted_model(gauntlet_steps(service_id), monkeypatch) as model:
        replay = await run_once(RunRequest(service_id), tmp_path, "replay", shared_runs)
    assert replay.result.reason == "completed", replay.result
    assert replay.result.model_calls == 0 and model.requests == []
    assert replay.state.cancel_requests == 1
    # Checkpoints apply to replayed steps exactly as to the AI's.
    asked = [request.action for request in replay.human.approvals]
    assert asked == [request.action for request in first.human.approvals]
    assert FINISH in asked or "native" in service_id
    written = recorded.path.read_text(encoding="utf-8")
    for typed in PRACTICE_ACCOUNT.values():
        assert typed not in written


async def test_free_text_the_page_did_not_show_is_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """The model's survey answer becomes a neutral sentence; the page's own choice stays."""
    _first, recorded = await ai_then_record(
        "gauntlet-survey-free-text", tmp_path, monkeypatch, shared_runs
    )
    typed = [step["text"] for step in recorded.recorded.steps if step["action"] == "type"]
    assert typed == [NEUTRAL_TEXT]
    assert "It costs more than I watch." not in recorded.path.read_text(encoding="utf-8")


async def test_a_renamed_button_hands_over_to_the_ai_and_the_run_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """The site renames "Continue to cancel": the playbook stops there, the AI finishes."""
    _first, recorded = await ai_then_record(
        "gauntlet-decoy-offer", tmp_path, monkeypatch, shared_runs
    )
    # The same account, its decline button now "No thanks, I don't like saving money".
    document = tomlkit.parse(recorded.path.read_text(encoding="utf-8"))
    document["services"]["gauntlet-decoy-offer"]["practice_variants"] = [  # type: ignore[index]
        "confirmshaming",
        "remembered",
    ]
    recorded.path.write_text(tomlkit.dumps(document), encoding="utf-8")
    # The AI starts from the offer page: the playbook already pressed Cancel membership.
    rest = gauntlet_steps("gauntlet-confirmshaming")[1:]
    with scripted_model(rest, monkeypatch) as model:
        replay = await run_once(
            RunRequest("gauntlet-decoy-offer"), tmp_path, "changed", shared_runs
        )
    assert replay.result.reason == "completed", replay.result
    assert replay.result.model_calls == len(model.requests) > 0
    notices = [event.text for event in replay.reporter.of(Notice)]
    assert any("The playbook diverged" in text and "the AI takes over" in text for text in notices)
    assert [request.action for request in replay.human.approvals] == [FINISH]
    assert replay.state.cancel_requests == 1 and not replay.state.offer_accepted
