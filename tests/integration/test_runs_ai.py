"""Whole runs with the AI pilot: the real SDKs against a loopback fake model, the real browser.

The fake model's decisions are scripted, but every request and reply goes
through the official SDK's wire format, and every action through the real
guard, Playwright MCP and Chromium.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from subterminator_tui.costs import Usage
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.events import PageSeen
from subterminator_tui.session import RunRequest
from subterminator_tui.settings import load_settings
from tests.conftest import in_worker_loop
from tests.fakes.demoflix_brain import DemoflixBrain, find_ref
from tests.fakes.fake_model import FakeModelServer, FakeRequest, FakeTurn
from tests.fakes.human import ScriptedHuman
from tests.fakes.provider_env import clear_provider_env
from tests.integration.runs import run_service
from tests.support.shared_browser import SharedBrowser

# One browser for the module's runs, reset between them (tests/support/shared_browser.py):
# each run needs a clean page and policy, not a new Chromium.
pytestmark = [pytest.mark.browser, in_worker_loop]

API_KEY = "sk-ant-test-key-4b1d9e"


@pytest.fixture
def anthropic_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Provider variables cleared, a test key set; tests add the base URL."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    yield monkeypatch


def serve(brain: object, env: pytest.MonkeyPatch) -> FakeModelServer:
    """Start a fake model and point the Anthropic SDK at it."""
    server = FakeModelServer(brain)  # type: ignore[arg-type]
    server.start()
    env.setenv("ANTHROPIC_BASE_URL", server.base_url)
    return server


@contextmanager
def serving(brain: object, env: pytest.MonkeyPatch) -> Iterator[FakeModelServer]:
    """A started fake model the Anthropic SDK points at, stopped afterwards."""
    server = serve(brain, env)
    try:
        yield server
    finally:
        server.stop()


def bodies(server: FakeModelServer) -> list[dict[str, object]]:
    """Every request body the fake model received."""
    return [request.body for request in server.requests]


async def test_ai_pilot_cancels_through_the_real_sdk(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """A model drives the flow, the human approves, the rules verify."""
    with serving(DemoflixBrain(), anthropic_env) as server:
        run = await run_service(
            RunRequest("demoflix", pilot="ai"),
            ScriptedHuman([Decision("approve")]),
            tmp_path,
            start_browser=shared_runs,
        )
    assert run.result.reason == "completed" and run.result.verified
    assert run.state.cancel_requests == 1 and not run.state.offer_accepted
    assert run.result.model_calls == len(server.requests)
    assert run.result.input_tokens > 0 and run.result.output_tokens > 0
    offered = server.requests[0]
    tool_names = FakeRequest(offered.api, offered.body, offered.headers).tool_names
    assert {"complete_task", "request_human_approval", "show_region"} <= set(tool_names)
    # Seven curated browser tools and three virtual ones: expanding a collapsed region by
    # ref is the tenth, added for long pages after the budget of fewer than ten was set.
    assert len(tool_names) <= 10
    assert "browser_evaluate" not in tool_names


async def test_only_the_first_tool_call_runs(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """Extra tool calls in a reply are ignored (here one that would end the run)."""
    brain = DemoflixBrain(extra_calls=[("complete_task", {"status": "failed", "reason": "x"})])
    with serving(brain, anthropic_env):
        run = await run_service(
            RunRequest("demoflix", pilot="ai"),
            ScriptedHuman([Decision("approve")]),
            tmp_path,
            start_browser=shared_runs,
        )
    assert run.result.reason == "completed"


async def test_history_grows_by_two_and_old_pages_become_stubs(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """Two messages a turn; only the newest page is sent in full."""
    with serving(DemoflixBrain(), anthropic_env) as server:
        await run_service(
            RunRequest("demoflix", pilot="ai"),
            ScriptedHuman([Decision("approve")]),
            tmp_path,
            start_browser=shared_runs,
        )
    sent = bodies(server)
    # Anthropic merges a tool result into the next user turn: count content items instead.
    sizes = [len(body["messages"]) for body in sent]  # type: ignore[arg-type]
    assert sizes == [1 + 2 * turn for turn in range(len(sent))]
    last = json.dumps(sent[-1]["messages"])
    assert last.count("Current page:") == 1
    assert last.count("[old page:") == len(sent) - 1


async def test_checkpoint_judges_the_real_target_not_the_models_words(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """A model calling the Finish button "Continue" is still stopped before it clicks."""
    with serving(DemoflixBrain(finish_description="Continue"), anthropic_env):
        run = await run_service(
            RunRequest("demoflix", pilot="ai"),
            ScriptedHuman([Decision("reject")]),
            tmp_path,
            start_browser=shared_runs,
        )
    assert [request.action for request in run.human.approvals] == [
        "Click button 'Finish cancellation'"
    ]
    assert run.result.reason == "human_rejected"
    assert run.state.cancel_requests == 0


async def test_guidance_goes_back_to_the_model_and_nothing_is_dispatched(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """The person's guidance is the tool result; the click waits for the next approval."""
    brain = DemoflixBrain()
    human = ScriptedHuman([Decision("guidance", "Check the end date first"), Decision("approve")])
    with serving(brain, anthropic_env):
        run = await run_service(
            RunRequest("demoflix", pilot="ai"), human, tmp_path, start_browser=shared_runs
        )
    assert run.human.seen_at_approval == [0, 0]
    guided = next(text for text in brain.seen if "Check the end date first" in text)
    assert '"human_guidance"' in guided
    assert run.result.reason == "completed" and run.state.cancel_requests == 1


