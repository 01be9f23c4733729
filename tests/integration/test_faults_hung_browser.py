"""A browser that hangs during the approved final click: an honest answer, never a repeat.

The person approves "Finish cancellation"; the approved target is read again, and as
the click goes out the Playwright MCP server is frozen (SIGSTOP), so the click is
sent into silence. The run must
notice within the per-call deadline, restart the browser, look at the page and
report what the practice server's own state says: here the click never reached
the site, so the outcome is unknown to the run (exit 3), and the step is not sent
again.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.gateway import ActionResult
from subterminator_tui.guarded.gates import CheckpointRequest, Decision
from subterminator_tui.session import RunRequest, prepared_run
from tests.conftest import browser_parts_missing
from tests.fakes.human import RecordingReporter, ScriptedHuman

pytestmark = pytest.mark.browser


async def test_a_hung_browser_at_the_final_click_is_outcome_unknown_not_failure(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frozen at the approved click: detected by the deadline, outcome_unknown, no repeat."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    (isolated_home / "config.toml").write_text("call_timeout = 8\n", encoding="utf-8")
    request = RunRequest("demoflix", headless=True, profile_dir=str(tmp_path / "profile"))
    reporter = RecordingReporter()
    frozen: list[int] = []
    async with prepared_run(request) as prepared:
        gateway, site = prepared.browser.gateway, prepared.browser.practice
        assert site is not None

        human = ScriptedHuman([Decision("approve"), Decision("approve")])
        send = gateway.call

        async def freeze_at_the_approved_click(
            name: str, arguments: dict[str, Any] | None = None
        ) -> ActionResult:
            if name == "browser_click" and human.approvals and not frozen:
                assert gateway.node_pid is not None
                os.kill(gateway.node_pid, signal.SIGSTOP)
                frozen.append(gateway.node_pid)
            return await send(name, arguments)

        monkeypatch.setattr(gateway, "call", freeze_at_the_approved_click)
        try:
            result = await prepared.run(human, reporter)
        finally:
            for pid in frozen:
                # The restart killed it; a still-frozen one must not outlive the test.
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
    assert result.reason == "outcome_unknown" and result.exit_code == 3, result
    assert result.message is not None and "may have gone through" in result.message
    assert len(human.approvals) == 1, "the irreversible step was not offered again"
    assert site.state.cancel_requests == 0


async def test_a_browser_hung_while_the_person_answers_sends_nothing_on_an_old_look(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Frozen at approval, before the approved target is read again: the click is never sent
    on the old look, and the run says nothing was sent (never "may have gone through")."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    (isolated_home / "config.toml").write_text("call_timeout = 8\n", encoding="utf-8")
    request = RunRequest("demoflix", headless=True, profile_dir=str(tmp_path / "profile"))
    reporter = RecordingReporter()
    frozen: list[int] = []
    cancels_at_each_question: list[int] = []
    async with prepared_run(request) as prepared:
        gateway, site = prepared.browser.gateway, prepared.browser.practice
        assert site is not None

        def freeze(_request: CheckpointRequest) -> None:
            cancels_at_each_question.append(site.state.cancel_requests)
            if not frozen:
                assert gateway.node_pid is not None
                os.kill(gateway.node_pid, signal.SIGSTOP)
                frozen.append(gateway.node_pid)

        human = ScriptedHuman([Decision("approve")] * 4, on_approve=freeze)
        try:
            result = await prepared.run(human, reporter)
        finally:
            for pid in frozen:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
    assert result.reason != "outcome_unknown", result
    assert "may have gone through" not in (result.message or "")
    assert result.message is not None and "nothing was sent" in result.message, result
    # The service saw nothing: the approved click never left on the old look.
    assert cancels_at_each_question == [0] and site.state.cancel_requests == 0
