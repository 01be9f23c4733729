"""The person signs in to the practice site: before the run by a saved sign-in, and again
mid-run at the browser window, the two ways serve leaves a sign-in to a person.

On serve an agent never signs in, enters a code or solves a check (the person does, in
the browser or through a saved sign-in). The bench has no one at a browser window, so
it plays the person:

- before the run, the way ``subterminator auth save`` would leave things: it signs in
  to the practice site over HTTP (the password, then the code and the check the site
  asks for) and writes the session's cookie as a saved sign-in, which ``serve
  --sign-in`` loads;
- when the site signs the person out mid-flow and serve hands the sign-in back, the
  person types it into the session's browser window: trusted keystrokes through the
  browser's own DevTools endpoint (its private socket, which only the person's account
  may open), the way a person at the window types, never through the agent's tools.

The agent is never given any of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import json
import os
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from cdp_use.client import CDPClient

from subterminator_tui.browser.devtools_session import connect, wait_for_devtools
from subterminator_tui.practice.demoflix.state import (
    CAPTCHA_TEXT,
    PASSWORD,
    TWO_FACTOR_CODE,
    USERNAME,
)

#: Each check the site may ask for, by its address, and the form the person fills in.
_CHECKS = {
    "/login": {"username": USERNAME, "password": PASSWORD, "next": "/account"},
    "/verify": {"code": TWO_FACTOR_CODE},
    "/captcha": {"characters": CAPTCHA_TEXT},
}
#: The same checks at the window: each field's id and what the person types into it
#: (the form's ``next`` is the page's own, so the flow goes on where it was left).
_WINDOW_FIELDS = {
    "/login": (("username", USERNAME), ("password", PASSWORD)),
    "/verify": (("code", TWO_FACTOR_CODE),),
    "/captcha": (("characters", CAPTCHA_TEXT),),
}
#: More rounds than the site has checks: a site that keeps asking is not signed in to.
_MAX_ROUNDS = 5
#: How long the person waits for the page a submitted form loads.
PAGE_LOAD_SECONDS = 30.0
_ENTER = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}


def sign_in_file(site_url: str, path: Path) -> Path:
    """Sign in to the practice site at ``site_url``; its cookies as a saved sign-in in ``path``."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(urljoin(site_url, "/account"), timeout=10) as response:
        where = urlsplit(response.url).path
    for _ in range(_MAX_ROUNDS):
        form = _CHECKS.get(where)
        if form is None:
            break
        body = urllib.parse.urlencode(form).encode()
        with opener.open(urljoin(site_url, where), data=body, timeout=10) as response:
            where = urlsplit(response.url).path
    host = urlsplit(site_url).hostname or "127.0.0.1"
    cookies = [
        {
            "name": cookie.name,
            "value": cookie.value or "",
            "domain": host,
            "path": cookie.path or "/",
            "expires": -1,
            "httpOnly": True,
            "secure": False,
            "sameSite": "Lax",
        }
        for cookie in jar
    ]
    path.write_text(json.dumps({"cookies": cookies, "origins": []}), encoding="utf-8")
    os.chmod(path, 0o600)
    return path


class PersonAtTheWindow:
    """Signs in again in the browser running on a profile, as the person at its window.

    ``signed_in`` counts the check pages the person filled in (a sign-in, a code, a check).
    """

    def __init__(self, profile_dir: Path) -> None:
        self.profile_dir = profile_dir
        self.signed_in = 0

    async def sign_in(self) -> int:
        """Fill in every check the browser's tab shows, one page after another; how many.

        Nothing to fill in (the tab shows none of the site's checks) is not an error: the
        person looked and found nothing to do.
        """
        endpoint = await wait_for_devtools(self.profile_dir)
        if endpoint is None:
            return 0
        client = await connect(endpoint)
        filled = 0
        try:
            for _ in range(_MAX_ROUNDS):
                page = await _check_page(client)
                if page is None:
                    break
                target, path = page
                await _fill_in(client, target, _WINDOW_FIELDS[path])
                filled += 1
        finally:
            await client.stop()  # type: ignore[no-untyped-call]
        self.signed_in += filled
        return filled


async def _check_page(client: CDPClient) -> tuple[str, str] | None:
    """The tab showing one of the site's checks, and which: (target id, path), or None."""
    targets = (await client.send_raw("Target.getTargets"))["targetInfos"]
    for target in targets:
        path = urlsplit(str(target.get("url", ""))).path
        if target.get("type") == "page" and path in _WINDOW_FIELDS:
            return str(target["targetId"]), path
    return None


async def _fill_in(client: CDPClient, target: str, fields: tuple[tuple[str, str], ...]) -> None:
    """Type each field's value into the page of ``target``, Enter after the last; wait for
    the page the form loads, as a person waits to see it."""
    attached = await client.send_raw("Target.attachToTarget", {"targetId": target, "flatten": True})
    session = str(attached["sessionId"])
    loaded = asyncio.Event()

    def on_load(_event: Any, from_session: str | None) -> None:
        if from_session == session:
            loaded.set()

    client.register.Page.loadEventFired(on_load)

    async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await client.send_raw(method, params, session_id=session)

    try:
        await send("Page.enable", {})
        root = (await send("DOM.getDocument", {"depth": 0}))["root"]["nodeId"]
        for field_id, value in fields:
            found = await send("DOM.querySelector", {"nodeId": root, "selector": f"#{field_id}"})
            if not found["nodeId"]:
                return
            await send("DOM.focus", {"nodeId": found["nodeId"]})
            await send("Input.insertText", {"text": value})
        await send("Input.dispatchKeyEvent", {"type": "keyDown", "text": "\r", **_ENTER})
        await send("Input.dispatchKeyEvent", {"type": "keyUp", **_ENTER})
        await asyncio.wait_for(loaded.wait(), PAGE_LOAD_SECONDS)
    finally:
        with contextlib.suppress(Exception):
            await client.send_raw("Target.detachFromTarget", {"sessionId": session})
