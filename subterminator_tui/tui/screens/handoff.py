"""The hand-off modal: sign-in, verification code or CAPTCHA, done by the person.

What is typed here goes into the page (the orchestrator types it) and
nowhere else: it is not logged, not shown back, and never sent to a model.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from subterminator_tui.guarded.gates import HANDOFF_TITLES, HandoffAnswer, HandoffRequest
from subterminator_tui.tui.actions import bindings
from subterminator_tui.tui.plain import labelled, plain
from subterminator_tui.tui.screens.question import QuestionScreen


class HandoffScreen(QuestionScreen[HandoffAnswer]):
    """Inputs for the page's fields (masked for secrets), or "I finished in the browser"."""

    #: What the help screen calls this screen.
    HELP_TITLE = "the page needs you"

    BINDINGS: ClassVar[list[BindingType]] = bindings("handoff")  # type: ignore[assignment]

    def __init__(self, request: HandoffRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        """The question, the fields and the buttons first; why, URL and hints below them.

        On a small terminal the details scroll before a field or a button is cut off.
        """
        request = self.request
        with Vertical(id="handoff-dialog", classes="dialog"):
            yield Label(HANDOFF_TITLES.get(request.kind, request.kind), classes="title")
            yield Static(
                "What you type goes into the page only: never to the AI, the log or the journal.",
                classes="hint",
            )
            for index, field in enumerate(request.fields):
                yield Label(plain(field.label))
                yield Input(
                    placeholder=field.label,
                    password=field.secret,
                    id=f"handoff-field-{index}",
                    classes="handoff-field",
                    tooltip=plain(field.label),
                )
            with Horizontal(classes="buttons"):
                if request.fields:
                    yield Button("Type into the page", id="handoff-submit", variant="primary")
                if request.headed or not request.fields:
                    yield Button("I finished in the browser", id="handoff-done")
                yield Button("Cancel run", id="handoff-cancel", variant="error")
            with VerticalScroll(classes="details"):
                if request.attempt > 1:
                    yield Static(
                        f"Attempt {request.attempt}: the page is still asking.", classes="warn"
                    )
                yield Static(plain(request.why), id="handoff-why")
                yield Static(labelled("URL:", request.url), id="handoff-url")
                if request.hint:
                    yield Static(request.hint, id="handoff-hint", classes="hint")

    def on_mount(self) -> None:
        """Focus the first field."""
        fields = self.query(".handoff-field")
        if fields:
            fields.first().focus()

    def _typed(self) -> dict[str, str]:
        values = {}
        for index, field in enumerate(self.request.fields):
            value = self.query_one(f"#handoff-field-{index}", Input).value
            if value:
                values[field.ref] = value
        return values

    @on(Input.Submitted, ".handoff-field")
    def _next_or_submit(self, event: Input.Submitted) -> None:
        fields = list(self.query(".handoff-field"))
        position = fields.index(event.input)
        if position + 1 < len(fields):
            fields[position + 1].focus()
        else:
            self._submit()

    @on(Button.Pressed, "#handoff-submit")
    def _submit(self) -> None:
        values = self._typed()
        self.dismiss(HandoffAnswer("typed", values) if values else HandoffAnswer("done_in_browser"))

    @on(Button.Pressed, "#handoff-done")
    def _done(self) -> None:
        self.dismiss(HandoffAnswer("done_in_browser"))

    @on(Button.Pressed, "#handoff-cancel")
    def action_cancel(self) -> None:
        """End the run."""
        self.dismiss(HandoffAnswer("cancel"))
