"""The naive configuration the bench compares against, built from the core's own parts.

What a plain browser agent would do: every tool the Playwright MCP server offers,
full snapshots and the full history in every request. The core knows nothing of it:
the bench hands a run this pilot and lets the guard pass every allowlisted tool.
"""

from __future__ import annotations

from subterminator_tui.browser.tools import ALLOWED_TOOLS
from subterminator_tui.pilots.ai import AIPilot
from subterminator_tui.pilots.page_view import NAIVE_VIEW
from subterminator_tui.pilots.virtual_tools import VIRTUAL_TOOL_SPECS
from subterminator_tui.providers.base import ToolSpec
from subterminator_tui.providers.resolution import create_model_client, resolve_model_name
from subterminator_tui.session import PreparedRun

#: The tools the guard lets the naive pilot call: the whole allowlist.
NAIVE_OFFERED_TOOLS = ALLOWED_TOOLS


def naive_pilot(prepared: PreparedRun) -> AIPilot:
    """An AI pilot offered every server tool, shown full snapshots and the full history."""
    checked = prepared.checked
    model = resolve_model_name(checked.request.model, checked.settings)
    server_tools = [
        ToolSpec(tool.name, tool.description or "", tool.input_schema)
        for tool in prepared.browser.gateway.server_tools.values()
    ]
    return AIPilot(
        create_model_client(model, checked.settings),
        checked.service,
        tools=[*server_tools, *VIRTUAL_TOOL_SPECS],
        view=NAIVE_VIEW,
    )
