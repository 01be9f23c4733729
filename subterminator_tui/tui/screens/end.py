"""The end screen: how the run ended and the exit code the process will return."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, Static

from subterminator_tui.orchestrator.ending_words import ending_words
from subterminator_tui.orchestrator.result import TaskResult
from subterminator_tui.providers.pricing import describe_tokens
from subterminator_tui.tui.plain import labelled
from subterminator_tui.tui.screens.question import QuestionScreen
from subterminator_tui.tui.widgets.key_hints import KeyHints


class EndScreen(QuestionScreen[int]):
    """Shows the TaskResult; ``q`` quits with its exit code."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_run", "Quit", id="end.quit", tooltip="Leave with this exit code"),
        Binding("escape", "look", "Look around", id="end.look", tooltip="Back to the run"),
    ]

    def __init__(self, result: TaskResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        """The summary."""
        result = self.result
        generic = result.verified_by == "generic"
        verdict = "Cancelled and verified" if result.success else "Not cancelled"
        if result.success and generic:
            verdict += " by generic rules"
        headline = ("✓ " if result.success else "✗ ") + verdict
        words = ending_words(result, "")
        if words is not None:
            # Sent-but-unverified and already-cancelled are neither a success nor "not cancelled".
            headline = words[0].replace(" : ", " ", 1)
        elif result.ending is not None and result.ending.biller:
            headline = f"✗ Not cancelled here: cancel with {result.ending.biller}"
        elif result.ending is not None:
            headline = "✗ Not cancelled here: only by phone, chat or letter"
        with Vertical(id="end-dialog", classes="dialog " + ("good" if result.success else "bad")):
            yield Label(headline, classes="title", markup=False)
            rows = [
                ("Success", "yes" if result.success else "no"),
                ("Verified", ("yes" if result.verified else "no") + " (generic rules)" * generic),
                ("Reason", result.reason),
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
            if result.message or result.error:
                rows.insert(3, ("Detail", result.message or result.error or ""))
            if result.ending is not None:
                # Where to cancel instead, or how to reach the service: page text, escaped below.
                rows[4:4] = result.ending.rows()
            for name, value in rows:
                yield Static(labelled(f"{name}:", value, "bold"), classes="row")
            if result.ending is not None and result.ending.letter:
                yield Static(Text(result.ending.letter), classes="row letter")
            yield KeyHints({"quit_run": "quit", "look": "look at the run"}, classes="keys")

    def action_quit_run(self) -> None:
        """Quit with the run's exit code."""
        self.dismiss(self.result.exit_code)

    def action_look(self) -> None:
        """Close the summary and browse the turns; q quits from there too."""
        self.dismiss(-1)
