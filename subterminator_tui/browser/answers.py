"""Reading Playwright MCP's answers: their text, their errors, in words a person can act on."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types

#: Sends one tool call to Playwright MCP and returns its answer.
Dispatch = Callable[[str, dict[str, Any]], Awaitable[types.CallToolResult]]
#: Terminal colour codes in Playwright's messages: never shown to a person or a model.
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def text_of(result: types.CallToolResult) -> str:
    """The text blocks of an answer, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def root_cause(error: BaseException) -> str:
    """The innermost errors' messages: a TaskGroup's "unhandled errors" says nothing useful."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(root_cause(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def error_message(text: str) -> str:
    """The ``### Error`` section of an answer, without colour codes."""
    body = ANSI.sub("", text.split("### Error", 1)[-1].split("\n### ", 1)[0]).strip()
    return body.removeprefix("Error: ").strip() or "The browser reported an error"


def restart_message(reopened: str | None) -> str:
    """What the pilot hears after the browser was restarted under it."""
    where = f" and reopened {reopened}" if reopened else ""
    return (
        f"The browser stopped and was restarted{where}. Element refs changed: "
        "read the fresh snapshot and retry."
    )
