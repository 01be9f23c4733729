"""The practice identity provider: a second loopback address with its own sign-in page.

It plays Google or Microsoft for the portal: ``/authorize`` shows a sign-in form and,
once the person signs in, sends the browser back to the portal's ``redirect_uri`` with
a one-time code, in the same tab or in a pop-up. It only ever sends the browser back
to the portal it serves.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from urllib.parse import urlencode

from subterminator_tui.practice.http import Request, Response, html, redirect
from subterminator_tui.practice.portal.state import (
    PROVIDER_EMAIL,
    PROVIDER_PASSWORD,
    PortalState,
)

#: The address the practice identity provider binds: loopback, but not the portal's host.
PROVIDER_ADDRESS = "127.0.0.2"


class ProviderRouter:
    """``/authorize`` (GET: the form; POST: the sign-in) for the portal at ``portal_url()``."""

    def __init__(self, state: PortalState, portal_url: Callable[[], str]) -> None:
        self.state = state
        self.portal_url = portal_url

    def handle(self, request: Request) -> Response:
        """The provider's answer; every request is counted first."""
        self.state.count_provider_request(f"{request.method} {request.path}")
        if request.path != "/authorize":
            return html(_page("Not found", "<p>Nothing here.</p>"), status=404)
        back = request.param("redirect_uri") or ""
        if not back.startswith(self.portal_url() + "/"):
            return html(_page("Practice ID", "<p>Unknown application.</p>"), status=400)
        if request.method == "POST":
            email, password = request.param("email"), request.param("password")
            if (email, password) == (PROVIDER_EMAIL, PROVIDER_PASSWORD):
                query = urlencode(
                    {"code": self.state.issue_code(), "state": request.param("state") or ""}
                )
                return redirect(f"{back}?{query}")
            return html(_form(back, request.param("state") or "", "Wrong email or password."))
        return html(_form(back, request.param("state") or "", None))


def _form(back: str, state: str, error: str | None) -> str:
    alert = f'<p role="alert">{escape(error)}</p>' if error else ""
    return _page(
        "Sign in - Practice ID",
        f"<h1>Sign in with Practice ID</h1>{alert}"
        '<form method="post" action="/authorize">'
        f'<input type="hidden" name="redirect_uri" value="{escape(back)}">'
        f'<input type="hidden" name="state" value="{escape(state)}">'
        '<label for="email">Email</label><input id="email" name="email" type="text">'
        '<label for="password">Password</label>'
        '<input id="password" name="password" type="password">'
        '<button type="submit">Sign in</button></form>',
    )


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title></head><body><main>{body}</main></body></html>\n"
    )
