"""The operator's sign-in actions in ``serve --tui``: load a saved sign-in, save one (0600).

Real HTTP, browser and practice site (one that asks every new browser to sign in). The
agent never gets a tool for cookies; the operator loads a saved sign-in into the agent's
session with ``l`` and saves one with ``s``, typing the file's path.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from mcp import Client
from textual.widgets import Input

from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.practice.demoflix.router import SESSION_COOKIE
from subterminator_tui.rules import load_services
from subterminator_tui.session.saved_sign_in import BrowserPlace, save_sign_in
from subterminator_tui.settings import load_settings
from subterminator_tui.tui.screens.sign_in_path import SignInPathScreen
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import wait_until_none_under
from tests.support.serve_clients import text_of
from tests.support.sign_ins import SERVICES, sign_in_profile
from tests.tui.conftest import SIZE, console_over_http, stop_console, wait_until

pytestmark = pytest.mark.browser


async def url_of(client: Client, path: str) -> str:
    """Where the agent's navigate to ``path`` ended up."""
    went = await client.call_tool("navigate", {"session": "main", "url": path})
    assert went.structured_content is not None, text_of(went)
    return str(went.structured_content["url"])


async def test_the_operator_loads_and_saves_a_sessions_sign_in(tmp_path: Path) -> None:
    """Not signed in; `l` loads a saved sign-in, the account page opens; `s` saves it 0600."""
    if missing := browser_parts_missing():
        pytest.skip(missing)
    services_file = tmp_path / "services.toml"
    services_file.write_text(SERVICES, encoding="utf-8")
    service = load_services([services_file]).get("demoflix-signin")
    with DemoflixServer() as site:
        saved = tmp_path / "saved.json"
        await sign_in_profile(tmp_path / "a", site, tmp_path / "runs")
        place = BrowserPlace(headless=True, profile_dir=tmp_path / "a", practice_url=site.base_url)
        await save_sign_in(service, load_settings(), saved, place)

        app = console_over_http(
            tmp_path, site.base_url, image_previews=False, services=(services_file,)
        )
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: bool(app.listening), "the server to listen")
            async with Client(app.listening) as client:
                tools = {tool.name for tool in (await client.list_tools()).tools}
                assert not [t for t in tools if any(w in t for w in ("sign", "cookie", "storage"))]
                await client.call_tool(
                    "session_open", {"name": "main", "service": "demoflix-signin"}
                )
                assert "/login" in await url_of(client, "/account")
                await wait_until(pilot, lambda: bool(app._sessions()), "the session listed")

                async def operator(key: str, path: Path) -> None:
                    await pilot.press(key)
                    await wait_until(
                        pilot, lambda: isinstance(app.screen, SignInPathScreen), "the path box"
                    )
                    done = len(app.sign_in_outcomes)
                    app.screen.query_one(Input).value = str(path)
                    await pilot.press("enter")
                    await wait_until(
                        pilot, lambda: len(app.sign_in_outcomes) > done, "the sign-in action"
                    )
                    assert not app.sign_in_outcomes[-1].startswith("error"), app.sign_in_outcomes

                await operator("l", saved)
                assert (await url_of(client, "/account")).endswith("/account")

                resaved = tmp_path / "from-console.json"
                await operator("s", resaved)
                assert stat.S_IMODE(resaved.stat().st_mode) == 0o600
                state = json.loads(resaved.read_text(encoding="utf-8"))
                assert [cookie["name"] for cookie in state["cookies"]] == [SESSION_COOKIE]
            await stop_console(pilot, app)
    assert wait_until_none_under(tmp_path / "profiles") == []
