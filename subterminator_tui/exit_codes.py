"""The process exit codes, defined once: the README, ``--help`` and every front end use these."""

from __future__ import annotations

SUCCESS = 0
"""A cancellation completed and was verified; a command did what it said."""
FAILURE = 1
"""The task failed, was not verified, or you rejected it."""
CONFIGURATION = 2
"""Something to install, set or fix first: a key, Node, the browser, a file, an argument."""
CONNECTION = 3
"""Playwright MCP, the browser or the model's API could not be reached or kept alive."""
SENT_NOT_VERIFIED = 4
"""An approved irreversible step was sent, but no rule verified the end: check the account."""
BILLED_ELSEWHERE = 5
"""Another company bills the subscription (Apple, Google Play, Roku, Amazon, a carrier):
cancel it there; the result names the biller and its place to cancel."""
OFFLINE_ONLY = 6
"""The service cancels only by phone, chat or letter; the result has its contact details
and a letter ready to send."""
ALREADY_CANCELLED = 7
"""The service was already cancelled before the run: nothing was sent."""
CANCELLED_UNASKED = 8
"""Cancelled and confirmed by the service, but the step that did it went out without a
question: a guard miss, journaled as one (``subterminator show RUN``). Please report it."""
INTERRUPTED = 130
"""Stopped by the person: Ctrl+C, "Stop the run?" answered, or the terminal closed (SIGHUP)."""
TERMINATED = 143
"""Stopped with SIGTERM."""

EXIT_CODES: tuple[tuple[int, str], ...] = (
    (SUCCESS, "success (a cancellation completed and verified; a command did what it said)"),
    (FAILURE, "failure (task failed, not verified, or rejected by you)"),
    (
        CONFIGURATION,
        "configuration error (missing key, Node or browser; bad services.toml; unknown service)",
    ),
    (CONNECTION, "connection error (Playwright MCP, the browser or the model's API)"),
    (
        SENT_NOT_VERIFIED,
        "sent, not verified (an approved step went out; check the account page yourself)",
    ),
    (
        BILLED_ELSEWHERE,
        "billed elsewhere (cancel with Apple, Google Play, Roku, Amazon or a carrier)",
    ),
    (OFFLINE_ONLY, "offline only (cancel by phone, chat or letter; a letter is in the result)"),
    (ALREADY_CANCELLED, "already cancelled (before this run; nothing was sent)"),
    (
        CANCELLED_UNASKED,
        "cancelled without a question (the service confirmed a step sent unasked: a guard miss)",
    ),
    (INTERRUPTED, "interrupted: Ctrl+C, stopped in the app, or the terminal closed"),
    (TERMINATED, "terminated with SIGTERM"),
)


def describe_exit_codes() -> str:
    """The table ``--help`` prints."""
    return "exit codes:\n" + "\n".join(f"  {code:<4} {text}" for code, text in EXIT_CODES)
