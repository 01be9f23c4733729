"""The end screen: how the run ended and the exit code the process will return."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from subterminator_tui.orchestrator.endings import Ending
from subterminator_tui.orchestrator.result import TaskResult
from subterminator_tui.tui.actions import bindings
from subterminator_tui.tui.screens.question import QuestionScreen
from subterminator_tui.tui.widgets.key_hints import KeyHints


class EndScreen(QuestionScreen[int]):
    """What happened and what next, in words; ``q`` quits with the run's exit code."""

    #: What the help screen calls this screen.
    HELP_TITLE = "the end of the run"

    BINDINGS: ClassVar[list[BindingType]] = bindings("end")  # type: ignore[assignment]

    def __init__(self, result: TaskResult, ending: Ending) -> None:
        super().__init__()
        self.result = result
        self.ending = ending

    def compose(self) -> ComposeResult:
        """The sentence of what happened, what to do next, the keys; the figures below."""
        result, ending = self.result, self.ending
        with Vertical(id="end-dialog", classes="dialog " + ("good" if ending.success else "bad")):
            yield Label(
                ("✓ " if ending.success else "✗ ") + ending.happened,
                id="end-happened",
                classes="title",
            )
            yield Static(ending.next_step, id="end-next", classes="hint")
            yield KeyHints({"quit_run": "quit", "look": "look at the run"}, classes="keys")
            with VerticalScroll(classes="details"):
                rows = [
                    ("Turns", str(result.turns)),
                    ("Model calls", str(result.model_calls)),
                    ("Tokens", f"{result.input_tokens:,} in, {result.output_tokens:,} out"),
                    ("Final URL", result.final_url or "-"),
                    ("Exit code", str(result.exit_code)),
                ]
                for name, value in rows:
                    yield Static(f"[b]{name}:[/b] {value}", classes="row", markup=True)

    def action_quit_run(self) -> None:
        """Quit with the run's exit code."""
        self.dismiss(self.result.exit_code)

    def action_look(self) -> None:
        """Close the summary and browse the turns; q quits from there too."""
        self.dismiss(-1)
