"""The checkpoint modal: an irreversible step waits for the person's y, n or guidance."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Label, Static

from subterminator_tui.guarded.gates import CheckpointRequest, Decision
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
        self,
        request: CheckpointRequest,
        *,
        preview: bool = True,
        guidance: bool = True,
        approval_code: str | None = None,
    ) -> None:
        super().__init__()
        self.request = request
        self.preview = preview
        #: Guidance is offered only when a model will read it (a playbook cannot).
        self.guidance = guidance
        #: Set where calls from strangers wait (serve's console): approving then takes
        #: typing this code after y, so a key repeat or a paste never approves alone.
        self.approval_code = approval_code

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
            if self.approval_code is not None:
                yield Static(
                    f"To approve: y, then type {self.approval_code} and Enter.",
                    id="checkpoint-code-hint",
                    classes="hint",
                )
                yield Input(
                    placeholder=f"Type {self.approval_code} and Enter to approve",
                    id="checkpoint-code",
                    classes="hidden",
                )
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
        """Run the step (where a code is asked for, open the box to type it first)."""
        if self.approval_code is None:
            self.dismiss(Decision("approve"))
            return
        code = self.query_one("#checkpoint-code", Input)
        code.remove_class("hidden")
        code.focus()

    @on(Input.Submitted, "#checkpoint-code")
    def _approve_with_code(self, event: Input.Submitted) -> None:
        if self.approval_code is not None and event.value.strip().lower() == (
            self.approval_code.lower()
        ):
            self.dismiss(Decision("approve"))
            return
        # A wrong code approves nothing; the box stays for another try, n or Esc rejects.
        event.input.value = ""
        self.notify(f"To approve, type {self.approval_code}.", severity="warning")

    def action_reject(self) -> None:
        """End the run; nothing is dispatched."""
        for box in self.query("#checkpoint-guidance, #checkpoint-code").results(Input):
            if not box.has_class("hidden"):
                box.add_class("hidden")
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
        boxes = self.query("#checkpoint-guidance, #checkpoint-code").results(Input)
        typing = any(box.has_focus and not box.has_class("hidden") for box in boxes)
        return not (typing and action in ("approve", "guidance"))

    @on(Input.Submitted, "#checkpoint-guidance")
    def _send_guidance(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.dismiss(Decision("guidance", text))
