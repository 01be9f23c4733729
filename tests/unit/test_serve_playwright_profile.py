"""``serve --tools playwright`` without a browser: the listed tools are the pinned Playwright
MCP's, and every refusal is a tool error in its words (in-process SDK client)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.serve.tools.mcp_server import build_server
from subterminator_tui.serve.tools.playwright_profile.catalog import (
    ALLOWED_TOOLS,
    REFUSED_TOOLS,
    pinned_table,
)
from subterminator_tui.serve.tools.playwright_profile.page_markdown import playwright_markdown
from subterminator_tui.serve.tools.playwright_profile.refs import serve_ref, shown_content
from subterminator_tui.settings import load_settings

ERAS = ("legacy", "2026-07-28")


@asynccontextmanager
async def connected(tmp_path: Path, era: str = "legacy") -> AsyncIterator[Client]:
    """The SDK client on a playwright-profile server (entered in the test's own task)."""
    settings = load_settings(journal=tmp_path / "journal.sqlite3")
    config = ServeConfig(settings=settings, profile_root=tmp_path / "p")
    with Journal(tmp_path / "journal.sqlite3") as journal:
        registry = SessionRegistry(config, journal, ApprovalDesk())
        server = build_server(registry, registry.desk, tools="playwright")
        async with Client(server, mode=era) as client:
            yield client


def text(result: types.CallToolResult) -> str:
    """The answer's first text block, as Playwright MCP's own parsers read it."""
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize("era", ERAS)
async def test_the_listed_tools_are_the_pinned_playwright_tools_and_approval_wait(
    tmp_path: Path, era: str
) -> None:
    """Names, input schemas and hints as the pinned table has them; nothing refused listed."""
    pinned = {tool["name"]: tool for tool in pinned_table()["tools"]}
    async with connected(tmp_path, era) as client:
        listed = (await client.list_tools()).tools
    names = [tool.name for tool in listed]
    assert names == [*ALLOWED_TOOLS, "approval_wait"]
    assert not set(names) & set(REFUSED_TOOLS)
    for tool in listed[:-1]:
        want = pinned[tool.name]
        assert tool.input_schema == want["inputSchema"], tool.name
        assert tool.description.startswith(want["description"].rstrip()), tool.name
        hints = tool.annotations
        assert hints is not None
        assert hints.title == want["annotations"]["title"]
        assert hints.read_only_hint == want["annotations"]["readOnlyHint"]
        assert hints.destructive_hint == want["annotations"]["destructiveHint"]
        assert hints.open_world_hint == want["annotations"]["openWorldHint"]


async def test_a_tool_refused_on_purpose_is_a_tool_error_that_says_why(tmp_path: Path) -> None:
    """browser_evaluate answers isError with '### Error' and the reason, not a protocol error."""
    async with connected(tmp_path) as client:
        result = await client.call_tool("browser_evaluate", {"function": "() => 1"})
    assert result.is_error
    assert text(result).startswith('### Error\nError: Tool "browser_evaluate" is not offered')
    assert "JavaScript" in text(result)


async def test_arguments_off_the_pinned_schema_are_refused_in_its_words(tmp_path: Path) -> None:
    """An unknown argument and a missing one: tool errors naming the field; nothing opened."""
    async with connected(tmp_path) as client:
        extra = await client.call_tool("browser_navigate", {"url": "x", "headers": {}})
        missing = await client.call_tool("browser_click", {})
        bad_wait = await client.call_tool(
            "approval_wait", {"approval_id": "a", "timeout_seconds": -1}
        )
    for result in (extra, missing, bad_wait):
        assert result.is_error
        assert text(result).startswith("### Error\nError: ")
    assert "headers" in text(extra)
    assert "target" in text(missing)


async def test_a_call_before_any_page_says_to_navigate_first(tmp_path: Path) -> None:
    """No session yet and no address: the error says which tool to call first."""
    async with connected(tmp_path) as client:
        result = await client.call_tool("browser_snapshot", {})
        elsewhere = await client.call_tool("browser_navigate", {"url": "https://example.org/"})
    assert result.is_error and "browser_navigate" in text(result)
    assert elsewhere.is_error
    assert re.search(r"belongs to no service this server offers", text(elsewhere))


async def test_a_file_argument_is_refused_before_any_browser(tmp_path: Path) -> None:
    """filename would write on the server: refused, nothing else happens."""
    async with connected(tmp_path) as client:
        result = await client.call_tool(
            "browser_take_screenshot", {"scale": "css", "filename": "/tmp/x.png"}
        )
    assert result.is_error and "writes no files" in text(result)


def _page() -> NormalizedSnapshot:
    content = '- button "Pay \x1b[31mnow" [ref=e2] [box=8,8,57,21]'
    return NormalizedSnapshot(
        "https://shop.example/pay",
        "Pay",
        content,
        notes={"Modal state": '- ["confirm" dialog]', "Result": "repeated"},
    )


def _split(text: str) -> dict[str, str]:
    parts = [part.removeprefix("### ") for part in text.split("\n### ")]
    return {name: body for name, _, body in (part.partition("\n") for part in parts)}


def test_a_held_answer_names_its_approval_and_the_tool_to_wait_with() -> None:
    """Result says held, the id and approval_wait; the page follows in Playwright's sections."""
    answer = Answer("approval_pending", "Held for the operator: Pay.", _page(), approval_id="A1")
    sections = _split(playwright_markdown(answer, "browser_click"))
    assert list(sections) == ["Result", "Page", "Modal state", "Snapshot"]
    assert "- approval_id: A1" in sections["Result"]
    assert 'approval_wait with {"approval_id": "A1"}' in sections["Result"]
    assert sections["Page"] == "- Page URL: https://shop.example/pay\n- Page Title: Pay"


def test_the_snapshot_is_inert_yaml_without_boxes() -> None:
    """Escape sequences from the page and serve's element boxes never reach the agent."""
    text = playwright_markdown(Answer("ok", "", _page()), "browser_snapshot")
    assert _split(text)["Snapshot"] == '```yaml\n- button "Pay now" [ref=e2]\n```'
    assert "\x1b" not in text


def test_a_refusal_is_an_error_section_and_typed_code_is_never_repeated() -> None:
    """Error: first; the code Playwright ran for a typing tool is left out."""
    refused = playwright_markdown(
        Answer("refused", "Outside the domains.", _page()), "browser_navigate"
    )
    assert refused.startswith("### Error\nError: Outside the domains.\n### Page")
    sent = "### Ran Playwright code\n```js\nawait page.fill('secret');\n```"
    typed = Answer("ok", "", _page(), browser_text=sent)
    assert "secret" not in playwright_markdown(typed, "browser_type")
    assert "Ran Playwright code" in playwright_markdown(typed, "browser_click")


def test_main_frame_refs_are_shown_and_taken_as_playwright_mcp_writes_them() -> None:
    """serve's f1e2 is shown as e2 and e2 maps back to f1e2; an iframe's f2e3 stays itself."""
    content = '- generic [ref=f1e1]:\n  - button "Go" [ref=f1e2]\n  - iframe [ref=f1e3]:\n'
    content += '    - button "In" [ref=f2e1]'
    page = NormalizedSnapshot("https://shop.example/", "Shop", content)
    shown = shown_content(page)
    assert '- button "Go" [ref=e2]' in shown and '"In" [ref=f2e1]' in shown
    assert serve_ref("e2", page) == "f1e2"
    assert serve_ref("f2e1", page) == "f2e1"
    plain = NormalizedSnapshot("https://shop.example/", "Shop", '- button "Go" [ref=e2]')
    assert shown_content(plain) == plain.content and serve_ref("e2", plain) == "e2"
