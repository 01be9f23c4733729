"""A person typing into the browser window: real, trusted input through a DevTools session.

The page cannot tell these keystrokes from a person's: ``Input.insertText`` and
``Input.dispatchKeyEvent`` go through the browser's input pipeline (``isTrusted`` is
true), not through a script and not through the model's tool calls. The test holds
its own DevTools connection to the browser, found in the profile's DevToolsActivePort
as our own session finds it, so it works for a served session's browser in another
process too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from cdp_use.client import CDPClient

from subterminator_tui.browser.devtools_session import connect, wait_for_devtools

_ENTER = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}


class PersonAtTheBrowser:
    """Types into the page of a tab, as a person at the window would."""

    def __init__(self, client: CDPClient) -> None:
        self.client = client
        #: Sessions waiting for their page's next load event.
        self._loads: dict[str, asyncio.Event] = {}
        client.register.Page.loadEventFired(self._on_load)

    def _on_load(self, _event: Any, session: str | None) -> None:
        waiting = self._loads.get(session or "")
        if waiting is not None:
            waiting.set()

    async def _page_session(self, url_part: str) -> str:
        targets = (await self.client.send_raw("Target.getTargets"))["targetInfos"]
        pages = [t for t in targets if t["type"] == "page" and url_part in t["url"]]
        assert pages, f"no tab shows {url_part}: {[t['url'] for t in targets]}"
        attached = await self.client.send_raw(
            "Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True}
        )
        return str(attached["sessionId"])

    async def type_into(
        self, url_part: str, selector: str, text: str, *, enter: bool, loads: bool = False
    ) -> None:
        """Focus ``selector`` on the tab showing ``url_part``, type ``text``; Enter if asked
        (``loads``: then wait for the page it loads, as a person waits to see it)."""
        session = await self._page_session(url_part)
        send = self._sender(session)
        loaded = self._loads[session] = asyncio.Event()
        await send("Page.enable", {})
        root = (await send("DOM.getDocument", {"depth": 0}))["root"]["nodeId"]
        node = (await send("DOM.querySelector", {"nodeId": root, "selector": selector}))["nodeId"]
        assert node, f"{selector} is not on the page"
        await send("DOM.focus", {"nodeId": node})
        await send("Input.insertText", {"text": text})
        if enter:
            await send("Input.dispatchKeyEvent", {"type": "keyDown", "text": "\r", **_ENTER})
            await send("Input.dispatchKeyEvent", {"type": "keyUp", **_ENTER})
            if loads:
                await asyncio.wait_for(loaded.wait(), 30)
        with contextlib.suppress(Exception):
            await self.client.send_raw("Target.detachFromTarget", {"sessionId": session})

    def _sender(self, session: str) -> Any:
        async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
            return await self.client.send_raw(method, params, session_id=session)

        return send


@contextlib.asynccontextmanager
async def person_at(profile_dir: Path) -> AsyncIterator[PersonAtTheBrowser]:
    """A person at the window of the browser running on ``profile_dir``."""
    # The browser's private socket where it has one (a run's browser), else its port.
    endpoint = await wait_for_devtools(profile_dir)
    assert endpoint is not None, f"no browser runs on {profile_dir}"
    client = await connect(endpoint)
    try:
        yield PersonAtTheBrowser(client)
    finally:
        await client.stop()  # type: ignore[no-untyped-call]
