"""The practice portal's routes: sign-in through its identity provider, the account, cancel."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from subterminator_tui.practice.http import Request, Response, html, json_response, redirect
from subterminator_tui.practice.portal import pages
from subterminator_tui.practice.portal.state import PortalState

_STATE = "portal-practice"


class PortalRouter:
    """The portal at ``portal_url()``, signing in at the provider at ``provider_url()``."""

    def __init__(
        self, state: PortalState, portal_url: Callable[[], str], provider_url: Callable[[], str]
    ) -> None:
        self.state = state
        self.portal_url = portal_url
        self.provider_url = provider_url

    def handle(self, request: Request) -> Response:
        """The portal's answer to ``request``."""
        if request.path == "/callback":
            return self._signed_in(request, "/account")
        if request.path == "/popup-callback":
            return self._signed_in(request, None)
        if request.path == "/login":
            return html(
                pages.sign_in_page(self._authorize("/callback"), self._authorize("/popup-callback"))
            )
        if request.path == "/__state":
            return json_response(
                {"membership": self.state.membership, "renewed": self.state.renewed}
            )
        signed_in = self.state.signed_in(request.session_token)
        cookie = None
        if not signed_in:
            if self.state.sign_in == "sso":
                return redirect("/login")
            if self.state.sign_in == "sso_direct":
                return redirect(self._authorize("/callback"))
            if self.state.sign_in == "sso_popup":
                return html(pages.welcome_page(self._authorize("/popup-callback")))
            cookie = _cookie(self.state.open_session())
        if request.path == "/cancel" and request.method == "POST":
            if self.state.ending == "cancellable":
                self.state.cancel_requests += 1
                self.state.membership = "cancelled"
                self.state.renewed = False
            return redirect("/account", set_cookie=cookie)
        if request.path in ("/", "/account"):
            page = pages.account_page(self.state.ending, self.state.membership, self.state.renewed)
            return Response(status=200, body=page.encode("utf-8"), set_cookie=cookie)
        return html(pages.layout("Not found", "<h1>Not found</h1>"), status=404)

    def _authorize(self, back: str) -> str:
        query = urlencode({"redirect_uri": self.portal_url() + back, "state": _STATE})
        return f"{self.provider_url()}/authorize?{query}"

    def _signed_in(self, request: Request, then: str | None) -> Response:
        token = self.state.redeem(request.param("code"))
        if token is None:
            return html(pages.layout("Sign-in failed", "<h1>Sign-in failed</h1>"), status=400)
        if then is None:
            body = pages.popup_done_page().encode("utf-8")
            return Response(status=200, body=body, set_cookie=_cookie(token))
        return redirect(then, set_cookie=_cookie(token))


def _cookie(token: str) -> str:
    return f"{pages.SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax"
