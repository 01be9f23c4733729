"""What the app looks like, pinned as SVG snapshots (``--snapshot-update`` after looking at them).

Every app comes from the CLI's factory with the scripted session (the real
captured demoflix pages), a frozen clock, no image previews, a 140x40
terminal, and no animation or cursor blink.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual.pilot import Pilot

from subterminator_tui.practice.sites import practice_hint
from subterminator_tui.tui.app import SubTerminatorApp
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.end import EndScreen
from subterminator_tui.tui.screens.handoff import HandoffScreen
from subterminator_tui.tui.widgets.snapshot_tree import SnapshotTree
from subterminator_tui.tui.widgets.turn_log import TurnLog
from tests.fakes.scripted_session import ScriptedSession, login_handoff, long_snapshot
from tests.tui.conftest import SIZE, quiet, scripted_app, wait_until

SnapCompare = Callable[..., bool]
RunBefore = Callable[[Pilot[int]], Awaitable[None]]


def showing(app: SubTerminatorApp, condition: Callable[[], bool], what: str) -> RunBefore:
    """A ``run_before`` that waits until ``condition()`` holds, then quiets the app."""

    async def run_before(pilot: Pilot[int]) -> None:
        await wait_until(pilot, condition, what, within=10)
        quiet(app)

    return run_before


def turns_logged(app: SubTerminatorApp, count: int) -> Callable[[], bool]:
    """The turn log has ``count`` rows."""
    return lambda: app.query_one(TurnLog).row_count == count


class TestMainScreen:
    """The run as it happens."""

    def test_mid_run(self, snap_compare: SnapCompare) -> None:
        """Turn 4 of demoflix running: the log, its arguments and the offer page's tree."""
        app = scripted_app(ScriptedSession(hold_at_turn=4))
        before = showing(app, turns_logged(app, 4), "turn 4 in the log")
        assert snap_compare(app, terminal_size=SIZE, run_before=before)

    def test_long_snapshot(self, snap_compare: SnapCompare) -> None:
        """A page of 5,000+ elements: the tree opens at the targeted button."""
        page = long_snapshot(5_000)
        app = scripted_app(ScriptedSession(start_page=page, hold_at_turn=1))

        def targeted() -> bool:
            node = app.query_one(SnapshotTree).cursor_node
            return turns_logged(app, 1)() and node is not None and "Cancel" in node.label.plain

        before = showing(app, targeted, "the targeted button")
        assert snap_compare(app, terminal_size=SIZE, run_before=before)


class TestModals:
    """The questions the app asks the person."""

    def test_checkpoint(self, snap_compare: SnapCompare) -> None:
        """Approval before "Finish cancellation": why, the action, the URL, the screenshot path."""
        app = scripted_app(ScriptedSession())
        before = showing(app, lambda: isinstance(app.screen, CheckpointScreen), "the checkpoint")
        assert snap_compare(app, terminal_size=SIZE, run_before=before)

    def test_handoff(self, snap_compare: SnapCompare) -> None:
        """The sign-in hand-off with both fields typed: the password shows as dots."""
        request = login_handoff(headed=True, hint=practice_hint())
        app = scripted_app(ScriptedSession(handoffs=(request,)))

        async def run_before(pilot: Pilot[int]) -> None:
            await wait_until(
                pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-off", within=10
            )
            await pilot.press(*"demo", "enter", *"hunter22")
            quiet(app)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


class TestEndScreen:
    """How the run ended."""

    def test_success(self, snap_compare: SnapCompare) -> None:
        """After `y`: cancelled and verified, with turns, tokens, final URL and exit code 0."""
        app = scripted_app(ScriptedSession())

        async def run_before(pilot: Pilot[int]) -> None:
            checkpoint = lambda: isinstance(app.screen, CheckpointScreen)  # noqa: E731
            await wait_until(pilot, checkpoint, "the checkpoint", within=10)
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), "the end", within=10)
            quiet(app)

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
