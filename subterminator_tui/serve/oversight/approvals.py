"""Gated calls waiting for the operator: only the operator's side can decide them.

A call a checkpoint rule holds becomes an :class:`Approval`. The agent gets its id
and can read or wait on it; deciding is a method of the :class:`ApprovalDesk` that
only operator front ends (the terminal prompt, the console, a test's approver)
hold. No MCP tool reaches it, so an agent can never approve its own call.

The operator speaks the core's words: an approval is asked as the core's
:class:`~subterminator_tui.guarded.gates.CheckpointRequest` and answered with its
:class:`~subterminator_tui.guarded.gates.Decision`, as in a run. Guidance cannot
steer another agent's loop: it rejects, and the agent reads it as the operator's note.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from subterminator_tui.guarded.gates import CheckpointRequest, Decision
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.errors import ApprovalNotFoundError
from subterminator_tui.serve.names import echoed

#: Where an approval stands: waiting for the operator, or what they decided.
ApprovalState = Literal["pending", "approved", "rejected"]

#: Approving takes this many characters of the approval id: no stray key can approve.
APPROVAL_CODE_LENGTH = 4

#: The operator's answer for an approval nobody is left to decide.
_WITHDRAWN = Decision("reject", answered=False)


#: Known to this process alone: the approval code is derived from it and the id.
_CODE_KEY = secrets.token_bytes(32)


def approval_code(approval_id: str) -> str:
    """What the operator types to approve: four hex digits keyed by this process's secret.

    The agent holds the approval id; a code it could read off the id (its last four
    characters, say) is one it could put in a page or a note for the operator to type.
    """
    digest = hmac.new(_CODE_KEY, approval_id.encode("utf-8"), hashlib.sha256).hexdigest()
    return digest[:APPROVAL_CODE_LENGTH]


@dataclass(eq=False)
class Approval:
    """One held call: what it would do, why it is held, and (later) what became of it."""

    id: str
    principal: str
    session: str
    action: str
    why: str
    url: str
    screenshot_path: str | None = None
    created: float = field(default_factory=time.time)
    decision: ApprovalState = "pending"
    #: What the operator told the agent with a rejection (never journaled).
    note: str = ""
    #: Why it ended without the operator deciding (the session closed, the server
    #: stopped, the terminal closed); empty when the operator decided.
    withdrawn: str = ""
    #: The call's answer once decided: the fresh page after dispatch, or the rejection.
    answer: Answer | None = None
    _decided: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _finished: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def finished(self) -> bool:
        """Decided, and dispatched when approved: ``answer`` is final."""
        return self._finished.is_set()

    async def decided(self) -> ApprovalState:
        """Wait for the operator's decision."""
        await self._decided.wait()
        return self.decision

    @property
    def code(self) -> str:
        """What the operator types to approve it."""
        return approval_code(self.id)

    def checkpoint_request(self) -> CheckpointRequest:
        """The approval as the core's checkpoint question, naming the agent that asks."""
        return CheckpointRequest(
            kind="rule",
            why=f"{self.why} (asked by {self.principal}/{self.session})",
            action=self.action,
            url=self.url,
            screenshot_path=self.screenshot_path,
        )

    def answer_for_agent(self) -> Answer:
        """What approval_wait returns now (at once with timeout_seconds 0)."""
        if self.answer is not None and self.finished:
            return self.answer
        state = "approved; the call is being sent" if self.decision == "approved" else "pending"
        return Answer(
            "approval_pending",
            f"Waiting for the operator ({state}): {self.action}. Call approval_wait with "
            "this id to wait for the outcome.",
            approval_id=self.id,
        )


#: Called with every new approval, on the event loop; operator front ends subscribe.
ApprovalListener = Callable[[Approval], None]


class ApprovalDesk:
    """Every approval of the server, with the operator's side (decide) and the agent's (wait)."""

    def __init__(self) -> None:
        self._approvals: dict[str, Approval] = {}
        self._listeners: list[ApprovalListener] = []

    def subscribe(self, listener: ApprovalListener) -> None:
        """Hear of every new approval (operator front ends only)."""
        self._listeners.append(listener)

    def submit(
        self,
        principal: str,
        session: str,
        *,
        action: str,
        why: str,
        url: str,
        screenshot_path: str | None = None,
    ) -> Approval:
        """Hold a call for the operator; listeners hear of it at once."""
        approval = Approval(
            secrets.token_hex(8), principal, session, action, why, url, screenshot_path
        )
        self._approvals[approval.id] = approval
        for listener in list(self._listeners):
            listener(approval)
        return approval

    def pending(self) -> list[Approval]:
        """Approvals still waiting for the operator, oldest first."""
        return [a for a in self._approvals.values() if a.decision == "pending"]

    def decide(self, approval_id: str, decision: Decision | None) -> Approval:
        """The operator's ``decision`` (None: no answer came, which rejects).

        Anything but approve rejects; its guidance goes to the agent as the operator's
        note. Deciding twice changes nothing; KeyError for an unknown id.
        """
        approval = self._approvals[approval_id]
        if approval.decision == "pending":
            approve = decision is not None and decision.verdict == "approve"
            approval.decision = "approved" if approve else "rejected"
            note = decision.guidance if decision is not None and not approve else ""
            approval.note = note.strip()
            approval._decided.set()
        return approval

    def finish(self, approval: Approval, answer: Answer) -> None:
        """The held call's final answer (after dispatch, or its rejection)."""
        approval.answer = answer
        approval._finished.set()

    def get(self, principal: str, approval_id: str) -> Approval:
        """``principal``'s approval ``approval_id``; another principal's is not found."""
        approval = self._approvals.get(approval_id)
        if approval is None or approval.principal != principal:
            raise ApprovalNotFoundError(
                f"No approval {echoed(approval_id)} for you. Ids come from a call that returned "
                "status approval_pending."
            )
        return approval

    async def wait(self, principal: str, approval_id: str, seconds: float) -> Approval:
        """Wait up to ``seconds`` for the approval to be decided and its call done."""
        approval = self.get(principal, approval_id)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(approval._finished.wait(), seconds)
        return approval

    def reject(self, approval: Approval) -> None:
        """Reject ``approval`` (a listener's signature: nobody is there to approve it)."""
        self.decide(approval.id, Decision("reject"))

    def reject_all(
        self,
        session: tuple[str, str] | None = None,
        *,
        why: str,
        principal: str | None = None,
    ) -> None:
        """End what is pending (for one (principal, name) session, one principal's, or all)
        unsent, ``why`` (``the session closed``): the operator never decided it."""
        for approval in self.pending():
            if session is not None and (approval.principal, approval.session) != session:
                continue
            if principal is not None and approval.principal != principal:
                continue
            approval.withdrawn = why
            self.decide(approval.id, _WITHDRAWN)


async def operator_releases(
    desk: ApprovalDesk, principal: str, session: str, *, action: str, why: str, url: str
) -> bool:
    """Ask the operator about a request the page sent on its own; True releases it.

    The agent never sees this approval's id: the request waits in the browser, not
    in a call of the agent's, and only the operator can release it.
    """
    approval = desk.submit(principal, session, action=action, why=why, url=url)
    approved = await approval.decided() == "approved"
    outcome = "released" if approved else "refused; the page saw a network error"
    desk.finish(approval, Answer("ok" if approved else "rejected", f"The request was {outcome}."))
    return approved
