"""The checkpoint modal: an irreversible step waits for the person's y, n or guidance."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Label, Static

from subterminator_tui.orchestrator.gates import CheckpointRequest, Decision
from subterminator_tui.tui.actions import bindings
from subterminator_tui.tui.plain import labelled, plain
from subterminator_tui.tui.screens.question import QuestionScreen
from subterminator_tui.tui.widgets.key_hints import KeyHints

_TITLES = {
    "rule": "Approval required",
    "model_request": "The pilot asks for approval",
    "left_domains": "The page left the service's domains",
}


class CheckpointScreen(QuestionScreen[Decision]):
    """Shows why the run stopped, the action in words, the URL and the screenshot."""

    # Nothing is focused at first: y, n and g must be keys, not letters in the guidance box.
    AUTO_FOCUS = ""

    #: What the help screen calls this screen.
    HELP_TITLE = "an irreversible step"

    BINDINGS: ClassVar[list[BindingType]] = bindings("checkpoint")  # type: ignore[assignment]

    def __init__(
        self, request: CheckpointRequest, *, preview: bool = True, guidance: bool = True
    ) -> None:
        super().__init__()
        self.request = request
        self.preview = preview
        #: Guidance is offered only when a model will read it (a playbook cannot).
        self.guidance = guidance

    def compose(self) -> ComposeResult:
        """The question and its keys first; the details, then the preview, below them.

        On a small terminal the preview shrinks (and the details scroll) before the keys go.
        """
        request = self.request
        with Vertical(id="checkpoint-dialog", classes="dialog"):
            yield Label(f"⚠ {_TITLES.get(request.kind, 'Approval required')}", classes="title")
            yield Static(plain(request.action), id="checkpoint-action", classes="action")
            with Horizontal(classes="keys"):
                yield KeyHints({"approve": "approve", "reject": "reject", "guidance": "guidance"})
            yield Input(
                placeholder="Guidance for the pilot, then Enter",
                id="checkpoint-guidance",
                classes="hidden",
            )
            with VerticalScroll(classes="details"):
                yield Static(labelled("Why:", request.why), id="checkpoint-why")
                yield Static(labelled("URL:", request.url), id="checkpoint-url")
                if request.screenshot_path:
                    shown = request.screenshot_path.replace(str(Path.home()), "~", 1)
                    yield Static(labelled("Screenshot:", shown), id="checkpoint-screenshot")
                    if self.preview and Path(request.screenshot_path).exists():
                        from subterminator_tui.tui.widgets.preview import screenshot_preview

                        yield screenshot_preview(Path(request.screenshot_path))

    def action_approve(self) -> None:
        """Run the step."""
        self.dismiss(Decision("approve"))

    def action_reject(self) -> None:
        """End the run; nothing is dispatched."""
        guidance = self.query_one("#checkpoint-guidance", Input)
        if not guidance.has_class("hidden"):
            guidance.add_class("hidden")
            return
        self.dismiss(Decision("reject"))

    def action_guidance(self) -> None:
        """Open the guidance input."""
        guidance = self.query_one("#checkpoint-guidance", Input)
        guidance.remove_class("hidden")
        guidance.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While typing guidance, y/n/g are letters, not commands; no model, no guidance."""
        if action == "guidance" and not self.guidance:
            return False
        guidance = self.query_one("#checkpoint-guidance", Input)
        typing = guidance.has_focus and not guidance.has_class("hidden")
        return not (typing and action in ("approve", "guidance"))

    @on(Input.Submitted, "#checkpoint-guidance")
    def _send_guidance(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.dismiss(Decision("guidance", text))
