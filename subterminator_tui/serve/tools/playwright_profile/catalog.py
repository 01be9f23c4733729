"""Which Playwright MCP tools the compatible profile offers, as the pinned server lists them.

The names, descriptions, input schemas and annotations come from the pinned
``@playwright/mcp`` (``pinned_tools.json``, written by
``scripts/pin_playwright_tools.py`` from that server's own tools/list), so an agent
configured for Playwright MCP finds the same tools with the same arguments. Each
description gets one sentence on what serve does differently; nothing else is changed.
The tools serve refuses on purpose are not listed at all, with the reason kept here
for the documentation and for the error an agent gets when it names one anyway.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types

from subterminator_tui.browser.tools import ALLOWED_TOOL_ORDER

#: The pinned server's tool table (its version and the allowed tools, as listed).
PINNED_TOOLS_FILE = Path(__file__).with_name("pinned_tools.json")

#: The Playwright MCP tools serve offers: the allowlist itself, in the order clients list them.
ALLOWED_TOOLS: tuple[str, ...] = ALLOWED_TOOL_ORDER

#: Playwright MCP tools left out on purpose, and why: a guard that judges a call by the
#: element it targets cannot judge code, files or the browser's own machinery.
REFUSED_TOOLS: dict[str, str] = {
    "browser_evaluate": "runs the agent's JavaScript in the page, past every rule",
    "browser_run_code_unsafe": "runs the agent's Playwright code, past every rule",
    "browser_file_upload": "reads files from the server's disk into the page",
    "browser_drop": "drops files or data onto the page",
    "browser_drag": "a drag's effect cannot be judged from the element it starts on",
    "browser_close": "the browser belongs to the session; it closes when the session does",
    "browser_resize": "the window size is the operator's, for the live view and screenshots",
    "browser_emulate_media": "changes how the page draws itself for the operator too",
    "browser_console_messages": "page logs can carry what the person typed; serve scrubs "
    "and keeps them for the operator",
    "browser_network_requests": "requests carry headers and bodies with the person's secrets",
    "browser_network_request": "as browser_network_requests",
    "browser_find": "searches by selector or text outside the snapshot the guard judged",
    "browser_install": "installs a browser; serve uses the one on this computer",
}

#: What each description adds: how serve answers where Playwright MCP would just act.
_SERVE_NOTES: dict[str, str] = {
    "browser_navigate": "Only the session's allowed domains open; others are refused "
    "before anything is requested.",
    "browser_snapshot": "Answers with the whole page; `filename` is refused (serve writes "
    "no files).",
    "browser_click": "A click a rule marks irreversible is held for the operator: the "
    "answer gives an approval id; call approval_wait with it.",
    "browser_type": "`submit` on a field whose form finishes an irreversible step is held "
    "for the operator (approval_wait).",
    "browser_fill_form": "A field whose change finishes an irreversible step is held for "
    "the operator (approval_wait).",
    "browser_select_option": "Choosing an option can submit a form: an irreversible one is "
    "held for the operator (approval_wait).",
    "browser_press_key": "Enter or Space on an irreversible control is held for the "
    "operator (approval_wait).",
    "browser_tabs": "Tabs that leave the allowed domains are closed; `new` opens only "
    "allowed addresses.",
    "browser_handle_dialog": "Accepting a dialog that finishes an irreversible step is held "
    "for the operator (approval_wait).",
    "browser_take_screenshot": "`filename` is refused (serve writes no files); the image "
    "comes back in the answer.",
}
_REF_NOTE = "`target` must be a ref from the latest snapshot (selectors are refused)."


@dataclass(frozen=True)
class PinnedTool:
    """One Playwright MCP tool as the pinned server lists it, with serve's note added."""

    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: types.ToolAnnotations


@cache
def pinned_table() -> dict[str, Any]:
    """The pinned server's version and tools (``pinned_tools.json``)."""
    table: dict[str, Any] = json.loads(PINNED_TOOLS_FILE.read_text(encoding="utf-8"))
    return table


def pinned_version() -> str:
    """The @playwright/mcp version the table was taken from."""
    return str(pinned_table()["version"])


@cache
def profile_tools() -> tuple[PinnedTool, ...]:
    """The offered tools in :data:`ALLOWED_TOOLS` order, described for serve."""
    listed = {tool["name"]: tool for tool in pinned_table()["tools"]}
    tools = []
    for name in ALLOWED_TOOLS:
        tool = listed[name]
        schema = tool["inputSchema"]
        notes = [_SERVE_NOTES.get(name, "")]
        if "target" in schema.get("properties", {}) or name == "browser_fill_form":
            notes.append(_REF_NOTE)
        description = " ".join([tool["description"].rstrip(), *filter(None, notes)])
        hints = tool.get("annotations", {})
        annotations = types.ToolAnnotations(
            title=hints.get("title"),
            read_only_hint=hints.get("readOnlyHint"),
            destructive_hint=hints.get("destructiveHint"),
            idempotent_hint=hints.get("idempotentHint"),
            open_world_hint=hints.get("openWorldHint"),
        )
        tools.append(PinnedTool(name, description, schema, annotations))
    return tuple(tools)


def argument_problems(tool: PinnedTool, arguments: dict[str, Any]) -> list[str]:
    """What is wrong with ``arguments`` under the pinned schema (empty: they fit)."""
    validator = jsonschema.Draft202012Validator(tool.input_schema)
    problems = []
    for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.path)):
        where = ".".join(str(part) for part in error.path) or "arguments"
        problems.append(f"{where}: {error.message}")
    return problems
