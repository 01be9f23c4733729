"""One question at a time: a stop question holds the run, and no key answers a question it
was not pressed for.

The first test is the one that broke: Ctrl+C during a real demoflix run opened "Stop the
run?", the playbook kept clicking under it, the checkpoint came up on top, and the `y` meant
for "stop" approved "Finish cancellation".
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from textual import events

from subterminator_tui.exit_codes import INTERRUPTED, SUCCESS
from subterminator_tui.tui.app import SubTerminatorApp
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.handoff import HandoffScreen
from subterminator_tui.tui.screens.quit import QuitScreen
from subterminator_tui.tui.widgets.turn_log import TurnLog
from tests.conftest import wait_until_no_profile_processes
from tests.fakes.scripted_session import ScriptedSession, login_handoff
from tests.support.operator_consoles import console
from tests.tui.conftest import SIZE, PracticeRun, scripted_app, wait_until


def checkpoint_shown(app: SubTerminatorApp) -> bool:
    """A checkpoint modal is anywhere in the screen stack."""
    return any(isinstance(screen, CheckpointScreen) for screen in app.screen_stack)


def run_held(app: SubTerminatorApp) -> bool:
    """The run waits for the person: at its pause point, or with a question queued."""
    pause = getattr(app, "run_pause", None)
    desk = getattr(app, "questions", None)
    return bool((pause is not None and pause.waiting) or (desk is not None and desk.waiting_count))


def exited(app: SubTerminatorApp) -> bool:
    """The app has been told to exit."""
    return app.return_code is not None


@pytest.mark.browser
class TestStopQuestionHoldsTheRun:
    """Ctrl+C mid-run: nothing more is clicked until the person answers."""

    async def test_ctrl_c_mid_run_then_y_approves_nothing(self, tmp_path: Path) -> None:
        """Ctrl+C at turn 1, then `y`: no cancellation request reaches the site."""
        run = PracticeRun.of("demoflix", tmp_path)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.query_one(TurnLog).row_count >= 1, "turn 1")
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the stop question")
            # Either the checkpoint came up on top (the bug) or the run holds behind the question.
            await wait_until(
                pilot,
                lambda: checkpoint_shown(app) or run_held(app),
                "the checkpoint on top, or the run held",
            )
            await pilot.press("y")
            await wait_until(
                pilot,
                lambda: app.result is not None or run_held(app),
                "the run to end, or to stay held",
            )
            assert run.state.cancel_requests == 0
            assert isinstance(app.screen, QuitScreen), "the stop question is still the one asked"
            assert not checkpoint_shown(app)
            await pilot.press("s")
            await wait_until(pilot, lambda: exited(app), "the app to exit")
        assert app.return_code == INTERRUPTED
        assert run.state.cancel_requests == 0
        assert wait_until_no_profile_processes(run.profile, timeout=5.0) == []


class TestOneQuestionAtATime:
    """Questions queue; keys answer only the one on screen."""

    async def test_a_checkpoint_waits_behind_the_stop_question(self) -> None:
        """The run asks while "Stop the run?" is up: its question waits, then shows after Esc."""
        session = ScriptedSession(hold_at_turn=5)
        app = scripted_app(session)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.query_one(TurnLog).row_count == 5, "turn 5")
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the stop question")
            session.release()
            await wait_until(pilot, lambda: run_held(app), "the checkpoint to queue")
            assert not checkpoint_shown(app)
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "checkpoint")
            assert not any(isinstance(s, QuitScreen) for s in app.screen_stack)

    async def test_ctrl_c_at_a_checkpoint_takes_it_down_until_answered(self) -> None:
        """Stop asked at a checkpoint: one question on screen; Esc brings the checkpoint back."""
        session = ScriptedSession()
        app = scripted_app(session)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "checkpoint")
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the stop question")
            assert not checkpoint_shown(app)
            await pilot.press("y")
            await pilot.pause()
            assert session.decisions == []
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "checkpoint")
            await pilot.press("y")
            await wait_until(pilot, lambda: app.result is not None, "the run's end")
        assert [d.verdict for d in session.decisions] == ["approve"]

    async def test_a_key_pressed_before_the_checkpoint_was_shown_does_not_answer_it(
        self,
    ) -> None:
        """A `y` typed ahead (its event older than the question) is dropped, not an approval."""
        session = ScriptedSession(hold_at_turn=5)
        app = scripted_app(session)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.query_one(TurnLog).row_count == 5, "turn 5")
            early = events.Key("y", "y")
            session.release()
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "checkpoint")
            app.post_message(early)
            await pilot.pause()
            assert session.decisions == []
            assert isinstance(app.screen, CheckpointScreen)
            await pilot.press("y")
            await wait_until(pilot, lambda: bool(session.decisions), "the approval")
        assert [d.verdict for d in session.decisions] == ["approve"]

    async def test_stop_and_approve_never_share_a_key(self) -> None:
        """The stop question's keys and the checkpoint's approve key are different keys."""
        session = ScriptedSession()
        app = scripted_app(session)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "checkpoint")
            approve = {
                key
                for key, active in app.screen.active_bindings.items()
                if active.binding.action == "approve"
            }
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the stop question")
            stop = {
                key
                for key, active in app.screen.active_bindings.items()
                if active.binding.action == "stop"
            }
        assert approve and stop
        assert not approve & stop

    async def test_a_handoff_waits_behind_the_stop_question(self) -> None:
        """Ctrl+C before the sign-in is asked: the hand-off waits; nothing is typed meanwhile."""
        session = ScriptedSession(handoffs=(login_handoff(),), hold_at_turn=None)
        app = scripted_app(session)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, HandoffScreen), "hand-off")
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the stop question")
            assert not any(isinstance(s, HandoffScreen) for s in app.screen_stack)
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, HandoffScreen), "hand-off")


class TestEveryQuitPathAsks:
    """q, Ctrl+C, Ctrl+Q and the palette's Quit all ask the same question; `s` exits 130."""

    @pytest.mark.parametrize("key", ["q", "ctrl+c", "ctrl+q"])
    async def test_the_key_asks_then_s_exits_130(self, key: str) -> None:
        """Mid-run the key opens "Stop the run?"; `s` stops and the exit code is 130."""
        session = ScriptedSession(hold_at_turn=2)
        app = scripted_app(session)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.query_one(TurnLog).row_count == 2, "turn 2")
            await pilot.press(key)
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the stop question")
            assert not exited(app)
            await pilot.press("s")
            await wait_until(pilot, lambda: exited(app), "the app to exit")
        assert app.return_code == INTERRUPTED

    async def test_the_palettes_quit_asks_first(self) -> None:
        """The command palette's Quit (Textual's own action_quit) opens the same question."""
        session = ScriptedSession(hold_at_turn=2)
        app = scripted_app(session)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.query_one(TurnLog).row_count == 2, "turn 2")
            await app.action_quit()
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the stop question")
            assert not exited(app)
            await pilot.press("s")
            await wait_until(pilot, lambda: exited(app), "the app to exit")
        assert app.return_code == INTERRUPTED


