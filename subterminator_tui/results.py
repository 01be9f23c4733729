"""How a run ended, and the exit code that follows from it.

The bottom of the core: the journal stores these and every layer above returns them,
so they import nothing of the core but the exit codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from subterminator_tui import exit_codes

TaskReason = Literal[
    "completed",  # verified success
    "task_failed",  # the pilot called complete_task(failed): trusted, nothing irreversible sent
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
    "sent_not_verified",  # an approved irreversible step went out; no rule verified the end
    "already_cancelled",  # the service was cancelled before this run; nothing was sent
    "billed_elsewhere",  # another company bills it: cancel there (TaskResult.ending says where)
    "offline_only",  # only a phone call, chat or letter cancels it (TaskResult.ending has them)
    "cancelled_unasked",  # the service confirmed a commit sent without a question: a guard miss
]
EndingReason = Literal["billed_elsewhere", "offline_only"]


@dataclass(frozen=True)
class Ending:
    """Why the run ends without a click: who to go to, or how to reach the service."""

    reason: EndingReason
    why: str
    biller: str | None = None
    cancel_at: str | None = None
    how: str | None = None
    #: Phone numbers, e-mail and postal addresses, chat, as the page shows them.
    contacts: tuple[str, ...] = ()
    #: A letter the person can send as it is (their name and the date left to fill in).
    letter: str | None = None

    def message(self, service_name: str) -> str:
        """What the person is told at the end of the run."""
        if self.reason == "billed_elsewhere":
            where = f" at {self.cancel_at}" if self.cancel_at else ""
            steps = f" {self.how}" if self.how else ""
            return (
                f"{service_name} is billed by {self.biller}, so it is cancelled with "
                f"{self.biller}{where}, not on {service_name}'s site.{steps}"
            )
        shown = "; ".join(self.contacts) or "the contact details on the page"
        return (
            f"{service_name} can only be cancelled by phone, chat or letter ({shown}). "
            "A letter you can send is in the run's result."
        )

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Ending:
        """The ending as the journal stored it (``dataclasses.asdict``), read back."""
        billed = record.get("reason") == "billed_elsewhere"
        reason: EndingReason = "billed_elsewhere" if billed else "offline_only"

        def text(key: str) -> str | None:
            value = record.get(key)
            return str(value) if value else None

        return cls(
            reason=reason,
            why=str(record.get("why") or ""),
            biller=text("biller"),
            cancel_at=text("cancel_at"),
            how=text("how"),
            contacts=tuple(str(contact) for contact in record.get("contacts") or ()),
            letter=text("letter"),
        )

    def rows(self) -> list[tuple[str, str]]:
        """The details as label and value, for an end screen or a summary (page text: escape it)."""
        rows: list[tuple[str, str]] = []
        if self.biller:
            rows.append(("Billed by", self.biller))
        if self.cancel_at:
            rows.append(("Cancel at", self.cancel_at))
        if self.how:
            rows.append(("How", self.how))
        rows.extend(("Contact", contact) for contact in self.contacts)
        return rows


#: Endings with their own exit codes.
_OWN_EXIT_CODES = {
    "sent_not_verified": exit_codes.SENT_NOT_VERIFIED,
    "billed_elsewhere": exit_codes.BILLED_ELSEWHERE,
    "offline_only": exit_codes.OFFLINE_ONLY,
    "already_cancelled": exit_codes.ALREADY_CANCELLED,
    "cancelled_unasked": exit_codes.CANCELLED_UNASKED,
}


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
    #: Why no click could finish it: the biller and its place to cancel, or the contact
    #: details and a letter (``billed_elsewhere`` and ``offline_only`` only).
    ending: Ending | None = None
    #: Of ``input_tokens``, those the provider read from and wrote to its prompt cache.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    #: US dollars at the settings' price for the model; None when it has no price.
    cost: float | None = None
    #: The request that went out without a question and that the service confirmed (a
    #: guard miss: ``cancelled_unasked``), as ``METHOD host/path (answered STATUS)``.
    guard_miss: str | None = None

    @property
    def exit_code(self) -> int:
        """Success, failure, configuration or connection error (README, exit codes)."""
        if self.reason == "dry_run" or (self.reason == "completed" and self.success):
            return exit_codes.SUCCESS
        if self.reason in _OWN_EXIT_CODES:
            return _OWN_EXIT_CODES[self.reason]
        if self.reason in ("llm_error", "mcp_error", "outcome_unknown"):
            return exit_codes.CONNECTION
        if self.reason in ("configuration_error", "journal_error"):
            return exit_codes.CONFIGURATION
        return exit_codes.FAILURE

    @property
    def sent(self) -> bool:
        """Whether an approved irreversible step may have gone out (the words must not say
        "not cancelled" then)."""
        return self.success or self.reason in ("sent_not_verified", "outcome_unknown")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, the form ``--json`` prints; it never contradicts itself."""
        data = asdict(self)
        data["exit_code"] = self.exit_code
        data["sent"] = self.sent
        return data
