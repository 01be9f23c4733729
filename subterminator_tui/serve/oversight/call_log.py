"""The call log: each served call kept in the journal, under a ref_id the agent can read it by.

The agent's answer stays small (status, ref_id, the compact page); the record keeps
everything: Playwright's whole result text, the page as text, the console messages.
Nothing typed reaches a record: the ``text`` of a type call (and a prompt's answer)
is replaced by its length, and the typed value itself is removed from every text the
record keeps, addresses included, in every encoding a page or a URL gives it
(Playwright echoes it in the code it ran; the page may show, log or GET-submit it).

:class:`SessionCallLog` is also the session's
:class:`~subterminator_tui.guarded.step_log.StepLog`: the guarded-call pipeline
writes each call's turn row (with its target's role and name) and each held call's
question, decision, dispatch and outcome through it, as it does for a run's loop.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.guarded.secrets import SecretScrubber
from subterminator_tui.journal.call_log import CallLogStore, LoggedCall
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.names import SessionKey
from subterminator_tui.serve.oversight.console_log import parse_console

#: Argument names whose values may be typed text, never recorded (for any tool: a
#: wait_for's text recorded as its length loses little).
TYPED_ARGUMENTS = frozenset({"text", "promptText"})
#: A typed value shorter than this is not hunted through every later text: "a" or "the"
#: would blank every word holding it, the operator's questions included.
MIN_TYPED_LENGTH = 4


def typed_values(tool: str, arguments: dict[str, Any]) -> list[str]:
    """What ``tool`` puts into the page as typed: a field's text, a form's values, a
    prompt's answer; never a wait_for's or a search's text (those are read, not typed)."""
    if tool == "browser_type":
        values: list[object] = [arguments.get("text")]
    elif tool == "browser_fill_form":
        fields = arguments.get("fields")
        values = [f.get("value") for f in fields if isinstance(f, dict)] if fields else []
    elif tool == "browser_handle_dialog":
        values = [arguments.get("promptText")]
    else:
        return []
    return [v for v in values if isinstance(v, str) and len(v.strip()) >= MIN_TYPED_LENGTH]


def redacted_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with typed text replaced by how long it was."""
    return {
        key: f"[{len(value)} characters typed, not recorded]"
        if key in TYPED_ARGUMENTS and isinstance(value, str)
        else value
        for key, value in arguments.items()
    }


class SessionCallLog:
    """Writes the call log entries and the journal rows of one session's calls."""

    def __init__(self, store: CallLogStore, key: SessionKey, run_id: int) -> None:
        self.store = store
        self.key = key
        self.run_id = run_id
        self.pilot = f"mcp:{key.principal}"
        #: Every value typed in this session, removed from what is recorded.
        self.typed = SecretScrubber()

    def intent(self, turn: int, call: ToolCall, target: tuple[str, str] | None) -> int:
        """The call's turn row, before it is judged: typed text as its length only."""
        journal = self.store.journal
        arguments = redacted_arguments(call.arguments)
        return journal.record_intent(
            self.run_id, turn, self.pilot, call.name, arguments, target=target
        )

    def question(self, turn: int, why: str, action: str, url: str) -> int:
        """The operator is about to be asked before an irreversible step."""
        return self.store.journal.record_question(self.run_id, turn, why, action, url)

    def decision(self, step: int | None, verdict: str) -> None:
        """The operator's verdict on ``step`` (their note goes to the agent only)."""
        if step is not None:
            self.store.journal.record_decision(step, verdict)

    def dispatch(self, step: int | None) -> None:
        """The approved step goes to the browser now."""
        if step is not None:
            self.store.journal.record_dispatch(step)

    def step_outcome(self, step: int | None, outcome: str) -> None:
        """done, failed or unknown."""
        if step is not None:
            self.store.journal.record_step_outcome(step, outcome)

    def turn_outcome(self, row: int | None, answer: Answer, latency: float) -> None:
        """The outcome of turn row ``row`` (the page itself goes into the call log only; the
        turn reads it from there)."""
        if row is None:
            return
        page = answer.page
        self.store.journal.record_outcome(
            row,
            outcome=answer.status,
            error=self.typed.text(answer.message) if answer.is_error else None,
            url=self.typed.text(page.url) if page else None,
            title=self.typed.text(page.title) if page else None,
            snapshot=None,
            latency=latency,
            input_tokens=0,
            output_tokens=0,
        )

    def remember_typed(self, tool: str, arguments: dict[str, Any]) -> None:
        """Keep the text a call types out of everything recorded from now on."""
        for value in typed_values(tool, arguments):
            self.typed.remember(value)

    def record(
        self,
        tool: str,
        arguments: dict[str, Any],
        answer: Answer,
        *,
        result_text: str | None,
        console_text: str,
        latency: float,
        turn_id: int | None = None,
    ) -> str:
        """Write the call's record (the page kept here only: ``turn_id``'s turn reads it
        from the record); its new ref_id."""
        self.remember_typed(tool, arguments)
        scrub = self.typed.text
        page = answer.page
        record = LoggedCall(
            ref_id=str(uuid.uuid4()),
            principal=self.key.principal,
            session=self.key.name,
            tool=tool,
            arguments=redacted_arguments(arguments),
            status=answer.status,
            result=scrub(result_text) if result_text is not None else None,
            snapshot=scrub(page.content) if page is not None else None,
            # A page reached by a GET form has what was typed in its address.
            url=scrub(page.url) if page is not None else None,
            error=scrub(answer.message) if answer.is_error else None,
            latency=latency,
            created_at=time.time(),
        )
        # The location too: a page sent by GET has what was typed in its address.
        console = tuple(
            dataclasses.replace(
                message,
                message=scrub(message.message),
                url=scrub(message.url) if message.url is not None else None,
            )
            for message in parse_console(console_text)
        )
        self.store.add(record, self.run_id, console, turn_id=turn_id)
        return record.ref_id
