"""Turn lines as seed 000 §2.8.6 shows them; diagnostics on stderr."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from subterminator_tui.inert_text import inert_text
from subterminator_tui.orchestrator.ending_words import ending_words
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
from subterminator_tui.orchestrator.virtual_tools import COMPLETE_TASK


class TerminalReporter:
    """Prints a run as it happens."""

    def __init__(
        self, out: TextIO | None = None, err: TextIO | None = None, *, verbose: bool = False
    ) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.verbose = verbose
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
        result = event.result
        self._out("")
        words = ending_words(result, self.service_name)
        if words is not None:
            self._out(f"{words[0]}: {words[1]}" if words[1] else words[0])
        elif result.reason == "dry_run":
            self._out(f"Dry run: proposed {result.message}. Nothing was done: no action ran.")
        elif result.ending is not None:
            # No click can finish it here: who to go to, or how to reach the service.
            self._out(f"! {self.service_name}: {result.ending.message(self.service_name)}")
            for label, value in result.ending.rows():
                self._out(f"  {label}: {_inline(value)}")
            if result.ending.letter:
                self._out("\nA letter you can send:\n\n" + result.ending.letter)
        elif result.success:
            # Generic rules are weaker evidence than a service's own: the line says which held.
            how = " by generic rules" if result.verified_by == "generic" else ""
            self._out(
                f"✓ {self.service_name} cancellation completed and verified{how} "
                f"({result.turns} turns)"
            )
        else:
            detail = result.message or result.error or ""
            self._out(
                f"✗ {self.service_name}: not cancelled ({result.reason})"
                + (f": {detail}" if detail else "")
            )

    def _out(self, text: str) -> None:
        # The last pass before the terminal: page text never writes an escape sequence.
        print(inert_text(text), file=self.out, flush=True)

    def _err(self, text: str) -> None:
        print(inert_text(text), file=self.err, flush=True)


def _inline(text: str) -> str:
    """Page text on one line, without control characters (escape sequences stay inert)."""
    return "".join(char if char.isprintable() else " " for char in text)
