"""A session's browser, started on demand and closed when idle; its profile and last page kept.

The profile lives in the session's own folder (``<root>/<principal>/<name>/profile``),
so two principals' sessions of one name never share cookies; the last URL is kept
beside it and reopened when the browser starts again.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from subterminator_tui.browser.gateway import ActionResult, BrowserGateway
from subterminator_tui.browser.interception import RequestPolicy
from subterminator_tui.browser.restart_gate import RestartGate
from subterminator_tui.browser.typed_values import TypedValueListener
from subterminator_tui.rules import ServiceConfig, domain_allowed
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.session.browser import ServiceBrowser, open_service_browser

_STATE_FILE = "session.json"


class LazyBrowser:
    """The guarded browser of one session: none until needed, reopened where it was."""

    def __init__(self, service: ServiceConfig, config: ServeConfig, folder: Path) -> None:
        self.service = service
        self.config = config
        self.folder = folder
        # The session's profile, its last address and its browser's port file: the
        # operator's alone (the principal's folder above it too).
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        for private in (folder, folder.parent):
            with contextlib.suppress(OSError):
                private.chmod(0o700)
        self.running: ServiceBrowser | None = None
        self._stack: AsyncExitStack | None = None
        #: A saved sign-in the operator loaded while the browser was closed: added at its start.
        self.sign_in: dict[str, Any] | None = None
        #: The session's restart policy, given to every gateway it starts (health/restarts.py).
        self.restart_gate: RestartGate | None = None
        #: Judges every request of the session's browser (its request gate), from the first.
        self.request_policy: RequestPolicy | None = None
        #: Hears what is typed into the session's browser (the person's values are scrubbed).
        self.typed_values: TypedValueListener | None = None

    @property
    def profile_dir(self) -> Path:
        """The session's own browser profile (kept when the browser closes)."""
        return self.folder / "profile"

    @property
    def start_url(self) -> str:
        """Where the service starts (on this start's practice port, for a practice service)."""
        assert self.running is not None
        return self.running.start_url

    async def open(self) -> ActionResult:
        """Start the browser and open the last page (when still allowed), else the start page."""
        stack = AsyncExitStack()
        try:
            self.running = await stack.enter_async_context(
                open_service_browser(
                    self.service,
                    self.config.settings,
                    headless=self.config.headless,
                    profile_dir=self.profile_dir,
                    runs_root=self.config.runs_root,
                    practice_url=self.config.practice_url,
                    sign_in=self.sign_in,
                )
            )
            self._stack = stack
            # A crash a call finds restarts under the session's policy, as the watch's do.
            self.running.gateway.restart_gate = self.restart_gate
            if self.request_policy is not None:
                self.running.gateway.requests.judge_with(self.request_policy)
            if self.typed_values is not None:
                self.running.gateway.typing.report_to(self.typed_values)
            if self.sign_in is not None:
                # In the browser now; kept beside the profile for later starts.
                await self.running.gateway.keep_sign_in()
                self.sign_in = None
            # The running service: a practice site's address is pinned to today's port.
            pinned = self.running.service
            url = self._reopen_url(lambda url: domain_allowed(url, pinned.allowed_domains))
            return await self.running.gateway.call("browser_navigate", {"url": url})
        except BaseException:
            self.running = None
            self._stack = None
            await stack.aclose()
            raise

    @property
    def gateway(self) -> BrowserGateway | None:
        """The running gateway, or None while closed."""
        return self.running.gateway if self.running is not None else None

    def _reopen_url(self, allowed: Callable[[str], bool]) -> str:
        """The last URL when still allowed; on a practice site, its path on today's port."""
        start = self.start_url
        last = self.last_url()
        if not last or last == "about:blank":
            return start
        if self.service.practice:
            parts = urlsplit(last)
            last = urljoin(start, parts.path + (f"?{parts.query}" if parts.query else ""))
        return last if allowed(last) else start

    def last_url(self) -> str | None:
        """The last page the session showed, from an earlier browser too."""
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            data = json.loads((self.folder / _STATE_FILE).read_text(encoding="utf-8"))
            return str(data["last_url"])
        return None

    def remember(self, url: str) -> None:
        """Keep ``url`` as the page to reopen."""
        with contextlib.suppress(OSError):
            fd = os.open(self.folder / _STATE_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as state:
                json.dump({"last_url": url}, state)

    async def close(self) -> None:
        """Stop the browser (and its egress filter and practice site); the profile stays."""
        stack, self._stack = self._stack, None
        self.running = None
        if stack is not None:
            await stack.aclose()
