"""How a run ended (seed 000 §5.1), and the exit code that follows from it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from subterminator_tui import exit_codes

TaskReason = Literal[
    "completed",  # verified success
    "task_failed",  # the pilot called complete_task(failed): trusted, verified=True
    "human_rejected",  # the human rejected a checkpoint or cancelled a hand-off
    "no_answer",  # the input ended (EOF) before the human answered a checkpoint
    "max_turns_exceeded",
    "llm_no_action",  # three replies in a row without a tool call
    "llm_error",  # the model API failed after retries
    "mcp_error",  # the browser could not be kept alive, or answered what cannot be read
    "configuration_error",  # something to install, set or fix turned up mid-run
    "outcome_unknown",  # the browser stopped answering during an approved irreversible step
    "journal_error",  # the journal could not record a step: nothing more was dispatched
    "verification_failed",  # success claimed but the rules never agreed
    "playbook_diverged",  # the playbook's step was not on the page and no model is configured
    "dry_run",  # nothing was executed
    "interrupted",  # Ctrl+C or SIGTERM (recorded in the journal; the process exits 130/143)
]


@dataclass(frozen=True)
class TaskResult:
    """The outcome of one run."""

    success: bool
    verified: bool
    reason: TaskReason
    turns: int
    final_url: str | None = None
    error: str | None = None
    #: The pilot's own words (complete_task's reason, or what diverged).
    message: str | None = None
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    run_id: int | None = None
    #: Whose rule confirmed the cancellation: ``service`` (its own rules) or ``generic``
    #: (only the built-in rules for any site held); None when not verified.
    verified_by: Literal["service", "generic"] | None = None

    @property
    def exit_code(self) -> int:
        """Success, failure, configuration or connection error (README, exit codes)."""
        if self.reason == "dry_run" or (self.reason == "completed" and self.success):
            return exit_codes.SUCCESS
        if self.reason in ("llm_error", "mcp_error", "outcome_unknown"):
            return exit_codes.CONNECTION
        if self.reason in ("configuration_error", "journal_error"):
            return exit_codes.CONFIGURATION
        return exit_codes.FAILURE

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, the form ``--json`` prints."""
        data = asdict(self)
        data["exit_code"] = self.exit_code
        return data
