"""Native dialogs (alert, confirm, prompt, beforeunload) as Playwright MCP reports them.

While a dialog is open, Playwright MCP answers every tool but ``browser_handle_dialog``
with "does not handle the modal state", and ``browser_navigate`` even answers ok while
staying put. An ``alert()`` offers no choice (its one button only lets the page's
script go on), so the gateway acknowledges it at once and reports its message with
the page; a ``confirm()``, ``prompt()`` or ``beforeunload`` is a choice, which goes
to whoever drives the browser through ``browser_handle_dialog`` and is judged like
a click (its message is the target). A page that opens alert after alert would
keep a call busy forever: past :data:`DIALOG_LIMIT` in one call it is a
:class:`DialogLoopError`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from subterminator_tui.browser.answers import Dispatch, text_of
from subterminator_tui.browser.snapshot import NormalizedSnapshot, split_sections
from subterminator_tui.errors import MCPConnectionError, MCPToolError
from subterminator_tui.inert_text import inert_line

#: Tools that may go while a dialog waits for an answer: the answer itself, and looks.
DIALOG_TOOLS = frozenset({"browser_handle_dialog", "browser_snapshot", "browser_take_screenshot"})
#: Alerts acknowledged within one call before the page counts as looping dialogs.
DIALOG_LIMIT = 10
#: Playwright MCP's error for a tool called while a dialog is open (the tool did not run).
_BLOCKED_BY_DIALOG = "does not handle the modal state"
_DIALOG_LINE = re.compile(r'^- \["(?P<kind>[a-z]+)" dialog with message (?P<message>".*")\]')


@dataclass(frozen=True)
class OpenDialog:
    """A native dialog open on the page: its kind and message."""

    kind: str
    message: str

    @property
    def needs_an_answer(self) -> bool:
        """Whether answering is a choice (confirm, prompt, beforeunload), not only OK."""
        return self.kind != "alert"

    def describe(self) -> str:
        """``confirm dialog "Really cancel?"``."""
        return f"{self.kind} dialog {json.dumps(self.message, ensure_ascii=False)}"


class DialogLoopError(MCPConnectionError):
    """The page opened dialog after dialog: the browser cannot be used on it."""


def open_dialogs(modal_state: str | None) -> list[OpenDialog]:
    """The dialogs a ``Modal state`` section lists (a file chooser is not one)."""
    dialogs = []
    for line in (modal_state or "").splitlines():
        match = _DIALOG_LINE.match(line.strip())
        if match is None:
            continue
        try:
            message = str(json.loads(match["message"]))
        except json.JSONDecodeError:
            message = match["message"].strip('"')
        dialogs.append(OpenDialog(match["kind"], inert_line(message)))
    return dialogs


def blocked_by_dialog(answer_text: str) -> bool:
    """Whether a tool was refused because a dialog is open (so it did not run)."""
    return _BLOCKED_BY_DIALOG in answer_text


def acknowledged_note(messages: list[str]) -> str:
    """The page's note for alerts the gateway acknowledged during a call."""
    return "; ".join(f"alert {json.dumps(m, ensure_ascii=False)} (acknowledged)" for m in messages)


def loop_message(count: int, last: str) -> str:
    """Why a call stopped on a page that kept opening dialogs."""
    return (
        f"The page opened {count} dialogs in a row during one call (the last: "
        f"{json.dumps(last, ensure_ascii=False)}); it keeps the browser from doing anything "
        "else, so nothing more is done on it."
    )


def answer_first_message(dialog: OpenDialog) -> str:
    """Why a call other than the dialog tool is refused while a dialog waits for an answer."""
    return (
        f"A {dialog.describe()} is open on the page and blocks everything else. Nothing was "
        "done; answer it first (accept or dismiss) with the dialog tool."
    )


def refuse_past_open_dialog(name: str, page: NormalizedSnapshot | None) -> None:
    """A confirm/prompt on ``page`` waits for an answer: only the dialog tool (or a look) may
    go; any other call is an MCPToolError carrying the page, and nothing is sent."""
    if name in DIALOG_TOOLS or page is None:
        return
    waiting = [
        dialog for dialog in open_dialogs(page.notes.get("Modal state")) if dialog.needs_an_answer
    ]
    if waiting:
        raise MCPToolError(answer_first_message(waiting[0]), snapshot=page)


async def dispatch_past_alerts(
    dispatch: Dispatch, send: Dispatch, name: str, args: dict[str, Any], before: str | None
) -> tuple[types.CallToolResult, list[str]]:
    """``dispatch`` the call, acknowledging (with ``send``) every alert it meets.

    Returns the last answer and the alerts' messages. A call an alert kept from
    running (refused, or a navigation that stayed on ``before``) is dispatched once
    more after the alerts are acknowledged.
    """
    result = await dispatch(name, args)
    acknowledged: list[str] = []
    for attempt in range(2):
        first = text_of(result)
        result = await _acknowledge_alerts(send, result, acknowledged)
        did_not_run = blocked_by_dialog(first) or (
            name == "browser_navigate"
            and bool(acknowledged)
            and _page_url(first) == before
            and before != args.get("url")
        )
        if attempt or not acknowledged or not did_not_run:
            break
        result = await dispatch(name, args)
    return result, acknowledged


async def _acknowledge_alerts(
    send: Dispatch, result: types.CallToolResult, acknowledged: list[str]
) -> types.CallToolResult:
    """Accept alert after alert (they offer no choice) until none is open."""
    while True:
        dialogs = open_dialogs(split_sections(text_of(result)).get("Modal state"))
        if not dialogs or dialogs[0].needs_an_answer:
            return result
        if len(acknowledged) >= DIALOG_LIMIT:
            raise DialogLoopError(loop_message(len(acknowledged) + 1, dialogs[0].message))
        acknowledged.append(dialogs[0].message)
        result = await send("browser_handle_dialog", {"accept": True})


def with_dialog_notes(
    page: NormalizedSnapshot, modal: str | None, acknowledged: list[str]
) -> NormalizedSnapshot:
    """``page`` with the open dialog (``modal``) and the alerts acknowledged on the way."""
    notes = {key: value for key, value in page.notes.items() if key != "Modal state"}
    if modal is not None:
        notes["Modal state"] = modal
    if acknowledged:
        notes["Dialogs"] = acknowledged_note(acknowledged)
    return dataclasses.replace(page, notes=notes)


def _page_url(answer_text: str) -> str | None:
    """The ``- Page URL:`` of an answer, if it has one."""
    for line in split_sections(answer_text).get("Page", "").splitlines():
        if line.startswith("- Page URL:"):
            return line.removeprefix("- Page URL:").strip()
    return None
