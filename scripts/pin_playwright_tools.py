"""Write the Playwright-compatible profile's tool table from the pinned Playwright MCP.

Lists the tools of ``node_modules/@playwright/mcp`` (the version package-lock.json pins)
with the MCP Python SDK and keeps, for the tools serve allows, exactly what that server
says: name, description, input schema and annotations. Rerun after changing the pin;
tests/integration/test_serve_playwright_profile.py fails while the table is stale.

    .venv/bin/python scripts/pin_playwright_tools.py
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from subterminator_tui.serve.tools.playwright_profile.catalog import (
    ALLOWED_TOOLS,
    PINNED_TOOLS_FILE,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "node_modules" / "@playwright" / "mcp"


async def pinned_tools() -> dict[str, object]:
    """The pinned server's version and its allowed tools, as it lists them."""
    version = json.loads((PACKAGE / "package.json").read_text())["version"]
    browser = shutil.which("chromium") or "chromium"
    params = StdioServerParameters(
        command="node",
        args=[str(PACKAGE / "cli.js"), "--headless", "--isolated", "--executable-path", browser],
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        listed = await client.list_tools()
    by_name = {
        tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        for tool in listed.tools
    }
    return {"version": version, "tools": [by_name[name] for name in ALLOWED_TOOLS]}


def main() -> None:
    """Write the table next to the profile's code."""
    table = asyncio.run(pinned_tools())
    PINNED_TOOLS_FILE.write_text(json.dumps(table, indent=2) + "\n")
    tools, version = table["tools"], table["version"]
    print(f"wrote {len(tools)} tools of @playwright/mcp {version} to {PINNED_TOOLS_FILE}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
