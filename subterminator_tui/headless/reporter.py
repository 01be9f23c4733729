"""One line per turn, greppable; diagnostics on stderr."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from subterminator_tui.inert_text import inert_text
from subterminator_tui.orchestrator.endings import ending_of
from subterminator_tui.orchestrator.events import (
    Event,
    NoAction,
    Notice,
    PageSeen,
    RunFinished,
    RunStarted,
    TurnFinished,
    TurnStarted,
)
from subterminator_tui.pilots.virtual_tools import COMPLETE_TASK


class TerminalReporter:
    """Prints a run as it happens."""

    def __init__(
        self,
        out: TextIO | None = None,
        err: TextIO | None = None,
        *,
        verbose: bool = False,
        command: str = "",
    ) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.verbose = verbose
        #: What to type to run it again, for the next step after a failure.
        self.command = command
        self.service_name = ""

    def emit(self, event: Event) -> None:
        """Render one event."""
        if isinstance(event, RunStarted):
            self.service_name = event.service_name
            driver = f"model {event.model}" if event.model else f"{event.pilot} pilot"
            self._out(f"Starting {event.service_name} cancellation ({driver})...")
            if not event.checkpoints:
                self._err(
                    "WARNING: --no-checkpoint: irreversible steps will NOT ask for approval. "
                    "For testing only."
                )
        elif isinstance(event, TurnStarted):
            self._out(f"[Turn {event.turn}] {self._describe(event)}")
            if self.verbose:
                self._out(f"    arguments: {json.dumps(event.call.arguments)}")
                if event.reasoning:
                    self._out(f"    reasoning: {event.reasoning}")
        elif isinstance(event, TurnFinished):
            if event.outcome not in ("ok", "done"):
                self._out(f"    -> {event.outcome}: {event.message}")
            elif event.human_seconds > 0:
                # The turn line above was printed before the question: say it ran after it.
                self._out("    -> done after your approval")
        elif isinstance(event, NoAction):
            self._err(f"[Turn {event.turn}] no tool call ({event.count} in a row)")
        elif isinstance(event, Notice):
            self._err(("warning: " if event.level == "warning" else "") + event.text)
        elif isinstance(event, PageSeen):
            if not event.allowed:
                self._err(f"warning: the page left the allowed domains: {event.snapshot.url}")
            if self.verbose:
                self._out(f"    page: {event.snapshot.title} <{event.snapshot.url}>")
                self._out(event.snapshot.content)
        elif isinstance(event, RunFinished):
            self._finished(event)

    def _describe(self, event: TurnStarted) -> str:
        call = event.call
        if call.name == COMPLETE_TASK:
            return f'{call.name} "{call.arguments.get("status", "")}"'
        if event.target is not None:
            return f'{call.name} "{event.target.label}"'
        for key in ("url", "key", "text"):
            if key in call.arguments:
                return f'{call.name} "{call.arguments[key]}"'
        return call.name

    def _finished(self, event: RunFinished) -> None:
        ending = ending_of(event.result, self.service_name, self.command)
        self._out("")
        self._out(("✓ " if ending.success else "✗ ") + ending.happened)
        self._out("  " + ending.next_step)
        result = event.result
        if result.ending is not None:
            # No click can finish it here: who to go to, or how to reach the service.
            for label, value in result.ending.rows():
                self._out(f"  {label}: {_inline(value)}")
            if result.ending.letter:
                self._out("\nA letter you can send:\n\n" + result.ending.letter)

    def _out(self, text: str) -> None:
        # The last pass before the terminal: page text never writes an escape sequence.
        print(inert_text(text), file=self.out, flush=True)

    def _err(self, text: str) -> None:
        print(inert_text(text), file=self.err, flush=True)


def _inline(text: str) -> str:
    """Page text on one line, without control characters (escape sequences stay inert)."""
    return "".join(char if char.isprintable() else " " for char in text)
