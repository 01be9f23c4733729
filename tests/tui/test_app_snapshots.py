"""What the app looks like, pinned as SVG snapshots (``--snapshot-update`` after looking at them).

Every scene comes from the CLI's factory with the scripted session (the real
captured demoflix pages), a frozen clock, no image previews, and no animation or
cursor blink; each is pinned at 80x24 (the smallest terminal it must serve whole)
and 120x36. ``scripts/screenshots.py`` exports the same scenes for the README.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.conftest import (
    Scene,
    checkpoint_scene,
    console_scene,
    end_scene,
    error_scene,
    handoff_scene,
    help_scene,
    long_snapshot_scene,
    mid_run_scene,
    rejected_end_scene,
    stop_scene,
)

SnapCompare = Callable[..., bool]

#: The smallest terminal served whole, and a common larger one.
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])


def matches(snap_compare: SnapCompare, scene: Scene, size: tuple[int, int]) -> bool:
    """Whether ``scene`` looks as its accepted snapshot does at ``size``."""
    return snap_compare(scene.app, terminal_size=size, run_before=scene.run_before)


@SIZES
class TestMainScreen:
    """The run as it happens."""

    def test_mid_run(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """Turn 4 of demoflix running: status and turn in the header, outcomes in the log."""
        assert matches(snap_compare, mid_run_scene(), size)

    def test_long_snapshot(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """A page of 5,000+ elements: the tree opens at the targeted button."""
        assert matches(snap_compare, long_snapshot_scene(), size)


@SIZES
class TestModals:
    """The questions the app asks the person: the question and its keys first."""

    def test_checkpoint(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """Approval before "Finish cancellation": the action and keys, then why, URL, screenshot."""
        assert matches(snap_compare, checkpoint_scene(), size)

    def test_handoff(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """The sign-in hand-off with both fields typed: the password shows as dots."""
        assert matches(snap_compare, handoff_scene(), size)

    def test_help(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """F1 over the run: every key of the main screen, from the action registry."""
        assert matches(snap_compare, help_scene(), size)

    def test_stop(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """Ctrl+C mid-run: "Stop the run?" with s and n/Esc."""
        assert matches(snap_compare, stop_scene(), size)


@SIZES
class TestEndScreen:
    """How the run ended, in words first."""

    def test_success(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """After `y`: cancelled and verified, then what next."""
        assert matches(snap_compare, end_scene(), size)

    def test_rejected(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """After `n`: nothing cancelled, and what to do next."""
        assert matches(snap_compare, rejected_end_scene(), size)

    def test_error(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """A configuration error: its words, what to do, exit code 2."""
        assert matches(snap_compare, error_scene(), size)


@SIZES
class TestOperatorConsole:
    """`serve --tui`: sessions and held calls."""

    def test_sessions(
        self, snap_compare: SnapCompare, size: tuple[int, int], tmp_path: Path
    ) -> None:
        """One session open, nothing held."""
        assert matches(snap_compare, console_scene(tmp_path, held=False), size)

    def test_held_call(
        self, snap_compare: SnapCompare, size: tuple[int, int], tmp_path: Path
    ) -> None:
        """A held call waits for the operator's key."""
        assert matches(snap_compare, console_scene(tmp_path, held=True), size)

    def test_help(self, snap_compare: SnapCompare, size: tuple[int, int], tmp_path: Path) -> None:
        """F1 in the console: its keys (sign-ins, stop), from the action registry."""
        assert matches(snap_compare, console_scene(tmp_path, held=False, keys=True), size)

    def test_help_over_a_held_call(
        self, snap_compare: SnapCompare, size: tuple[int, int], tmp_path: Path
    ) -> None:
        """F1 while a call is held: the question's own keys (approve, reject), not the console's."""
        assert matches(snap_compare, console_scene(tmp_path, held=True, keys=True), size)
