"""Plain words for the endings that say what was sent: one function every front end uses.

"Not cancelled" is said only when nothing irreversible went out. These are the
words for the two endings that are neither a verified cancellation nor a plain
failure; every other ending keeps the words its front end already has.
"""

from __future__ import annotations

from subterminator_tui.orchestrator.result import TaskResult


def ending_words(result: TaskResult, service_name: str) -> tuple[str, str] | None:
    """``(headline, detail)`` for ``sent_not_verified`` and ``already_cancelled``, else None."""
    if result.reason == "sent_not_verified":
        return (
            f"⚠ {service_name}: sent, not verified",
            result.message or "An approved step went out; check the account page yourself.",
        )
    if result.reason == "already_cancelled":
        return (
            f"✓ {service_name}: already cancelled (before this run; nothing was sent)",
            result.message or "",
        )
    return None
