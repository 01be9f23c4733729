"""serve: what the person types in a session's browser window never reaches the agent.

The agent opens a session on a hostile sign-in page (tests/integration/echoing_sign_in.py)
that the service's rules know as a sign-in, so the agent may only look. The person
signs in in the browser window (real, trusted keystrokes); the page after it echoes
the password and the PIN into its address, title, a later field and console. The
agent is a real MCP client (the SDK's ``Client``) on the server serve builds, in this
process, over real Playwright MCP and Chromium. No shape of either value may reach an
answer the agent reads (pages, the call log's records), the journal's bytes or any
file under the run folder; the picture the agent asks for is withheld, because the
page shows the password, and so are the live view's frames and the picture an
operator's question would show. The unprotected twin, with the window's values not fed to
the session, leaks them to the agent, picture included.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client

from subterminator_tui.guarded.secrets import REDACTED, kept_screenshot
from subterminator_tui.guarded.window_typing import WindowTyping
from subterminator_tui.journal.call_log import CallLogStore
from subterminator_tui.serve.names import LOCAL_PRINCIPAL
from subterminator_tui.serve.oversight.call_log_reader import CallLogReader
from subterminator_tui.serve.server.live_view import shows_what_the_person_typed
from subterminator_tui.serve.tools.mcp_server import build_server
from tests.conftest import browser_parts_missing
from tests.integration.echoing_sign_in import (
    PASSWORD,
    leaked,
    services_file,
    sign_in_at_the_window,
)
from tests.integration.serve_parts import serve_registry
from tests.support.serve_clients import text_of

pytestmark = pytest.mark.browser


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Path]:
    """The hostile site as service ``local``; skipped without a browser."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with services_file(tmp_path) as path:
        yield path


@dataclass
class AgentSaw:
    """What the agent read, and what serve left on disk."""

    answers: str
    pictures: int
    stored: dict[str, str]
    learned: int
    #: The live view leaves the page's frames out; the operator's question has no picture.
    live_view_withheld: bool
    question_picture: str | None


async def agent_waits_while_the_person_signs_in(services: Path, tmp_path: Path) -> AgentSaw:
    """Open the session, let the person sign in at the window, then read the page, its
    picture and the call log's records as the agent."""
    answers: list[types.CallToolResult] = []
    async with serve_registry(tmp_path, None, (services,)) as registry:
        reader = CallLogReader(CallLogStore(registry.journal))
        server = build_server(registry, registry.desk, reader=reader)
        async with Client(server) as agent:
            opened = await agent.call_tool("session_open", {"name": "main", "service": "local"})
            assert not opened.is_error, text_of(opened)
            first = await agent.call_tool("snapshot", {"session": "main"})
            assert "Sign in" in text_of(first), text_of(first)
            profile = tmp_path / "profiles" / LOCAL_PRINCIPAL / "main" / "profile"
            await sign_in_at_the_window(profile)
            for arguments in ({}, {"full": True}, {"image": True}):
                answers.append(await agent.call_tool("snapshot", {"session": "main", **arguments}))
            records = [
                await agent.call_tool(tool, {"ref_id": ref})
                for ref in _ref_ids(answers)
                for tool in ("get_content", "get_console_content")
            ]
            assert records and not any(record.is_error for record in records)
            session = registry.get(LOCAL_PRINCIPAL, "main")
            learned = session.window_typing.learned
            live_view_withheld = await shows_what_the_person_typed(session)
            question_picture = await kept_screenshot(session.running_gateway(), session.scrubber)
            await agent.call_tool("session_close", {"name": "main"})
    stored = _stored(tmp_path)
    results = [*answers, *records]
    pictures = sum(isinstance(b, types.ImageContent) for r in answers for b in r.content)
    return AgentSaw(
        "\n".join(map(_all_text, results)),
        pictures,
        stored,
        learned,
        live_view_withheld,
        question_picture,
    )


def _stored(tmp_path: Path) -> dict[str, str]:
    """Every file serve wrote: the run folders and the journal (its WAL too)."""
    return {
        str(path): path.read_bytes().decode("utf-8", "replace")
        for path in tmp_path.rglob("*")
        if path.is_file() and ("runs" in path.parts or path.name.startswith("journal"))
    }


def _ref_ids(results: list[types.CallToolResult]) -> list[str]:
    refs = []
    for result in results:
        structured = result.structured_content or {}
        if isinstance(structured.get("ref_id"), str):
            refs.append(structured["ref_id"])
    return refs


def _all_text(result: types.CallToolResult) -> str:
    return text_of(result) + repr(result.structured_content)


async def test_the_persons_values_reach_no_agent_answer_record_or_file(
    services: Path, tmp_path: Path
) -> None:
    """No shape of the password or the PIN in the agent's answers or records, the journal or
    the run folder; the echoes are there, scrubbed; no picture of the page."""
    saw = await agent_waits_while_the_person_signs_in(services, tmp_path)
    assert saw.learned >= 3, saw.learned
    assert REDACTED in saw.answers and "Reference" in saw.answers
    assert leaked(saw.answers) == []
    assert {name: leaked(text) for name, text in saw.stored.items() if leaked(text)} == {}
    assert saw.pictures == 0
    assert saw.live_view_withheld and saw.question_picture is None


async def test_unprotected_the_persons_values_reach_the_agent(
    services: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The twin: without the feed, the agent reads the password and the grouped PIN, gets a
    picture of the page, and the journal keeps them."""
    monkeypatch.setattr(WindowTyping, "typed", lambda self, value: None)
    saw = await agent_waits_while_the_person_signs_in(services, tmp_path)
    assert PASSWORD in saw.answers and "735 194" in saw.answers
    assert saw.pictures == 1
    assert not saw.live_view_withheld and saw.question_picture is not None
    assert any(leaked(text) for name, text in saw.stored.items() if "journal" in name)
