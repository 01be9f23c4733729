"""``serve --tools playwright`` for real: a `subterminator serve` child with Playwright MCP's
tools, the SDK's client, the Demoflix practice site and the operator on a pseudo-terminal.

The tool list is compared with the real pinned Playwright MCP's own tools/list; the
commit click is held and decided by the operator exactly as with the native tools; a ref
not from the last page is refused; every answer parses the way Playwright MCP's test
fixtures parse its answers. The proof beside them: the same clicks through bare
Playwright MCP cancel the membership with nobody asked.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.serve.tools.playwright_profile.catalog import ALLOWED_TOOLS, REFUSED_TOOLS
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import WALK_TO_FINISH, wait_until_none_under
from tests.support.serve_clients import TerminalOperator, ref_in, serve_over_stdio

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PLAYWRIGHT_MCP = ROOT / "node_modules" / "@playwright" / "mcp" / "cli.js"
#: The sections Playwright MCP's fixtures read (tests/fixtures.ts, parseResponse).
PLAYWRIGHT_SECTIONS = {
    "Error",
    "Result",
    "Ran Playwright code",
    "Open tabs",
    "Page",
    "Snapshot",
    "New console messages",
    "Modal state",
    "Downloads",
}
REF = re.compile(r"\[ref=(\w+)\]")
#: Bounds a hang only; each call takes a few seconds at most.
WAIT = 120.0


def sections(result: types.CallToolResult) -> dict[str, str]:
    """An answer split as Playwright MCP's own test fixtures split it (``### `` headings)."""
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    found: dict[str, str] = {}
    for part in block.text.split("\n### ")[0:]:
        part = part.removeprefix("### ")
        name, _, body = part.partition("\n")
        found[name] = body.strip()
    return found


def snapshot_yaml(result: types.CallToolResult) -> str:
    """The ```yaml block of the Snapshot section, as those fixtures read it (bare Playwright
    MCP links a file instead after an action: read from its folder, as they do)."""
    body = sections(result)["Snapshot"]
    linked = re.fullmatch(r"- \[Snapshot\]\(([^)]+)\)", body)
    if linked is not None:
        return (Path.cwd() / linked.group(1)).read_text(encoding="utf-8")
    assert body.startswith("```yaml\n") and body.endswith("```"), body[:200]
    return body.removeprefix("```yaml\n").removesuffix("```")


@pytest.fixture
def site() -> Iterator[DemoflixServer]:
    """Demoflix with a remembered sign-in; skipped without the browser parts."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with DemoflixServer(["remembered"]) as running:
        yield running


def bare_playwright_mcp(tmp_path: Path) -> StdioServerParameters:
    """The pinned Playwright MCP as an agent builder runs it: headless, isolated, Chromium."""
    browser = shutil.which("chromium") or "chromium"
    return StdioServerParameters(
        command="node",
        args=[
            *(str(PLAYWRIGHT_MCP), "--headless", "--isolated", "--no-sandbox"),
            *("--executable-path", browser, "--output-dir", str(tmp_path / "bare")),
        ],
    )


@asynccontextmanager
async def profile_client(
    tmp_path: Path, operator: TerminalOperator, site: DemoflixServer
) -> AsyncIterator[Client]:
    """The SDK client on `serve --tools playwright` with a Demoflix session for the operator."""
    params = serve_over_stdio(
        tmp_path,
        operator.path,
        "--tools",
        "playwright",
        "--practice-url",
        site.base_url,
        "--session",
        "main=demoflix",
    )
    async with Client(params) as client:
        yield client
    assert wait_until_none_under(tmp_path / "profiles") == []


async def walk_to_finish(client: Client, first: str, arguments: dict[str, Any]) -> str:
    """Open the account page and click through to the last step; that page's yaml."""
    answer = await client.call_tool(first, arguments)
    assert not answer.is_error, sections(answer)
    page = snapshot_yaml(answer)
    for role, name in WALK_TO_FINISH:
        answer = await client.call_tool(
            "browser_click",
            {"element": f"{role} {name}", "target": ref_in(page, role, name)},
        )
        assert not answer.is_error, sections(answer)
        page = snapshot_yaml(answer)
    return page


