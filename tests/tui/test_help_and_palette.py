"""Help (? and F1) lists the keys of the screen in front; one registry makes every binding;
the palette offers the question's answers while it is asked; the theme is remembered."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import DataTable

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.settings import load_settings
from subterminator_tui.tui.actions import ACTIONS, binding_ids
from subterminator_tui.tui.app import SubTerminatorApp
from subterminator_tui.tui.commands import app_commands
from subterminator_tui.tui.home import StatementPathScreen, SubscriptionsHome
from subterminator_tui.tui.keymap import check_keymap
from subterminator_tui.tui.operator_console import OperatorConsole
from subterminator_tui.tui.run_app import create_app
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.end import EndScreen
from subterminator_tui.tui.screens.error import ErrorScreen
from subterminator_tui.tui.screens.handoff import HandoffScreen
from subterminator_tui.tui.screens.help import HelpScreen
from subterminator_tui.tui.screens.question import QuestionScreen
from subterminator_tui.tui.screens.quit import QuitScreen
from subterminator_tui.tui.widgets.turn_log import TurnLog
from tests.fakes.scripted_session import ScriptedSession
from tests.tui.conftest import SIZE, scripted_app, wait_until

OWNERS = (
    SubTerminatorApp,
    OperatorConsole,
    CheckpointScreen,
    HandoffScreen,
    QuitScreen,
    EndScreen,
    ErrorScreen,
    HelpScreen,
    QuestionScreen,
    SubscriptionsHome,
    StatementPathScreen,
)


def help_keys(app: SubTerminatorApp) -> dict[str, str]:
    """The help table as {action name: keys}."""
    table = app.screen.query_one(DataTable)
    rows = [table.get_row_at(index) for index in range(table.row_count)]
    return {str(row[1]): str(row[0]) for row in rows}


def test_every_binding_comes_from_the_registry() -> None:
    """Each binding of every screen has an id in the registry, and each registry id is bound."""
    declared = {
        binding.id
        for owner in OWNERS
        for binding in vars(owner).get("BINDINGS", ())
        if isinstance(binding, Binding)
    }
    assert None not in declared
    assert declared == set(binding_ids())
    assert len({action.id for action in ACTIONS}) == len(ACTIONS)


def test_a_keymap_that_makes_stop_and_approve_share_a_key_is_refused(
    isolated_home: Path,
) -> None:
    """Remapping stop to y (approve's key) is a configuration error naming both."""
    with pytest.raises(ConfigurationError, match=r"checkpoint\.approve and quit\.yes"):
        check_keymap({"quit.yes": "y"}, binding_ids())


class TestHelp:
    """? and F1 list the keys of the screen in front of you."""

    async def test_question_mark_on_the_main_screen_lists_its_keys(self) -> None:
        """The main screen's help names search, follow, quit and the palette."""
        app = scripted_app(ScriptedSession(hold_at_turn=2))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.query_one(TurnLog).row_count == 2, "turn 2")
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            keys = help_keys(app)
        assert keys["Search page"] == "/"
        assert keys["Follow live"] == "f"
        assert "Quit" in keys and "Commands" in keys
        assert "Approve" not in keys

    async def test_f1_at_a_checkpoint_lists_the_checkpoints_keys(self) -> None:
        """At the checkpoint: approve, reject and guidance with their keys; Esc goes back."""
        app = scripted_app(ScriptedSession())
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "checkpoint")
            await pilot.press("f1")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            keys = help_keys(app)
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "back")
        assert keys["Approve"] == "y"
        assert keys["Guidance"] == "g"
        assert "Search page" not in keys  # under a question only its own keys work


class TestPalette:
    """Approve, reject and stop are commands while their question is on screen."""

    async def test_a_checkpoint_puts_approve_and_reject_in_the_palette(self) -> None:
        """At the checkpoint the palette has Approve and Reject; the main screen has neither."""
        app = scripted_app(ScriptedSession())
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "checkpoint")
            at_checkpoint = {command.title for command in app_commands(app, app.screen)}
            on_main = {command.title for command in app_commands(app, app.screen_stack[0])}
        assert {"Approve", "Reject", "Guidance"} <= at_checkpoint
        assert not {"Approve", "Reject"} & on_main
        assert "Stop the run" in on_main


async def test_the_chosen_theme_is_saved_and_used_next_time(isolated_home: Path) -> None:
    """Picking a theme writes it to the config file; the next app starts with it."""
    app = create_app(load_settings(image_previews=False), ScriptedSession(hold_at_turn=1))
    async with app.run_test(size=SIZE) as pilot:
        app.theme = "nord"
        await pilot.pause()
    settings = load_settings(image_previews=False)
    assert settings.theme == "nord"
    again = create_app(settings, ScriptedSession(hold_at_turn=1))
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.theme == "nord"
