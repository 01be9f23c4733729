"""The human at a plain terminal (or a script piping stdin): approvals and hand-offs."""

from __future__ import annotations

import sys
from typing import TextIO

from subterminator_tui.guarded.gates import (
    HANDOFF_TITLES,
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.headless.console import read_line, read_secret
from subterminator_tui.inert_text import inert_text

#: What a person types to approve a question (any case); anything else refuses it.
APPROVING_ANSWERS = ("y", "yes")


class TerminalGate:
    """Asks on ``out`` and reads stdin; end of input means no."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def _say(self, text: str) -> None:
        # The last pass before the terminal: page text never writes an escape sequence.
        print(inert_text(text), file=self.out, flush=True)

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Show the action, URL and screenshot, then ``Approve? [y/N]``."""
        self._say(f"⚠️  Human approval required for: {request.action}")
        # The turn line above names the step; it has not run: it waits for this answer.
        self._say("    Not done yet: it runs only if you approve.")
        self._say(f"    Why: {request.why}")
        self._say(f"    URL: {request.url}")
        if request.screenshot_path:
            self._say(f"    Screenshot: {request.screenshot_path}")
        prompt = (
            "Approve? [y/N, g = send guidance instead]: "
            if request.takes_guidance
            else "Approve? [y/N]: "
        )
        answer = await read_line(prompt, out=self.out)
        if answer is None:
            # The input ended: nobody said no, and nothing runs.
            return Decision("reject", answered=False)
        choice = answer.strip().lower()
        if choice in APPROVING_ANSWERS:
            return Decision("approve")
        if choice in ("g", "guidance") and not request.takes_guidance:
            self._say("    Guidance needs a model (none drives this run); answer y or n.")
            return await self.approve(request)
        if choice in ("g", "guidance"):
            guidance = await read_line("Guidance for the pilot: ", out=self.out)
            if guidance and guidance.strip():
                return Decision("guidance", guidance.strip())
        return Decision("reject")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """Ask the person to finish in the browser or type the values; never echo secrets."""
        title = HANDOFF_TITLES.get(request.kind, request.kind)
        self._say(f"🔐 {title}: {request.why}")
        self._say(f"    URL: {request.url}")
        if request.attempt > 1:
            self._say(f"    Attempt {request.attempt}: the page is still asking.")
        if request.hint:
            self._say(f"    {request.hint}")
        if request.headed:
            self._say("    Finish it in the browser window and press Enter with the fields empty,")
            self._say("    or type the values here; SubTerminator types them into the page.")
        self._say(
            "    What you type goes into the page only: never to the AI, the log or the journal."
        )
        values: dict[str, str] = {}
        for field in request.fields:
            prompt = f"    {field.label}: "
            answer = (
                await read_secret(prompt, out=self.out)
                if field.secret
                else await read_line(prompt, out=self.out)
            )
            if answer is None:
                return HandoffAnswer("cancel")
            if answer:
                values[field.ref] = answer
        if not request.fields:
            answer = await read_line(
                "    Press Enter when done (end of input cancels): ", out=self.out
            )
            if answer is None:
                return HandoffAnswer("cancel")
        if values:
            return HandoffAnswer("typed", values)
        return HandoffAnswer("done_in_browser")
