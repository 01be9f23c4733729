"""`subterminator serve --http`: tokens, Host/Origin, body limit, no CORS, principals isolated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client

from subterminator_tui.exit_codes import TERMINATED
from subterminator_tui.journal.store import Journal
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.serve.server.http_front import MAX_MCP_SESSIONS_PER_PRINCIPAL
from tests.conftest import browser_parts_missing
from tests.integration.serve_http_child import HttpServe, client_for, http_serve
from tests.integration.serve_parts import processes_under, wait_until_none_under
from tests.support.serve_clients import ServeChild, child_environment, inspector, text_of

pytestmark = pytest.mark.browser

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "status-table", "version": "1"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServe]:
    """One HTTP server for the module (tokens for alice and bob) on a practice site."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with http_serve(tmp_path_factory.mktemp("serve-http")) as running:
        yield running


async def post(
    server: HttpServe, headers: dict[str, str], body: bytes | None = None
) -> httpx2.Response:
    """One raw POST of ``initialize`` (or ``body``) to /mcp."""
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(
            server.url,
            content=body if body is not None else None,
            json=INITIALIZE if body is None else None,
            headers={**MCP_HEADERS, "content-type": "application/json", **headers},
        )


async def test_the_http_status_table(server: HttpServe) -> None:
    """401 without or with a bad token, 421 bad Host, 403 bad Origin, 413 oversized; 200 ok."""
    good = {"authorization": f"Bearer {server.tokens['alice']}"}
    assert (await post(server, {})).status_code == 401
    assert (await post(server, {"authorization": "Bearer not-a-token"})).status_code == 401
    assert (await post(server, {**good, "host": "evil.example:80"})).status_code == 421
    assert (await post(server, {**good, "origin": "http://evil.example"})).status_code == 403
    huge = b'{"jsonrpc": "2.0", "pad": "' + b"a" * (2 * 1024 * 1024) + b'"}'
    assert (await post(server, good, huge)).status_code == 413
    assert (await post(server, good)).status_code == 200


async def test_a_preflight_gets_no_cors_allowance(server: HttpServe) -> None:
    """A browser page elsewhere gets no Access-Control-Allow-* from the server."""
    async with httpx2.AsyncClient(timeout=30) as http:
        answer = await http.request(
            "OPTIONS",
            server.url,
            headers={"origin": "http://evil.example", "access-control-request-method": "POST"},
        )
    assert not [h for h in answer.headers if h.lower().startswith("access-control-allow")]


async def test_principals_never_see_each_others_sessions(server: HttpServe) -> None:
    """Alice and Bob both open 'shop': different pages; Bob cannot reach Alice's other session."""
    async with client_for(server, "alice") as alice, client_for(server, "bob") as bob:
        for client in (alice, bob):
            opened = await client.call_tool("session_open", {"name": "shop", "service": "demoflix"})
            assert not opened.is_error, text_of(opened)
        assert not (
            await alice.call_tool("session_open", {"name": "secret", "service": "demoflix"})
        ).is_error
        moved = await alice.call_tool("navigate", {"session": "shop", "url": "/cancel"})
        assert moved.structured_content is not None, text_of(moved)
        bobs = await bob.call_tool("snapshot", {"session": "shop"})
        assert bobs.structured_content is not None, text_of(bobs)
        assert bobs.structured_content["url"] != moved.structured_content["url"]

        listed = await bob.call_tool("session_list", {})
        assert listed.structured_content is not None
        assert [s["name"] for s in listed.structured_content["sessions"]] == ["shop"]
        for tool, arguments in (
            ("snapshot", {"session": "secret"}),
            ("session_close", {"name": "secret"}),
        ):
            refused = await bob.call_tool(tool, arguments)
            assert refused.is_error and "No session 'secret'" in text_of(refused)
        for client in (alice, bob):
            await client.call_tool("session_close", {"name": "shop"})
        await alice.call_tool("session_close", {"name": "secret"})
    assert (server.profiles / "alice" / "shop" / "profile").is_dir()
    assert (server.profiles / "bob" / "shop" / "profile").is_dir()


