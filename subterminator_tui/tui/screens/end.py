"""The end screen: how the run ended and the exit code the process will return."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from subterminator_tui.costs import describe_tokens
from subterminator_tui.orchestrator.endings import EndingWords
from subterminator_tui.results import TaskResult
from subterminator_tui.tui.actions import bindings
from subterminator_tui.tui.plain import labelled, plain
from subterminator_tui.tui.screens.question import QuestionScreen
from subterminator_tui.tui.widgets.key_hints import KeyHints


class EndScreen(QuestionScreen[int]):
    """What happened and what next, in words; ``q`` quits with the run's exit code."""

    #: What the help screen calls this screen.
    HELP_TITLE = "the end of the run"

    BINDINGS: ClassVar[list[BindingType]] = bindings("end")  # type: ignore[assignment]

    def __init__(self, result: TaskResult, ending: EndingWords) -> None:
        super().__init__()
        self.result = result
        self.ending = ending

    def compose(self) -> ComposeResult:
        """The sentence of what happened, what to do next, the keys; the figures below."""
        result, ending = self.result, self.ending
        with Vertical(id="end-dialog", classes="dialog " + ("good" if ending.success else "bad")):
            # The run's own message may quote the page: shown as plain text, never markup.
            yield Label(
                plain(("✓ " if ending.success else "✗ ") + ending.happened),
                id="end-happened",
                classes="title",
            )
            yield Static(plain(ending.next_step), id="end-next", classes="hint")
            yield KeyHints({"quit_run": "quit", "look": "look at the run"}, classes="keys")
            with VerticalScroll(classes="details"):
                # Where to cancel instead, or how to reach the service (page text): first.
                rows = list(result.ending.rows()) if result.ending is not None else []
                rows += [
                    ("Turns", str(result.turns)),
                    ("Model calls", str(result.model_calls)),
                    (
                        "Tokens",
                        describe_tokens(
                            result.input_tokens,
                            result.output_tokens,
                            result.cache_read_tokens,
                            result.cache_write_tokens,
                            result.cost,
                        ),
                    ),
                    ("Final URL", result.final_url or "-"),
                    ("Exit code", str(result.exit_code)),
                ]
                for name, value in rows:
                    yield Static(labelled(f"{name}:", value, "bold"), classes="row")
                if result.ending is not None and result.ending.letter:
                    yield Static(Text(result.ending.letter), classes="row letter")

    def action_quit_run(self) -> None:
        """Quit with the run's exit code."""
        self.dismiss(self.result.exit_code)

    def action_look(self) -> None:
        """Close the summary and browse the turns; q quits from there too."""
        self.dismiss(-1)
