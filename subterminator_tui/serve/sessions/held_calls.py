"""A session's calls held for the operator: the agent is answered at once, the call waits.

A checkpoint rule holds a state-changing call before it reaches the browser. The
agent gets an approval id; a task waits for the operator's decision on the desk and
hands it to the session, which finishes the call through the guarded pipeline (sent
only when approved, and only if its target is still what was approved). A
rejection, or an approval withdrawn because the session closed, sends nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from subterminator_tui.guarded.pipeline import Held
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.names import SessionKey
from subterminator_tui.serve.oversight.approvals import Approval, ApprovalDesk

#: The session's side: finish the held call once ``approval`` is decided; its answer.
Decided = Callable[[Approval], Awaitable[Answer]]


class HeldCalls:
    """The one call of a session waiting for the operator, and the tasks that wait for them."""

    def __init__(self, desk: ApprovalDesk, key: SessionKey) -> None:
        self.desk = desk
        self.key = key
        #: The approval the session's one held call waits for (None: nothing held).
        self.pending: Approval | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def hold(
        self,
        held: Held,
        screenshot: str | None,
        decided: Decided,
        closed: Callable[[Answer], Awaitable[None]],
        page_now: Callable[[], Answer],
    ) -> Answer:
        """Put ``held`` on the operator's desk; ``decided`` finishes it once they answer.

        ``page_now`` is the answer when the session closes first; ``closed`` runs after
        the call is finished, whatever happened (the session frees its slot).
        """
        approval = self.desk.submit(
            self.key.principal,
            self.key.name,
            action=held.action,
            why=held.checkpoint.why,
            url=held.page.url,
            screenshot_path=screenshot,
        )
        self.pending = approval
        task = asyncio.create_task(
            self._wait(approval, decided, closed, page_now), name=f"approval-{approval.id}"
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return Answer(
            "approval_pending",
            f"Held for the operator: {held.action} ({held.checkpoint.why}). Nothing was sent "
            "to the browser. Call approval_wait with this approval_id; the call is sent only "
            "if the operator approves, and its answer comes back there.",
            approval_id=approval.id,
        )

    async def _wait(
        self,
        approval: Approval,
        decided: Decided,
        closed: Callable[[Answer], Awaitable[None]],
        page_now: Callable[[], Answer],
    ) -> None:
        answer = page_now()
        try:
            await approval.decided()
            answer = await decided(approval)
        finally:
            self.pending = None
            await closed(answer)
            self.desk.finish(approval, answer)

    def withdraw_all(self, why: str) -> None:
        """End unsent what waits for the operator (``why`` is what the agent hears)."""
        self.desk.reject_all((self.key.principal, self.key.name), why=why)

    async def drained(self) -> None:
        """Wait until every held call has its answer (after :meth:`withdraw_all`)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
