"""A served session's request gate: requests its page sends on its own go to the operator.

The same gate as a run's (guarded/request_gate.py): a gated request no approved
call predicted is held in the browser and the operator console is asked, never the
agent, whose call may be the very one that sent it. What the operator refuses, and
what else the page did that could not be held, is added to the agent's answer.
"""

from __future__ import annotations

from subterminator_tui.browser.page_links import PageLink
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.guarded.outcome import OutcomeJudge
from subterminator_tui.guarded.request_gate import HeldRequest, RequestGate
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.names import SessionKey
from subterminator_tui.serve.oversight.approvals import ApprovalDesk, operator_releases
from subterminator_tui.serve.oversight.call_log import SessionCallLog
from subterminator_tui.serve.sessions.lazy_browser import LazyBrowser


def session_request_gate(
    key: SessionKey,
    guard: Guard,
    call_log: SessionCallLog,
    journal: Journal,
    desk: ApprovalDesk,
    lazy: LazyBrowser,
    judge: OutcomeJudge,
) -> RequestGate:
    """The gate of one session, installed on every browser the session starts."""
    scrub = call_log.typed.text

    async def ask(held: HeldRequest) -> bool:
        return await operator_releases(
            desk,
            key.principal,
            key.name,
            action=scrub(held.action),
            why=held.why,
            url=scrub(held.request.url.split("?", 1)[0]),
        )

    async def links() -> list[PageLink]:
        gateway = lazy.gateway
        return await gateway.requests.links() if gateway is not None else []

    gate = RequestGate(
        guard,
        call_log,
        ask,
        scrub=scrub,
        request_log=RequestLog(journal),
        run_id=call_log.run_id,
        links=links,
        # A request the operator releases is an approved step: evidence like a checkpoint's.
        on_release=judge.released,
        on_step_answer=judge.step_answered,
    )
    lazy.request_policy = gate
    return gate