async def test_the_tool_list_is_the_pinned_playwright_mcp_s_for_the_allowed_tools(
    tmp_path: Path, operator: TerminalOperator
) -> None:
    """Names, input schemas and hints equal the real pinned server's; refused ones absent."""
    if browser_parts_missing():
        pytest.skip(browser_parts_missing())
    async with Client(bare_playwright_mcp(tmp_path)) as bare:
        theirs = {tool.name: tool for tool in (await bare.list_tools()).tools}
    params = serve_over_stdio(tmp_path, operator.path, "--tools", "playwright")
    async with Client(params) as ours_client:
        ours = {tool.name: tool for tool in (await ours_client.list_tools()).tools}
    assert set(ours) == {*ALLOWED_TOOLS, "approval_wait"}
    for name in ALLOWED_TOOLS:
        assert ours[name].input_schema == theirs[name].input_schema, name
        assert ours[name].annotations == theirs[name].annotations, name
        assert ours[name].description.startswith(theirs[name].description), name
    # Every tool left out is one the pinned server has (the list is not a guess).
    assert set(theirs) - set(ALLOWED_TOOLS) <= set(REFUSED_TOOLS), set(theirs) - set(REFUSED_TOOLS)


@pytest.mark.parametrize("decision", ["approve", "reject"])
async def test_the_commit_click_is_held_and_the_operator_decides(
    tmp_path: Path, operator: TerminalOperator, site: DemoflixServer, decision: str
) -> None:
    """Finish is held (nothing reaches the site); approved it cancels, rejected it is an error."""
    async with asyncio.timeout(WAIT), profile_client(tmp_path, operator, site) as client:
        page = await walk_to_finish(client, "browser_snapshot", {})
        finish = ref_in(page, "button", "Finish cancellation")
        held = await client.call_tool("browser_click", {"target": finish})
        assert not held.is_error, sections(held)
        result = sections(held)["Result"]
        assert "Held for the operator" in result and "approval_wait" in result
        approval_id = json.loads(json.dumps(held.structured_content))["approval_id"]
        assert f"approval_id: {approval_id}" in result
        assert site.state.cancel_requests == 0
        waited, question = await asyncio.gather(
            client.call_tool("approval_wait", {"approval_id": approval_id}),
            operator.answer(decision),
        )
    assert "Finish cancellation" in question
    if decision == "approve":
        assert not waited.is_error, sections(waited)
        assert "Page URL" in sections(waited)["Page"]
        assert site.state.cancel_requests == 1
    else:
        assert waited.is_error
        assert sections(waited)["Error"].startswith("Error: The operator rejected")
        assert site.state.cancel_requests == 0


async def test_a_ref_not_from_the_last_snapshot_is_refused(
    tmp_path: Path, operator: TerminalOperator, site: DemoflixServer
) -> None:
    """A ref only an earlier page had, an unknown ref and a selector: tool errors, nothing sent."""
    async with asyncio.timeout(WAIT), profile_client(tmp_path, operator, site) as client:
        first = snapshot_yaml(await client.call_tool("browser_snapshot", {}))
        moved = await client.call_tool(
            "browser_click", {"target": ref_in(first, "button", "Cancel membership")}
        )
        assert not moved.is_error, sections(moved)
        gone = set(REF.findall(first)) - set(REF.findall(snapshot_yaml(moved)))
        assert gone, "the next page reused every ref of the first"
        answers = [
            await client.call_tool("browser_click", {"target": target})
            for target in (sorted(gone)[0], "e9999", "button >> text=Continue")
        ]
    for answer in answers:
        assert answer.is_error
        assert sections(answer)["Error"].startswith("Error: ")
    assert "not found in the current page snapshot" in sections(answers[0])["Error"]
    assert "never selectors" in sections(answers[2])["Error"]
    assert site.state.cancel_requests == 0


async def test_answers_parse_like_playwright_mcp_s(
    tmp_path: Path, operator: TerminalOperator, site: DemoflixServer
) -> None:
    """Navigate answers with Playwright MCP's sections: the page's URL and title, yaml with refs."""
    async with asyncio.timeout(WAIT), profile_client(tmp_path, operator, site) as client:
        url = f"{site.base_url}/account"
        answer = await client.call_tool("browser_navigate", {"url": url})
    parts = sections(answer)
    assert not answer.is_error, parts
    assert set(parts) <= PLAYWRIGHT_SECTIONS, set(parts)
    assert f"- Page URL: {url}" in parts["Page"]
    assert "- Page Title: " in parts["Page"]
    assert REF.search(snapshot_yaml(answer)), snapshot_yaml(answer)[:300]


async def test_bare_playwright_mcp_sends_the_same_commit_click(
    tmp_path: Path, site: DemoflixServer
) -> None:
    """The proof: the same agent's clicks through bare Playwright MCP cancel, nobody asked."""
    async with asyncio.timeout(WAIT), Client(bare_playwright_mcp(tmp_path)) as client:
        page = await walk_to_finish(client, "browser_navigate", {"url": f"{site.base_url}/account"})
        finish = ref_in(page, "button", "Finish cancellation")
        done = await client.call_tool("browser_click", {"target": finish})
    assert not done.is_error
    assert site.state.cancel_requests == 1
