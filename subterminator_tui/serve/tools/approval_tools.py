"""The approval tool: approval_wait. Deciding is the operator's alone; no tool decides."""

from __future__ import annotations

from typing import Annotated, Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.tools.error_contract import failure_result
from subterminator_tui.serve.tools.tool_calls import Principal, as_result, with_progress

MAX_APPROVAL_WAIT_SECONDS = 300.0


def add_approval_tools(server: MCPServer[Any], desk: ApprovalDesk, principal: Principal) -> None:
    """Register approval_wait on ``server``: the agent's side of ``desk``, never the operator's."""

    @server.tool(
        description="Wait for the operator to decide a held call, up to `timeout_seconds` "
        "(default 60, at most 300; 0 reads its state now). WHEN TO USE: after "
        "approval_pending. WHAT HAPPENS: the call is sent only if approved; you get its fresh "
        "page, or the rejection, or still pending. You cannot approve it yourself. ERRORS: "
        "unknown id."
    )
    async def approval_wait(
        approval_id: Annotated[str, Field(description="The id from approval_pending.")],
        ctx: Context,
        timeout_seconds: Annotated[float, Field(ge=0, le=MAX_APPROVAL_WAIT_SECONDS)] = 60.0,
    ) -> types.CallToolResult:
        try:
            desk.get(principal(), approval_id)
        except SubTerminatorError as error:
            return failure_result(error)

        async def waited() -> Answer:
            approval = await desk.wait(principal(), approval_id, timeout_seconds)
            return approval.answer_for_agent()

        return as_result(await with_progress(ctx, "waiting for the operator", waited()))
