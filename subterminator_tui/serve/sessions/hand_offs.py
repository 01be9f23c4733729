"""Agents never sign in, enter codes or solve checks: on such a page they may only look.

The answers have always said so; this makes it a rule. When the service's rules
say the page is a sign-in, a verification code or a CAPTCHA, an agent's call that
could type, press, pick or click there (a saved password filled in by the browser
needs only a click) is refused before it reaches the browser. Looking, waiting,
going back and opening another of the service's pages stay allowed; the person
does the hand-off in the browser (or the operator loads a saved sign-in).
"""

from __future__ import annotations

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.rules import ServiceConfig, detect_handoff

#: What an agent may still do on a hand-off page.
LOOKING_TOOLS = frozenset(
    {
        "browser_snapshot",
        "browser_take_screenshot",
        "browser_wait_for",
        "browser_navigate",
        "browser_navigate_back",
    }
)
_NEEDS = {"login": "a sign-in", "two_factor": "a verification code", "captcha": "a CAPTCHA"}


def hand_off_refusal(service: ServiceConfig, tool: str, page: NormalizedSnapshot) -> str | None:
    """Why an agent may not send ``tool`` on ``page``, or None when it may."""
    if tool in LOOKING_TOOLS:
        return None
    handoff = detect_handoff(service, page)
    if handoff is None:
        return None
    need = _NEEDS.get(handoff.kind, "the person")
    return (
        f"Refused: this page needs {need} ({handoff.rule.why}), which only the person does; "
        "agents never sign in, enter codes or solve checks here. Nothing was sent. Ask the "
        "person to do it in the browser (or the operator to load a saved sign-in), then call "
        "snapshot."
    )
