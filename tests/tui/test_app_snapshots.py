"""What the app looks like, pinned as SVG snapshots (``--snapshot-update`` after looking at them).

Every scene comes from the CLI's factory with the scripted session (the real
captured demoflix pages), a frozen clock, no image previews, a 140x40
terminal, and no animation or cursor blink. ``scripts/screenshots.py`` exports
the same scenes for the README.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.tui.conftest import (
    SIZE,
    Scene,
    checkpoint_scene,
    end_scene,
    handoff_scene,
    long_snapshot_scene,
    mid_run_scene,
)

SnapCompare = Callable[..., bool]


def matches(snap_compare: SnapCompare, scene: Scene) -> bool:
    """Whether ``scene`` looks as its accepted snapshot does."""
    return snap_compare(scene.app, terminal_size=SIZE, run_before=scene.run_before)


class TestMainScreen:
    """The run as it happens."""

    def test_mid_run(self, snap_compare: SnapCompare) -> None:
        """Turn 4 of demoflix running: the log, its arguments and the offer page's tree."""
        assert matches(snap_compare, mid_run_scene())

    def test_long_snapshot(self, snap_compare: SnapCompare) -> None:
        """A page of 5,000+ elements: the tree opens at the targeted button."""
        assert matches(snap_compare, long_snapshot_scene())


class TestModals:
    """The questions the app asks the person."""

    def test_checkpoint(self, snap_compare: SnapCompare) -> None:
        """Approval before "Finish cancellation": why, the action, the URL, the screenshot path."""
        assert matches(snap_compare, checkpoint_scene())

    def test_handoff(self, snap_compare: SnapCompare) -> None:
        """The sign-in hand-off with both fields typed: the password shows as dots."""
        assert matches(snap_compare, handoff_scene())


class TestEndScreen:
    """How the run ended."""

    def test_success(self, snap_compare: SnapCompare) -> None:
        """After `y`: cancelled and verified, with turns, tokens, final URL and exit code 0."""
        assert matches(snap_compare, end_scene())
