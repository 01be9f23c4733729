"""How a run ended, in words a person reads: what happened, then what to do next.

Every front end (the app's end screen, the line printed after the app closes, the
plain front end's last lines, ``resume``) words an ending through
:func:`describe_ending`; the reason codes stay in ``--json``. A new ending reason
gets its words here, once, as a :class:`Wording` in ``WORDINGS``.
"""

from __future__ import annotations

from dataclasses import dataclass

from subterminator_tui.plurals import plural
from subterminator_tui.results import TaskResult


@dataclass(frozen=True)
class Wording:
    """Templates for one reason; fields: service, detail, run, turns, show, again."""

    #: One sentence: what happened.
    happened: str
    #: What to do next: the likely cause and the command to try, or where the receipt is.
    next_step: str
    #: A few words for a status line ("cancelled", "not cancelled", "stopped").
    status: str


#: The words for every reason a run can end with.
WORDINGS: dict[str, Wording] = {
    "completed": Wording(
        "{service} cancellation completed and verified{detail}.",
        "Keep the confirmation email if one comes; this run's record: {show}.",
        "cancelled",
    ),
    "completed_generic": Wording(
        "{service} cancellation completed and verified by generic rules only{detail}.",
        "Generic rules are weaker evidence: look at the account page yourself; the record: {show}.",
        "cancelled (generic rules)",
    ),
    "dry_run": Wording(
        "Dry run: the first step would be {detail_bare}. Nothing was done.",
        "Run the same command without --dry-run to do it.",
        "dry run",
    ),
    "task_failed": Wording(
        "The pilot could not cancel {service}{detail}.",
        "See every turn with {show}, then try again or cancel on the site yourself.",
        "not cancelled",
    ),
    "human_rejected": Wording(
        "Nothing was cancelled: {detail_bare}.",
        "When you want to go on, run {again} again.",
        "not cancelled",
    ),
    "no_answer": Wording(
        "Nothing was cancelled: the input ended before an answer came{detail}.",
        "Run {again} in a terminal (or pipe y or n to its prompt) to answer.",
        "not cancelled",
    ),
    "max_turns_exceeded": Wording(
        "The run stopped after {turns} without finishing.",
        "See where it got stuck with {show}; try again with a higher --max-turns.",
        "not cancelled",
    ),
    "llm_no_action": Wording(
        "The model stopped proposing actions{detail}.",
        "Try again, or another model with --model.",
        "not cancelled",
    ),
    "llm_error": Wording(
        "The model's service could not be reached{detail}.",
        "Check your network and API key with subterminator doctor, then run {again} again.",
        "not cancelled",
    ),
    "mcp_error": Wording(
        "The browser stopped working{detail}.",
        "Check Node and the browser with subterminator doctor, then run {again} again.",
        "not cancelled",
    ),
    "configuration_error": Wording(
        "The run could not go on{detail}.",
        "Fix that, then run {again} again (subterminator doctor checks the set-up).",
        "not cancelled",
    ),
    "outcome_unknown": Wording(
        "The browser stopped answering right after a step you approved; whether it took "
        "effect is not known{detail}.",
        "Look at the account page (or your email) first; {resume} looks at the page and "
        "repeats nothing blindly.",
        "outcome unknown",
    ),
    "journal_error": Wording(
        "The journal could not be written, so nothing more was done{detail}.",
        "Free some disk space or fix the journal folder's permissions "
        "(subterminator doctor), then run {again} again.",
        "not cancelled",
    ),
    "verification_failed": Wording(
        "The pilot said it was done, but the page never showed a confirmation{detail}.",
        "Look at the account page yourself; every turn is in {show}.",
        "not verified",
    ),
    "playbook_diverged": Wording(
        "The recorded steps no longer match {service}'s pages{detail}.",
        "Set ANTHROPIC_API_KEY or OPENAI_API_KEY so a model can take over, then run {again} again.",
        "not cancelled",
    ),
    "sent_not_verified": Wording(
        "A step you approved was sent to {service}, but no rule verified the page after "
        "it{detail}.",
        "Check the account page yourself before running again; every turn is in {show}.",
        "sent, not verified",
    ),
    "cancelled_unasked": Wording(
        "{service} was cancelled, but the step that did it went out without a question: "
        "nothing asked you first{detail}.",
        "This is a guard miss, kept in the journal ({show}); keep the confirmation email, and "
        "please report the page so the rules learn it.",
        "cancelled (sent without asking)",
    ),
    "already_cancelled": Wording(
        "{service} was already cancelled before this run; nothing was sent{detail}.",
        "Nothing to do. To look again later (a charge that comes back): subterminator check.",
        "already cancelled",
    ),
    "billed_elsewhere": Wording(
        "{service} is billed by another company, so it cannot be cancelled here{detail}.",
        "Cancel it where it is billed: the biller and its place to cancel are listed below.",
        "billed elsewhere",
    ),
    "offline_only": Wording(
        "{service} can be cancelled only by phone, chat or letter{detail}.",
        "Use the contact details below, or send the letter below; nothing was sent.",
        "offline only",
    ),
    "interrupted": Wording(
        "You stopped the run; nothing more was clicked.",
        "To pick up where it stopped: {resume}.",
        "stopped",
    ),
}

#: Words for a reason this module has not heard of yet: still no code shown.
_UNKNOWN = Wording(
    "The run ended without a verified cancellation{detail}.",
    "See every turn with {show}.",
    "not cancelled",
)


@dataclass(frozen=True)
class EndingWords:
    """What happened and what next, each one sentence; ``status`` for a header."""

    happened: str
    next_step: str
    status: str
    success: bool

    @property
    def sentence(self) -> str:
        """Both, as one line."""
        return f"{self.happened} {self.next_step}"


def describe_ending(
    reason: str,
    *,
    service: str,
    success: bool = False,
    generic: bool = False,
    detail: str = "",
    run_id: int | None = None,
    turns: int = 0,
    command: str = "",
) -> EndingWords:
    """The words for a run of ``service`` that ended with ``reason``.

    ``detail`` is the run's own message (a rule's confirmation, what was rejected, an
    error); ``command`` is what to type to run it again (``subterminator cancel SERVICE``).
    """
    key = "completed_generic" if reason == "completed" and generic else reason
    wording = WORDINGS.get(key, _UNKNOWN)
    bare = _bare(detail)
    fields = {
        "service": service,
        "detail": f": {bare}" if bare else "",
        "detail_bare": bare or "the step was not run",
        "turns": plural(turns, "turn"),
        "show": f"subterminator show {run_id}" if run_id is not None else "subterminator runs",
        "resume": f"subterminator resume {run_id}" if run_id is not None else "subterminator runs",
        "again": command or "the same command",
    }
    return EndingWords(
        happened=wording.happened.format_map(fields),
        next_step=wording.next_step.format_map(fields),
        status=wording.status,
        success=success,
    )


def ending_of(result: TaskResult, service: str, command: str = "") -> EndingWords:
    """The words for ``result``, a run of ``service``."""
    return describe_ending(
        result.reason,
        service=service,
        success=result.success,
        generic=result.verified_by == "generic",
        detail=result.message or result.error or "",
        run_id=result.run_id,
        turns=result.turns,
        command=command,
    )


def _bare(detail: str) -> str:
    """The detail as a clause: no trailing full stop, no "Verified: " or "You rejected" echo."""
    text = detail.strip().rstrip(".")
    for prefix in ("Verified: ",):
        text = text.removeprefix(prefix)
    if text.startswith("You rejected: "):
        text = "you said no to " + text.removeprefix("You rejected: ")
    return text
