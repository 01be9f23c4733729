"""The tools the orchestrator answers itself (ending the run, asking the person)."""

from __future__ import annotations

from subterminator_tui.browser.tools import REF_PATTERN
from subterminator_tui.providers.base import ToolSpec

COMPLETE_TASK = "complete_task"
REQUEST_HUMAN_APPROVAL = "request_human_approval"
SHOW_REGION = "show_region"
VIRTUAL_TOOLS = frozenset({COMPLETE_TASK, REQUEST_HUMAN_APPROVAL, SHOW_REGION})

COMPLETE_TASK_SPEC = ToolSpec(
    COMPLETE_TASK,
    "End the task. WHEN TO USE: success once the page confirms it; failed if impossible. "
    "WHAT HAPPENS: success is checked by rules. ERRORS: not verified (go on).",
    {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["success", "failed"]},
            "reason": {"type": "string"},
        },
        "required": ["status", "reason"],
    },
)

REQUEST_HUMAN_APPROVAL_SPEC = ToolSpec(
    REQUEST_HUMAN_APPROVAL,
    "Ask the human first. WHEN TO USE: unsure a step is safe. WHAT HAPPENS: approval or "
    "guidance comes back; a rejection ends the task. ERRORS: none.",
    {
        "type": "object",
        "properties": {"action": {"type": "string"}, "reason": {"type": "string"}},
        "required": ["action", "reason"],
    },
)

#: Reads the page the pilot was last sent, so it needs no browser call and changes nothing.
SHOW_REGION_SPEC = ToolSpec(
    SHOW_REGION,
    "List what a ref holds in full. WHEN TO USE: its line says 'not shown'. WHAT HAPPENS: "
    "its elements with refs; the page is unchanged. ERRORS: unknown ref.",
    {
        "type": "object",
        "properties": {"target": {"type": "string", "pattern": REF_PATTERN}},
        "required": ["target"],
    },
)

VIRTUAL_TOOL_SPECS = (COMPLETE_TASK_SPEC, REQUEST_HUMAN_APPROVAL_SPEC, SHOW_REGION_SPEC)
