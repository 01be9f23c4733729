"""What a tool call returns to the agent: a status, a message and the fresh page."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.inert_text import inert_text
from subterminator_tui.pilots.page_view import PageView, page_for_model
from subterminator_tui.rules import ServiceConfig, detect_handoff

#: ``ok``: done; ``approval_pending``: held for the operator; ``rejected``: the operator
#: said no; ``refused``: the guard stopped it; ``error``: the browser failed it.
Status = Literal["ok", "approval_pending", "rejected", "refused", "error"]

#: Agents read the page as text; a compact tree keeps their context small, and says
#: how to get what it left out.
COMPACT_PAGE = PageView(
    collapsed_hint="(Lines marked 'not shown' stand for parts left out: `snapshot` with "
    "full=true returns the whole tree.)"
)
FULL_PAGE = PageView(compact=False)


@dataclass(frozen=True)
class Answer:
    """One tool call's answer; ``page`` is the page as it is after the call."""

    status: Status
    message: str = ""
    page: NormalizedSnapshot | None = None
    approval_id: str | None = None
    #: The call's record in the journal: get_content / get_console_content read it.
    ref_id: str | None = None
    #: The full tree instead of the compact one (snapshot with ``full``).
    full: bool = False
    #: A cancellation is verified on evidence (sessions/verification.py; None: not judged).
    verified: bool | None = None
    #: The session cannot run calls now: ``error`` (degraded, restarting), ``retry_after``
    #: (whole seconds) and ``session``, for programs (BrowserUnavailableError.facts).
    unavailable: Mapping[str, str | int | None] | None = None
    #: Playwright MCP's own answer to the call that was sent, typed values scrubbed (None:
    #: nothing was sent). The Playwright-compatible tools pass parts of it on.
    browser_text: str | None = None

    @property
    def is_error(self) -> bool:
        """Whether the agent should read this as a failed call."""
        return self.status in ("refused", "error", "rejected")

    def text(self) -> str:
        """The answer as the agent reads it."""
        lines = [f"status: {self.status}"]
        if self.ref_id:
            lines.append(f"ref_id: {self.ref_id}")
        if self.approval_id:
            lines.append(f"approval_id: {self.approval_id}")
        if self.message:
            lines.append(self.message)
        if self.page is not None:
            page = page_for_model(self.page, FULL_PAGE if self.full else COMPACT_PAGE)
            # Playwright names its own tool for an open dialog; here it is `dialog`.
            lines.append(page.replace("browser_handle_dialog", "the dialog tool"))
        # Page text reaches the agent's client, which may well show it on a terminal.
        return inert_text("\n".join(lines))

    def structured(self) -> dict[str, Any]:
        """The same facts as a JSON object, for agents that parse."""
        data: dict[str, Any] = {"status": self.status, "message": inert_text(self.message)}
        if self.approval_id:
            data["approval_id"] = self.approval_id
        if self.ref_id:
            data["ref_id"] = self.ref_id
        if self.page is not None:
            data["url"] = self.page.url
            data["title"] = inert_text(self.page.title)
        if self.verified is not None:
            data["verified"] = self.verified
        if self.is_error:
            # The same stable codes as every other failure (tools/error_contract.py).
            data["error"] = {"refused": "refused", "rejected": "rejected"}.get(
                self.status, "browser_error"
            )
        if self.unavailable is not None:
            data.update(self.unavailable)
        return data


_NEEDS = {"login": "a sign-in", "two_factor": "a verification code", "captcha": "a CAPTCHA"}


def judged_by(service: ServiceConfig, answer: Answer, verified: bool | None = False) -> Answer:
    """``answer`` with what is known of its page: verified or not, or needs the person.

    ``verified`` is the session's judgement on evidence (sessions/verification.py), never
    the agent's word nor a sentence on the page alone; a page that needs a sign-in, a
    code or a CAPTCHA says so, since agents never do those here.
    """
    page = answer.page
    if page is None:
        return answer
    message = answer.message
    handoff = detect_handoff(service, page)
    if handoff is not None:
        need = _NEEDS.get(handoff.kind, "the person")
        message = (f"{message}\n" if message else "") + (
            f"This page needs {need} ({handoff.rule.why}). Agents never sign in or solve "
            "checks here: ask the person to do it in the browser, then call snapshot."
        )
    return dataclasses.replace(answer, message=message, verified=bool(verified))
