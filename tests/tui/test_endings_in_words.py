"""The app ends in words: the end screen and the lines printed after it close lead with what
happened, then what next; guidance is offered only when a model will read it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from subterminator_tui.tui.run_app import closing_lines
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.end import EndScreen
from subterminator_tui.tui.widgets.key_hints import KeyHints
from tests.fakes.scripted_session import ScriptedSession
from tests.tui.conftest import SIZE, PracticeRun, plain, screen_text, scripted_app, wait_until


def at(app: object, kind: type) -> bool:
    """The active screen is a ``kind``."""
    return isinstance(getattr(app, "screen", None), kind)


class TestEndScreen:
    """One sentence of what happened, then what to do next; no reason codes."""

    async def test_a_verified_run_leads_with_the_sentence_and_the_record(self) -> None:
        """After `y`: "... cancellation completed and verified: ..." then where the record is."""
        app = scripted_app(ScriptedSession())
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at(app, CheckpointScreen), "the checkpoint")
            await pilot.press("y")
            await wait_until(pilot, lambda: at(app, EndScreen), "the end screen")
            shown = screen_text(app)
        assert "✓ Demoflix (practice) cancellation completed and verified" in shown
        assert "subterminator" in shown and "Reason:" not in shown and "completed:" not in shown

    async def test_a_rejection_says_nothing_was_cancelled_and_what_next(self) -> None:
        """After `n`: no code, the step named, and the command to go on."""
        app = scripted_app(ScriptedSession())
        app.command = "subterminator cancel demoflix"
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at(app, CheckpointScreen), "the checkpoint")
            await pilot.press("n")
            await wait_until(pilot, lambda: at(app, EndScreen), "the end screen")
            shown = screen_text(app)
        assert "✗ Nothing was cancelled: you said no to Click button" in shown
        assert "run subterminator cancel demoflix again" in shown
        assert "human_rejected" not in shown

    async def test_the_same_words_are_printed_after_the_app_closes(self) -> None:
        """q on the end screen: the closing lines repeat what happened and what next."""
        app = scripted_app(ScriptedSession())
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at(app, CheckpointScreen), "the checkpoint")
            await pilot.press("y")
            await wait_until(pilot, lambda: at(app, EndScreen), "the end screen")
            await pilot.press("q")
            await wait_until(pilot, lambda: app.return_code is not None, "the exit")
        lines = closing_lines(app, app.return_code or 0)
        assert lines[0] == (
            "✓ Demoflix (practice) cancellation completed and verified: "
            "The cancellation confirmation page.",
            False,
        )
        assert "subterminator" in lines[1][0]


@pytest.mark.browser
class TestGuidanceNeedsAModel:
    """The key-less demo (playbook only): `g` is not offered and does not end the run."""

    async def test_g_is_not_offered_and_the_run_goes_on(self, tmp_path: Path) -> None:
        """At the playbook's checkpoint: no guidance hint, `g` opens nothing, `y` finishes."""
        run = PracticeRun.of("demoflix", tmp_path)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at(app, CheckpointScreen), "the checkpoint")
            assert "guidance" not in plain(app.screen.query_one(KeyHints))
            await pilot.press("g")
            await pilot.pause()
            assert app.screen.query_one("#checkpoint-guidance", Input).has_class("hidden")
            await pilot.press("y")
            await wait_until(pilot, lambda: at(app, EndScreen), "the end screen")
        assert app.result is not None and app.result.success
        assert run.state.cancel_requests == 1