def test_the_inspector_navigates_over_http_with_the_token(
    server: HttpServe, tmp_path: Path
) -> None:
    """The Inspector CLI with the bearer header: tools listed, a session opened, a page read."""
    header = ["--header", f"Authorization: Bearer {server.tokens['alice']}"]
    listed = inspector([server.url, *header, "--method", "tools/list"], tmp_path)
    assert "navigate" in {tool["name"] for tool in listed["result"]["tools"]}

    def call(tool: str, arguments: str) -> dict[str, Any]:
        return inspector(
            [
                server.url,
                *header,
                "--method",
                "tools/call",
                "--tool-name",
                tool,
                "--tool-args-json",
                arguments,
            ],
            tmp_path,
        )

    assert (
        call("session_open", '{"name": "inspected", "service": "demoflix"}')["result"]["isError"]
        is False
    )
    went = call("navigate", '{"session": "inspected", "url": "/account"}')
    assert went["result"]["isError"] is False, went
    assert went["result"]["structuredContent"]["url"].endswith("/account")
    assert call("session_close", '{"name": "inspected"}')["result"]["isError"] is False

    refused = inspector(
        [server.url, "--header", "Authorization: Bearer wrong", "--method", "tools/list"], tmp_path
    )
    assert "result" not in refused


async def test_sigterm_stops_everything_within_ten_seconds(tmp_path: Path) -> None:
    """SIGTERM with a browser open: exit 143 within 10 s, no process left, the run ended."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    profiles = tmp_path / "profiles"
    with DemoflixServer(["remembered"]) as site:
        child = ServeChild(
            [
                "--http",
                "127.0.0.1:0",
                "--no-auth",
                "--operator-tty",
                "none",
                "--practice-url",
                site.base_url,
                "--profile-root",
                str(profiles),
            ],
            child_environment(tmp_path),
        )
        try:
            url = child.wait_listening()
            async with Client(url) as client:
                await client.call_tool("session_open", {"name": "busy", "service": "demoflix"})
                page = await client.call_tool("snapshot", {"session": "busy"})
                assert not page.is_error, text_of(page)
                assert processes_under(profiles) != []
                assert child.stop(within=10.0) == TERMINATED
        finally:
            child.stop()
    assert wait_until_none_under(profiles, timeout=2.0) == []
    with Journal(tmp_path / "journal.sqlite3") as journal:
        (run,) = journal.recent_runs()
    assert run.ended_at is not None and run.reason == "interrupted"


async def test_mcp_sessions_are_capped_per_principal_with_429(server: HttpServe) -> None:
    """One token cannot open MCP sessions without end: past the cap, 429 with Retry-After;
    another principal still gets in, and a closed session frees its place."""
    alice = server.auth("alice")
    opened: list[str] = []
    async with httpx2.AsyncClient(timeout=30) as http:
        try:
            for _ in range(MAX_MCP_SESSIONS_PER_PRINCIPAL + 1):
                answer = await post(server, alice)
                if answer.status_code != 200:
                    break
                opened.append(answer.headers["mcp-session-id"])
            assert answer.status_code == 429 and len(opened) <= MAX_MCP_SESSIONS_PER_PRINCIPAL
            assert int(answer.headers["retry-after"]) > 0
            assert answer.json()["error"] == "limit"
            assert (await post(server, server.auth("bob"))).status_code == 200
            await http.delete(server.url, headers={**alice, "mcp-session-id": opened.pop()})
            reopened = await post(server, alice)
            assert reopened.status_code == 200
            opened.append(reopened.headers["mcp-session-id"])
        finally:
            for session in opened:
                await http.delete(server.url, headers={**alice, "mcp-session-id": session})


async def test_a_401_says_a_static_bearer_token_is_expected(server: HttpServe) -> None:
    """The 401 names the scheme (a static token from --new-token) and that there is no OAuth."""
    answer = await post(server, {})
    challenge = answer.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and "--new-token" in challenge
    assert "no OAuth" in answer.json()["error_description"]


async def test_an_invalid_session_name_on_the_live_view_is_not_found(server: HttpServe) -> None:
    """A name no session could have (dots, upper case, 300 letters) is 404, never a 500."""
    async with httpx2.AsyncClient(timeout=30) as http:
        for name in ("BAD..NAME", "x" * 300, "%2e%2e"):
            answer = await http.get(
                f"{server.base}/sessions/{name}/screenshots", headers=server.auth("alice")
            )
            assert answer.status_code == 404, name