async def test_unverified_success_claim_is_sent_back(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """Claiming success too early is answered that it was not confirmed; the run goes on."""
    brain = DemoflixBrain(premature_claims=1)
    with serving(brain, anthropic_env):
        run = await run_service(
            RunRequest("demoflix", pilot="ai"),
            ScriptedHuman([Decision("approve")]),
            tmp_path,
            start_browser=shared_runs,
        )
    assert any("Cannot verify success" in text for text in brain.seen)
    assert run.result.reason == "completed"


async def test_navigation_outside_the_domains_is_refused(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """The guard refuses another domain; the browser never leaves the service."""
    brain = DemoflixBrain()
    first = [True]

    def wander_then_behave(request: FakeRequest) -> FakeTurn:
        if first[0]:
            first[0] = False
            return FakeTurn(tool_calls=[("browser_navigate", {"url": "https://evil.example/"})])
        return brain(request)

    with serving(wander_then_behave, anthropic_env):
        run = await run_service(
            RunRequest("demoflix", pilot="ai"),
            ScriptedHuman([Decision("approve")]),
            tmp_path,
            start_browser=shared_runs,
        )
    assert any("Navigation to https://evil.example/ refused" in text for text in brain.seen)
    assert all(event.allowed for event in run.reporter.of(PageSeen))
    assert run.result.reason == "completed"


async def test_browser_error_is_reported_as_error_json_and_the_loop_goes_on(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """A failed action comes back as {"error": true, "message": ...}."""
    brain = DemoflixBrain()
    first = [True]

    def misuse_then_behave(request: FakeRequest) -> FakeTurn:
        ref = find_ref(request.latest_text, "button", "Cancel membership")
        if first[0] and ref:
            first[0] = False
            # Selecting an option in a button: Playwright refuses it.
            return FakeTurn(
                tool_calls=[("browser_select_option", {"target": ref, "values": ["x"]})]
            )
        return brain(request)

    with serving(misuse_then_behave, anthropic_env):
        run = await run_service(
            RunRequest("demoflix", pilot="ai"),
            ScriptedHuman([Decision("approve")]),
            tmp_path,
            start_browser=shared_runs,
        )
    errors = [text for text in brain.seen if text.startswith('{"error": true, "message":')]
    assert errors
    assert run.result.reason == "completed"


async def test_three_replies_without_a_tool_end_with_llm_no_action(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """Three text-only replies in a row end the run."""
    with serving(lambda _request: FakeTurn(text="I would rather chat."), anthropic_env) as server:
        run = await run_service(
            RunRequest("demoflix", pilot="ai"), ScriptedHuman(), tmp_path, start_browser=shared_runs
        )
    assert run.result.reason == "llm_no_action"
    assert len(server.requests) == 3
    assert "Call a tool or complete_task." in json.dumps(server.requests[-1].body["messages"])


async def test_failed_completion_is_trusted(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """complete_task(failed) ends the run: not a success, not "verified" (that would contradict
    success: false), exit 1; nothing irreversible was sent, so "not cancelled" is true."""
    reply = FakeTurn(tool_calls=[("complete_task", {"status": "failed", "reason": "No button."})])
    with serving(lambda _request: reply, anthropic_env):
        run = await run_service(
            RunRequest("demoflix", pilot="ai"), ScriptedHuman(), tmp_path, start_browser=shared_runs
        )
    assert run.result.reason == "task_failed"
    assert not run.result.verified and not run.result.success
    assert run.result.exit_code == 1
    assert run.result.message == "No button."


async def test_model_may_ask_for_approval(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """request_human_approval pauses for the person; the answer is the tool result."""
    brain = DemoflixBrain()
    asked = [False]

    def ask_first(request: FakeRequest) -> FakeTurn:
        if not asked[0]:
            asked[0] = True
            arguments = {"action": "Start cancelling", "reason": "Unsure"}
            return FakeTurn(tool_calls=[("request_human_approval", arguments)])
        return brain(request)

    human = ScriptedHuman([Decision("approve"), Decision("approve")])
    with serving(ask_first, anthropic_env):
        run = await run_service(
            RunRequest("demoflix", pilot="ai"), human, tmp_path, start_browser=shared_runs
        )
    assert human.approvals[0].kind == "model_request"
    assert human.approvals[0].action == "Start cancelling"
    assert any(text.startswith('{"approved": true}') for text in brain.seen)
    assert run.result.reason == "completed"


async def test_what_the_person_types_never_reaches_the_model(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """After a sign-in hand-off the model hears only that it completed."""
    human = ScriptedHuman(
        [Decision("approve")],
        handoffs=[{"Username": "demo", "Password": "demo-pass"}] * 2,
    )
    with serving(DemoflixBrain(), anthropic_env) as server:
        run = await run_service(
            RunRequest("demoflix-expiry", pilot="ai"), human, tmp_path, start_browser=shared_runs
        )
    assert run.result.reason == "completed"
    sent = json.dumps(bodies(server))
    assert "demo-pass" not in sent
    assert "completed the login step" in sent
    assert API_KEY not in sent


async def test_openai_models_drive_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """A --model gpt-4o run goes through the OpenAI SDK."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test")
    server = FakeModelServer(DemoflixBrain())
    server.start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    try:
        run = await run_service(
            RunRequest("demoflix", pilot="ai", model="gpt-4o"),
            ScriptedHuman([Decision("approve")]),
            tmp_path,
            start_browser=shared_runs,
        )
    finally:
        server.stop()
    assert {request.api for request in server.requests} == {"openai"}
    assert run.result.reason == "completed"


async def test_tokens_come_from_the_providers_usage_through_to_the_journal(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """Cache reads and writes as the model server reported them reach the result, each turn's
    journal row, the run's row with its cost, and ``show``."""
    with serving(DemoflixBrain(), anthropic_env) as server:
        run = await run_service(
            RunRequest("demoflix", pilot="ai"),
            ScriptedHuman([Decision("approve")]),
            tmp_path,
            start_browser=shared_runs,
        )
    result = run.result
    assert result.model_calls == len(server.requests) >= 3
    # The tools and system prompt are written by the first call and read by every later one.
    assert result.cache_write_tokens > 0
    assert result.cache_read_tokens >= 1024 * (result.model_calls - 1)
    assert result.cache_read_tokens + result.cache_write_tokens < result.input_tokens
    price = load_settings().resolved_prices()["claude-sonnet-*"]
    usage = Usage(
        result.input_tokens,
        result.output_tokens,
        result.cache_read_tokens,
        result.cache_write_tokens,
    )
    assert result.cost == pytest.approx(price.cost(usage))
    with Journal(run.journal_path) as journal:
        row = journal.run(result.run_id or 0)
        turns = journal.turns(result.run_id or 0)
    assert row is not None and row.cost == pytest.approx(result.cost)
    assert row.cache_read_tokens == result.cache_read_tokens
    assert sum(turn.cache_read_tokens or 0 for turn in turns) == result.cache_read_tokens
    assert sum(turn.input_tokens or 0 for turn in turns) == result.input_tokens
    assert [bool(turn.cache_read_tokens) for turn in turns][1:] == [True] * (len(turns) - 1)
    show = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "subterminator_tui", "show", str(result.run_id),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(show.communicate(), timeout=60)
    assert show.returncode == 0
    shown = output.decode()
    assert f"{result.cache_read_tokens:,} from cache" in shown
    assert f"${result.cost:.4f}" in shown
