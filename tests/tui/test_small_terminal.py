"""80x24 is a first-class size: every question shows its keys, the header its status."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Input

from subterminator_tui.settings import load_settings
from subterminator_tui.tui.run_app import create_app
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.widgets.key_hints import KeyHints
from tests.fakes.scripted_session import ScriptedSession
from tests.tui.conftest import (
    MODAL_SCENES,
    mid_run_scene,
    plain,
    screen_text,
    stop_scene,
    wait_until,
)

SMALL = (80, 24)


@pytest.mark.parametrize("name", sorted(MODAL_SCENES))
async def test_every_question_shows_its_keys_at_80x24(name: str) -> None:
    """The key line (or the buttons and fields) of each modal is on screen, whole."""
    scene = MODAL_SCENES[name]()
    app = scene.app
    async with app.run_test(size=SMALL) as pilot:
        await scene.run_before(pilot)
        shown = screen_text(app)
        hints = [plain(hint) for hint in app.screen.query(KeyHints)]
        buttons = [str(button.label) for button in app.screen.query(Button)]
        fields = list(app.screen.query(Input))
        assert hints or buttons, f"{name}: no keys at all"
        for hint in hints:
            assert hint and hint in shown, f"{name}: key line {hint!r} cut off"
        for label in buttons:
            assert label in shown, f"{name}: button {label!r} cut off"
        for field in fields:
            if field.display:
                region = field.region
                assert region.height >= 1 and region.bottom <= SMALL[1], f"{name}: field hidden"


async def test_the_header_keeps_status_and_turn_at_80_columns() -> None:
    """At 80 columns the header still says the run's state and its turn."""
    scene = mid_run_scene()
    async with scene.app.run_test(size=SMALL) as pilot:
        await scene.run_before(pilot)
        first_line = screen_text(scene.app)[:80]
    assert "running" in first_line
    assert "turn 4/20" in first_line


async def test_the_turn_log_keeps_its_outcome_column_at_80_columns() -> None:
    """The log's outcome column is on screen at 80 columns."""
    scene = mid_run_scene()
    async with scene.app.run_test(size=SMALL) as pilot:
        await scene.run_before(pilot)
        shown = screen_text(scene.app)
    assert "Outcome" in shown


async def test_the_stop_question_fits_80x24() -> None:
    """The stop question says what s does."""
    scene = stop_scene()
    async with scene.app.run_test(size=SMALL) as pilot:
        await scene.run_before(pilot)
        assert "s stop" in screen_text(scene.app)


async def test_the_checkpoint_with_a_screenshot_preview_keeps_its_keys_at_80x24(
    tmp_path: Path,
) -> None:
    """Image previews on and a real screenshot: the key line is still on screen."""
    from PIL import Image

    shot = tmp_path / "confirm.png"
    Image.new("RGB", (1280, 800), "white").save(shot)
    session = ScriptedSession(screenshot_path=str(shot))
    app = create_app(load_settings(image_previews=True), session)
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "checkpoint")
        hint = plain(app.screen.query_one(KeyHints))
        assert "approve" in hint
        assert hint in screen_text(app)
