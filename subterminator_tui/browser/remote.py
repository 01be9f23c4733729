"""A browser that runs elsewhere: a Chromium's DevTools endpoint or a Playwright browser server.

``browser_backend = "cdp"`` gives Playwright MCP ``--cdp-endpoint`` (browserless,
Selenium Grid, a Chromium started with ``--remote-debugging-port``);
``"endpoint"`` gives it ``--endpoint`` (a Playwright browser server). Either way
``--isolated``: Playwright MCP opens a fresh browser context for the session
instead of taking the remote browser's default one, and closes only that context
when it stops, never the remote browser.

No local profile, profile lock or browser process exists then: the watchdog
that stops an orphaned Chromium finds none, and sign-ins are kept by the
gateway's own copy beside the (local, otherwise empty) profile directory.
The egress filter cannot run here either: it must sit beside the remote browser
(docs/remote-browsers.md); ``remote_egress`` is its address as that browser
reaches it, given to Playwright MCP as the context's proxy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from subterminator_tui.settings import Settings


@dataclass(frozen=True)
class RemoteBrowser:
    """Where the remote browser is and how Playwright MCP reaches it."""

    backend: Literal["cdp", "endpoint"]
    endpoint: str
    #: The egress filter beside the remote browser (``http://HOST:PORT``).
    egress: str

    def arguments(self) -> list[str]:
        """Playwright MCP's options for this browser (its 0.0.83 command line)."""
        option = "--cdp-endpoint" if self.backend == "cdp" else "--endpoint"
        return [option, self.endpoint, "--isolated"]

    def describe(self) -> str:
        """For messages: which remote browser this is."""
        kind = "CDP endpoint" if self.backend == "cdp" else "Playwright browser server"
        return f"the remote browser ({kind} {self.endpoint})"


def remote_browser(settings: Settings) -> RemoteBrowser | None:
    """The remote browser the settings name; None for a local one.

    Settings validation already refused a remote backend without an endpoint or
    an egress filter, so both are present here.
    """
    backend = settings.browser_backend
    if backend == "local":
        return None
    assert settings.browser_endpoint is not None and settings.remote_egress is not None
    return RemoteBrowser(backend, settings.browser_endpoint, settings.remote_egress)