class TestConsoleQuitPaths:
    """`serve --tui`: every quit path asks; stopping with sessions open exits 130."""

    @pytest.mark.parametrize("key", ["q", "ctrl+c", "ctrl+q"])
    async def test_the_key_asks_then_s_closes_the_sessions_and_exits_130(
        self, key: str, tmp_path: Path
    ) -> None:
        """A session open: the key asks "Stop the server?"; `s` closes it and exits 130."""
        app = console(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.parts is not None, "the server parts")
            assert app.parts is not None
            app.parts.registry.open("alice", "main", "demoflix")
            await pilot.press(key)
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the question")
            assert app.return_code is None
            await pilot.press("s")
            await wait_until(pilot, lambda: app.return_code is not None, "the console to exit")
        assert app.return_code == INTERRUPTED
        assert app.parts.registry.sessions == {}

    async def test_a_held_call_waits_behind_the_stop_question(self, tmp_path: Path) -> None:
        """Stop asked first; a held call arriving then is not shown until Esc, and `y` is inert."""
        app = console(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.parts is not None, "the server parts")
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the question")
            held = app.desk.submit(
                "alice", "main", action="Click 'Finish'", why="w", url="http://x"
            )
            await pilot.press("y")
            await pilot.pause()
            assert held.decision == "pending"
            assert isinstance(app.screen, QuitScreen)
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "the call")

    async def test_the_palettes_quit_asks_with_no_session_and_exits_0(self, tmp_path: Path) -> None:
        """Nothing open: the palette's Quit still asks; `s` exits 0 (nothing was interrupted)."""
        app = console(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.parts is not None, "the server parts")
            await app.action_quit()
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the question")
            await pilot.press("s")
            await wait_until(pilot, lambda: app.return_code is not None, "the console to exit")
        assert app.return_code == SUCCESS


class TestWindowClosed:
    """SIGHUP (the terminal window closed) stops the run as a confirmed quit: exit 130."""

    async def test_sighup_mid_run_exits_130(self) -> None:
        """Nobody is left to ask: the run stops, the app exits 130."""
        # A harmless fallback, so a missing handler fails the test instead of killing pytest.
        previous = signal.signal(signal.SIGHUP, lambda _signum, _frame: None)
        try:
            session = ScriptedSession(hold_at_turn=2)
            app = scripted_app(session)
            async with app.run_test(size=SIZE) as pilot:
                await wait_until(pilot, lambda: app.query_one(TurnLog).row_count == 2, "turn 2")
                os.kill(os.getpid(), signal.SIGHUP)
                await wait_until(pilot, lambda: exited(app), "the app to exit", within=10)
            assert app.return_code == INTERRUPTED
        finally:
            signal.signal(signal.SIGHUP, previous)
