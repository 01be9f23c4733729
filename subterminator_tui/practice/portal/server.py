"""Serve the practice portal on 127.0.0.1 and its identity provider on 127.0.0.2."""

from __future__ import annotations

from collections.abc import Iterable

from subterminator_tui.practice.portal.identity import PROVIDER_ADDRESS, ProviderRouter
from subterminator_tui.practice.portal.pages import SESSION_COOKIE
from subterminator_tui.practice.portal.router import PortalRouter
from subterminator_tui.practice.portal.state import PortalState, parse_portal_variants
from subterminator_tui.practice.server import PracticeServer


class PortalServer(PracticeServer[PortalState]):
    """The portal with its variants (an ending and a sign-in, see ``state.py``).

    Its identity provider starts and stops with it; ``provider_url`` is its address.
    """

    site_name = "portal"

    def __init__(
        self, variants: Iterable[str] = (), *, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        """Check the variants (ValueError names the valid ones); nothing listens yet."""
        ending, sign_in = parse_portal_variants(tuple(variants))
        state = PortalState(ending=ending, sign_in=sign_in)
        if ending == "already_cancelled":
            state.membership = "cancelled"
        self.provider = PracticeServer(
            state,
            ProviderRouter(state, lambda: self.base_url),
            session_cookie="practice_id",
            host=PROVIDER_ADDRESS,
        )
        router = PortalRouter(state, lambda: self.base_url, lambda: self.provider_url)
        super().__init__(state, router, session_cookie=SESSION_COOKIE, host=host, port=port)

    @property
    def provider_url(self) -> str:
        """The identity provider's ``http://127.0.0.2:PORT`` while running."""
        return self.provider.base_url

    def start(self) -> str:
        """Start the identity provider, then the portal."""
        self.provider.start()
        try:
            return super().start()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop both; safe to call repeatedly."""
        try:
            super().stop()
        finally:
            self.provider.stop()
