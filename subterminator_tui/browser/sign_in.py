"""Sign-ins that survive a crash: the browser's cookies kept beside its profile.

Chromium writes its cookie store lazily, so a run killed with SIGKILL right after a
sign-in (or after a site set its session cookie) would log the person out. The
gateway's :class:`SignInKeeper` saves the context's storage state at the moments that
matter and adds the saved cookies back when a browser starts on the profile. It runs
SubTerminator's own fixed code through ``browser_run_code_unsafe``, a tool no model is
ever offered, so no model can read or write a cookie.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from subterminator_tui.browser.answers import Dispatch, error_message, text_of
from subterminator_tui.browser.mcp_process import ServerStopped
from subterminator_tui.browser.snapshot import split_sections
from subterminator_tui.errors import MCPToolError
from subterminator_tui.reach.urls import domain_allowed

#: The copy of the browser's sign-ins kept beside the profile (see keep_sign_in).
SIGN_IN_FILE = "subterminator-sign-in.json"
# SubTerminator's own fixed code, run through a tool no model is ever offered.
SAVE_STATE_CODE = "async (page) => JSON.stringify(await page.context().storageState())"
# Local storage belongs to an origin: the page visits each one and writes its items.
_ADD_STATE_BODY = """
  await page.context().addCookies(cookies);
  for (const origin of origins) {
    await page.goto(origin.origin);
    await page.evaluate((items) => {
      for (const item of items) localStorage.setItem(item.name, item.value);
    }, origin.localStorage);
  }
  return 'ok';
}"""


def still_valid(cookie: dict[str, Any]) -> bool:
    """A session cookie, or one that has not expired yet."""
    expires = cookie.get("expires", -1)
    return not isinstance(expires, int | float) or expires < 0 or expires > time.time()


def write_private_json(path: Path, data: object) -> None:
    """Write ``data`` as JSON readable by its owner only, replacing the file atomically."""
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def add_cookies_code(path: Path) -> str | None:
    """The fixed code that adds the saved, unexpired cookies back; None when there are none."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    cookies = [cookie for cookie in state.get("cookies", []) if still_valid(cookie)]
    # The profile keeps its own local storage; only the lazily written cookies come back.
    return add_state_code({"cookies": cookies, "origins": []})


def state_for_domains(state: Any, allowed_domains: tuple[str, ...]) -> dict[str, Any]:
    """The cookies and origins of a storage state that belong to ``allowed_domains``.

    A saved sign-in carries one service's cookies, never the rest of the profile's,
    and a file loaded into a run can add nothing for another site. Expired cookies
    and malformed entries are dropped.
    """
    if not isinstance(state, dict):
        return {"cookies": [], "origins": []}
    cookies = [
        cookie
        for cookie in state.get("cookies", [])
        if isinstance(cookie, dict)
        and isinstance(cookie.get("domain"), str)
        and domain_allowed(f"https://{cookie['domain'].lstrip('.')}/", allowed_domains)
        and still_valid(cookie)
    ]
    origins = [
        {"origin": origin["origin"], "localStorage": _storage_items(origin.get("localStorage"))}
        for origin in state.get("origins", [])
        if isinstance(origin, dict)
        and isinstance(origin.get("origin"), str)
        and domain_allowed(origin["origin"], allowed_domains)
    ]
    return {"cookies": cookies, "origins": origins}


def _storage_items(items: object) -> list[dict[str, str]]:
    if not isinstance(items, list):
        return []
    return [
        {"name": item["name"], "value": item["value"]}
        for item in items
        if isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and isinstance(item.get("value"), str)
    ]


def add_state_code(state: dict[str, Any]) -> str | None:
    """The fixed code that adds a filtered state's cookies and local storage; None when empty."""
    if not state["cookies"] and not state["origins"]:
        return None
    # JSON is a JavaScript expression; each value is placed once, never searched again.
    return (
        f"async (page) => {{\n  const cookies = {json.dumps(state['cookies'])};"
        f"\n  const origins = {json.dumps(state['origins'])};{_ADD_STATE_BODY}"
    )


def parse_saved_state(answer_text: str) -> Any:
    """The storage state in the code's ``### Result`` (JSON in a JSON string), or None."""
    body = split_sections(answer_text).get("Result", "").strip()
    try:
        return json.loads(json.loads(body))
    except (json.JSONDecodeError, TypeError):
        return None


class SignInKeeper:
    """One profile's sign-ins, saved beside it and added back when its browser starts."""

    def __init__(self, dispatch: Dispatch, profile_dir: Path) -> None:
        self._dispatch = dispatch
        #: The copy kept beside the profile, readable by its owner only.
        self.path = profile_dir / SIGN_IN_FILE

    async def keep(self) -> None:
        """Save the browser's cookies and local storage beside the profile, now.

        Chromium writes its cookie store lazily; a run killed with SIGKILL (or a
        power cut) would lose a sign-in made moments before. The copy is restored
        when the next browser starts. It lives in the profile directory, which
        holds the same cookies already, and only the person can read it (0600).
        """
        state = await self.storage_state()
        if state is not None:
            await asyncio.to_thread(write_private_json, self.path, state)

    async def storage_state(self) -> Any:
        """The context's cookies and local storage (Playwright's storage state), or None."""
        try:
            result = await self._dispatch("browser_run_code_unsafe", {"code": SAVE_STATE_CODE})
        except (MCPToolError, ServerStopped):
            return None
        return parse_saved_state(text_of(result))

    async def add(self, state: dict[str, Any]) -> None:
        """Add a saved sign-in (already narrowed to one service's domains) to the browser.

        Raises MCPToolError when the browser refuses it.
        """
        code = add_state_code(state)
        if code is None:
            return
        result = await self._dispatch("browser_run_code_unsafe", {"code": code})
        if result.is_error:
            raise MCPToolError(error_message(text_of(result)))

    async def restore(self) -> None:
        """Add the saved, unexpired cookies back to a browser just started (best effort)."""
        code = add_cookies_code(self.path)
        if code is not None:
            with contextlib.suppress(MCPToolError, ServerStopped):
                await self._dispatch("browser_run_code_unsafe", {"code": code})
