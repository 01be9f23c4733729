"""One `serve --http` child with tokens for alice and bob on a practice site, and its clients.

Shared by the HTTP and live-view tests, which each run one for their module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from subterminator_tui.exit_codes import TERMINATED
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.serve.server.tokens import new_token
from tests.integration.serve_parts import wait_until_none_under
from tests.support.serve_clients import ServeChild, child_environment


@dataclass
class HttpServe:
    """The child, its /mcp URL, one token per principal and the sessions' profiles."""

    child: ServeChild
    url: str
    tokens: dict[str, str]
    profiles: Path

    @property
    def base(self) -> str:
        """The server's root URL (the live view's routes hang off it)."""
        return self.url.removesuffix("/mcp")

    def auth(self, principal: str) -> dict[str, str]:
        """``principal``'s bearer header."""
        return {"authorization": f"Bearer {self.tokens[principal]}"}


def isolated_environment(home: Path) -> dict[str, str]:
    """A child's environment whose XDG dirs and (empty) config file are all under ``home``."""
    env = child_environment(home)
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[variable] = str(home / variable.lower())
    (home / "config.toml").write_text("", encoding="utf-8")
    env["SUBTERMINATOR_CONFIG"] = str(home / "config.toml")
    return env


@contextmanager
def http_serve(home: Path) -> Iterator[HttpServe]:
    """The server until the block ends; then it must exit on SIGTERM and leave nothing."""
    tokens_file = home / "tokens.json"
    tokens = {name: new_token(tokens_file, name) for name in ("alice", "bob")}
    profiles = home / "profiles"
    with DemoflixServer(["remembered"]) as site:
        args = ["--http", "127.0.0.1:0", "--tokens", str(tokens_file), "--operator-tty", "none"]
        args += ["--practice-url", site.base_url, "--profile-root", str(profiles)]
        child = ServeChild(args, isolated_environment(home))
        try:
            yield HttpServe(child, child.wait_listening(), tokens, profiles)
        finally:
            code = child.stop()
        assert code == TERMINATED, "".join(child.lines)
    assert wait_until_none_under(profiles) == []


@asynccontextmanager
async def client_for(server: HttpServe, principal: str) -> AsyncIterator[Client]:
    """An SDK client sending ``principal``'s bearer token."""
    async with (
        create_mcp_http_client(headers=server.auth(principal)) as http,
        Client(streamable_http_client(server.url, http_client=http)) as client,
    ):
        yield client
