"""The tool surface clients act on: titles, hints, output schemas, one error contract, a fixed
order; through the SDK's own client in both protocol eras (in-process, no browser needed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client

from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.serve.tools.mcp_server import build_server
from subterminator_tui.serve.tools.surface import TOOL_SURFACE
from subterminator_tui.settings import load_settings

#: The 2025 sessions (initialize handshake) and the 2026-07-28 stateless requests.
ERAS = ("legacy", "2026-07-28")


@asynccontextmanager
async def connected(tmp_path: Path, era: str) -> AsyncIterator[Client]:
    """The SDK client on the server, in one protocol era (entered in the test's own task)."""
    config = ServeConfig(settings=load_settings(), profile_root=tmp_path / "p")
    with Journal(tmp_path / "journal.sqlite3") as journal:
        registry = SessionRegistry(config, journal, ApprovalDesk())
        server = build_server(registry, registry.desk)
        async with Client(server, mode=era) as client:
            yield client


@pytest.mark.parametrize("era", ERAS)
async def test_every_tool_has_a_title_all_four_hints_and_a_fixed_place(
    tmp_path: Path, era: str
) -> None:
    """Clients gate and auto-cancel calls on the hints; every tool states all of them."""
    async with connected(tmp_path, era) as client:
        first = (await client.list_tools()).tools
        again = (await client.list_tools()).tools
        assert [t.name for t in first] == [t.name for t in again]
        assert {t.name for t in first} <= set(TOOL_SURFACE)
        for tool in first:
            assert tool.title and tool.title.startswith("SubTerminator: "), tool.name
            hints = tool.annotations
            assert hints is not None, tool.name
            assert None not in (
                hints.read_only_hint,
                hints.destructive_hint,
                hints.idempotent_hint,
                hints.open_world_hint,
            ), tool.name
        by_name = {t.name: t for t in first}
        assert by_name["snapshot"].annotations.read_only_hint  # type: ignore[union-attr]
        assert by_name["click"].annotations.destructive_hint  # type: ignore[union-attr]
        assert by_name["click"].annotations.open_world_hint  # type: ignore[union-attr]
        assert by_name["click"].output_schema is not None
        # Choosing an option can submit a form, so clients ask before it as before a click.
        assert by_name["select"].annotations.destructive_hint  # type: ignore[union-attr]
        assert not by_name["select"].annotations.idempotent_hint  # type: ignore[union-attr]


def _failure(result: Any, code: str) -> dict[str, Any]:
    assert result.is_error
    data: dict[str, Any] = result.structured_content
    assert data["error"] == code, data
    assert "validation error" not in data["message"].lower()
    assert "Error executing tool" not in data["message"]
    return data


@pytest.mark.parametrize("era", ERAS)
async def test_every_failure_is_structured_with_a_stable_code(tmp_path: Path, era: str) -> None:
    """Unknown tool, bad argument, unknown session, unknown service, unknown approval."""
    async with connected(tmp_path, era) as client:
        _failure(
            await client.call_tool("browser_evaluate", {"function": "() => 1"}), "unknown_tool"
        )
        bad = _failure(
            await client.call_tool("click", {"session": "x", "ref": "#id"}), "invalid_argument"
        )
        assert "ref" in bad["message"]
        _failure(await client.call_tool("snapshot", {"session": "nosuch"}), "not_found")
        _failure(
            await client.call_tool("session_open", {"name": "a", "service": "nosuch"}),
            "unknown_service",
        )
        _failure(
            await client.call_tool("session_open", {"name": "A B", "service": "netflix"}),
            "invalid_argument",
        )
        _failure(
            await client.call_tool("approval_wait", {"approval_id": "x" * 10_000}), "not_found"
        )


@pytest.mark.parametrize("era", ERAS)
async def test_structured_answers_match_their_output_schema(tmp_path: Path, era: str) -> None:
    """What session_open and session_list return fits the schema they advertise."""
    async with connected(tmp_path, era) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        opened = await client.call_tool("session_open", {"name": "main", "service": "netflix"})
        listed = await client.call_tool("session_list", {})
        for name, result in (("session_open", opened), ("session_list", listed)):
            assert not result.is_error
            jsonschema.validate(result.structured_content, tools[name].output_schema or {})
        closed = await client.call_tool("session_close", {"name": "main"})
        jsonschema.validate(closed.structured_content, tools["session_close"].output_schema or {})
