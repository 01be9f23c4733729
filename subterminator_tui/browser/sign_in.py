"""Sign-ins that survive a crash: the browser's cookies kept beside its profile.

Chromium writes its cookie store lazily, so a run killed with SIGKILL right after a
sign-in (or after a site set its session cookie) would log the person out. The
gateway saves the context's storage state at the moments that matter and adds the
saved cookies back when a browser starts on the profile.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from subterminator_tui.browser.snapshot import split_sections

#: The copy of the browser's sign-ins kept beside the profile (see keep_sign_in).
SIGN_IN_FILE = "subterminator-sign-in.json"
# SubTerminator's own fixed code, run through a tool no model is ever offered.
SAVE_STATE_CODE = "async (page) => JSON.stringify(await page.context().storageState())"
_ADD_COOKIES = "async (page) => { await page.context().addCookies(COOKIES); return 'ok'; }"


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
    return _ADD_COOKIES.replace("COOKIES", json.dumps(cookies)) if cookies else None


def parse_saved_state(answer_text: str) -> Any:
    """The storage state in the code's ``### Result`` (JSON in a JSON string), or None."""
    body = split_sections(answer_text).get("Result", "").strip()
    try:
        return json.loads(json.loads(body))
    except (json.JSONDecodeError, TypeError):
        return None
