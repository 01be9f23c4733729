"""Page text in the app's widgets is shown as it is: never markup, never escape sequences.

A button named ``Finish cancellation [/]`` once crashed ``serve --tui`` with a Rich
MarkupError in the checkpoint modal (and took every principal's sessions with it);
``[b]`` and ``[@click=...]`` in labels were interpreted.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.markup import MarkupError

from subterminator_tui.exit_codes import SUCCESS
from subterminator_tui.guarded.gates import CheckpointRequest
from subterminator_tui.orchestrator.endings import ending_of
from subterminator_tui.results import TaskResult
from subterminator_tui.tui.operator_console import run_console
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.end import EndScreen
from subterminator_tui.tui.screens.error import ErrorScreen
from tests.tui.conftest import SIZE, plain

HOSTILE = "Finish cancellation [/] [b]bold[/b] [@click=app.quit]x[/] \x1b[2J\x1b[32mSAFE"
SHOWN = "Finish cancellation [/] [b]bold[/b] [@click=app.quit]x[/] SAFE"


async def test_the_checkpoint_modal_shows_markup_and_escapes_as_plain_text() -> None:
    """The action, reason and URL appear literally; nothing crashes, nothing is interpreted."""
    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        request = CheckpointRequest("rule", f"why {HOSTILE}", f"Click {HOSTILE}", HOSTILE, None)
        await app.push_screen(CheckpointScreen(request, preview=False))
        await pilot.pause()
        screen = app.screen
        assert plain(screen.query_one("#checkpoint-action")) == f"Click {SHOWN}"
        assert plain(screen.query_one("#checkpoint-why")) == f"Why: why {SHOWN}"
        assert plain(screen.query_one("#checkpoint-url")) == f"URL: {SHOWN}"


async def test_the_end_and_error_screens_show_page_text_plainly() -> None:
    """A final URL or message holding markup is shown as written."""
    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        result = TaskResult(
            False, False, "task_failed", 3, f"http://x.test/{HOSTILE}", message=HOSTILE
        )
        await app.push_screen(EndScreen(result, ending_of(result, "Svc")))
        await pilot.pause()
        rows = [plain(row) for row in app.screen.query(".row")]
        assert f"Final URL: http://x.test/{SHOWN}" in rows
        # The run's own message may quote the page: the headline shows it as written.
        assert SHOWN in plain(app.screen.query_one("#end-happened"))
        await app.push_screen(ErrorScreen(HOSTILE, 3))
        await pilot.pause()
        assert plain(app.screen.query_one("#error-message")) == SHOWN


def test_a_console_crash_exits_non_zero_and_says_the_sessions_closed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A crash inside the console is never exit 0, and the operator hears what it stopped."""

    class CrashingConsole(App[int]):
        def compose(self) -> ComposeResult:
            raise MarkupError("auto closing tag ('[/]') has nothing to close")

        def run(self, **_options: Any) -> int | None:
            return super().run(headless=True, size=SIZE)

    code = run_console(CrashingConsole())  # type: ignore[arg-type]
    assert code != SUCCESS
    assert "every session was closed" in capsys.readouterr().err
