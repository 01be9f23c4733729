"""A call held for the operator: the agent is answered at once, the call is sent once approved.

A checkpoint rule holds a state-changing call before it reaches the browser. The
agent gets an approval id; a task waits for the operator's decision and only then
sends the call, and only if its target is still the element that was approved. A
rejection, or an approval withdrawn because the session closed, sends nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.errors import (
    BrowserUnavailableError,
    JournalWriteError,
    MCPConnectionError,
    MCPToolError,
)
from subterminator_tui.orchestrator.pipeline import Held
from subterminator_tui.orchestrator.secrets import kept_screenshot
from subterminator_tui.serve.oversight.approvals import Approval
from subterminator_tui.serve.tools.agent_answer import Answer

if TYPE_CHECKING:
    from subterminator_tui.serve.sessions.browser_session import BrowserSession


async def hold_for_operator(
    session: BrowserSession, call: ToolCall, held: Held, row: int | None, started: float
) -> Answer:
    """Hold ``call`` for the operator; a task sends it once approved (and never before)."""
    screenshot: str | None = None
    with contextlib.suppress(MCPToolError):
        # None when the page shows something the person typed in the window.
        screenshot = await kept_screenshot(session.running_gateway(), session.scrubber)
    step = session.calls.ask(session.turns, held)
    # What the operator is shown now: a confirmation already there is no evidence later.
    seen = await session.evidence.seen()
    why = held.checkpoint.why
    approval = session.desk.submit(
        session.key.principal,
        session.key.name,
        action=held.action,
        why=why,
        url=held.page.url,
        screenshot_path=screenshot,
    )
    session.pending = approval
    task = asyncio.create_task(
        _send_when_decided(session, approval, call, held, (step, seen), row, started),
        name=f"approval-{approval.id}",
    )
    session.held_tasks.add(task)
    task.add_done_callback(session.held_tasks.discard)
    return Answer(
        "approval_pending",
        f"Held for the operator: {held.action} ({why}). Nothing was sent to the "
        "browser. Call approval_wait with this approval_id; the call is sent only if the "
        "operator approves, and its answer comes back there.",
        approval_id=approval.id,
    )


async def _send_when_decided(
    session: BrowserSession,
    approval: Approval,
    call: ToolCall,
    held: Held,
    asked: tuple[int | None, str | None],
    row: int | None,
    started: float,
) -> None:
    step = asked[0]
    answer = Answer("error", "The session closed before the call was sent.", held.page)
    try:
        verdict = await approval.decided()
        if approval.withdrawn:
            # Nobody decided: the journal and the agent hear why it was never sent.
            session.calls.decide(step, "withdrawn")
            withdrawn = (
                f"Not sent: {approval.withdrawn} before the operator decided "
                f"({approval.action}). Nothing was sent to the browser."
            )
            session.record_answer(row, started, Answer("error", withdrawn, session.page))
            answer = Answer("error", withdrawn, session.page)
            return
        session.calls.decide(step, "approve" if verdict == "approved" else "reject")
        if verdict != "approved":
            rejected = f"The operator rejected: {approval.action}. Nothing was sent to the browser."
            # The journal gets the decision only; the operator's note goes to the agent.
            session.record_answer(row, started, Answer("rejected", rejected, session.page))
            said = f" The operator says: {approval.note}" if approval.note else ""
            answer = Answer("rejected", rejected + said, session.page)
        else:
            sent = await _send_approved(session, call, held, asked)
            answer = await session.judged(session.record_answer(row, started, sent))
    except BrowserUnavailableError as down:
        answer = Answer("error", str(down), session.page, unavailable=down.facts())
    except (MCPToolError, MCPConnectionError, JournalWriteError) as error:
        answer = Answer("error", str(error), session.page)
    finally:
        if not session.browser_alive():
            await session.close_browser()
        session.pending = None
        session.release()
        session.desk.finish(approval, answer)


async def _send_approved(
    session: BrowserSession, call: ToolCall, held: Held, asked: tuple[int | None, str | None]
) -> Answer:
    step, seen = asked
    # The operator took time; the page may have moved. Only the approved element is clicked.
    changed = await session.calls.still_approved(call, held, session.running_gateway(), step)
    if changed is not None:
        session.page = changed.page
        return Answer("refused", changed.message, changed.page)
    approved = session.evidence.approved(step, held, seen)
    return await session.dispatch(call, held.page, step, approved)
