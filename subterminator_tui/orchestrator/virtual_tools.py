"""The two tools the orchestrator answers itself (seed 000 §2.3)."""

from __future__ import annotations

from subterminator_tui.providers.base import ToolSpec

COMPLETE_TASK = "complete_task"
REQUEST_HUMAN_APPROVAL = "request_human_approval"
VIRTUAL_TOOLS = frozenset({COMPLETE_TASK, REQUEST_HUMAN_APPROVAL})

COMPLETE_TASK_SPEC = ToolSpec(
    COMPLETE_TASK,
    "Signal that the task is complete. Call when the goal is achieved or cannot be achieved.\n"
    "WHEN TO USE: status 'success' once the page confirms the cancellation; 'failed' when it "
    "cannot be done.\nWHAT HAPPENS: a success claim is checked against the service's rules on "
    "a fresh page; if they do not confirm it you get an error and the task goes on.\n"
    "ERRORS: success not verified.",
    {
        "type": "object",
        "properties": {
            "status": {
                "type": "string",
                "enum": ["success", "failed"],
                "description": "Whether the goal was achieved",
            },
            "reason": {"type": "string", "description": "Explanation of outcome"},
        },
        "required": ["status", "reason"],
        "additionalProperties": False,
    },
)

REQUEST_HUMAN_APPROVAL_SPEC = ToolSpec(
    REQUEST_HUMAN_APPROVAL,
    "Pause and request human approval before proceeding.\n"
    "WHEN TO USE: before anything you are unsure is safe. Irreversible steps are also "
    "stopped for approval automatically.\nWHAT HAPPENS: the human approves (you continue), "
    "rejects (the task ends) or sends guidance, which you receive as the result.\n"
    "ERRORS: none.",
    {
        "type": "object",
        "properties": {
            "action": {"type": "string", "description": "What action requires approval"},
            "reason": {"type": "string", "description": "Why approval is needed"},
        },
        "required": ["action", "reason"],
        "additionalProperties": False,
    },
)

VIRTUAL_TOOL_SPECS = (COMPLETE_TASK_SPEC, REQUEST_HUMAN_APPROVAL_SPEC)
