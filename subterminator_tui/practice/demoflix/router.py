"""Demoflix's HTTP router: a parsed request in, a response out, no sockets involved.

Every page that belongs to the account first asks the state which check (sign-in, two-step
verification, security check) the session still owes, and every flow page checks the
account's step, so no URL skips ahead: out-of-order requests land back on ``/account``.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from subterminator_tui.practice.demoflix import pages
from subterminator_tui.practice.demoflix.state import CAPTCHA_TEXT, VARIANTS, DemoflixState
from subterminator_tui.practice.http import (
    Handler,
    Request,
    Response,
    html,
    is_local_path,
    json_response,
    redirect,
)

SESSION_COOKIE = "demoflix_session"
_COOKIE_MAX_AGE = 30 * 24 * 3600


def session_cookie(token: str) -> str:
    """The Set-Cookie value for a session.

    Persistent, as real services' "remember me" is: a person signs in once and
    the persistent browser profile stays signed in across runs.
    """
    return f"{SESSION_COOKIE}={token}; Path=/; Max-Age={_COOKIE_MAX_AGE}; HttpOnly; SameSite=Lax"


class DemoflixRouter:
    """The practice service's behaviour over a shared :class:`DemoflixState`."""

    def __init__(self, state: DemoflixState) -> None:
        """Serve ``state``; the router itself keeps nothing between requests."""
        self.state = state
        self._routes: dict[tuple[str, str], Handler] = {
            ("GET", "/"): lambda _r: redirect("/account"),
            ("GET", "/favicon.ico"): lambda _r: Response(status=204),
            ("GET", "/__state"): self._get_state,
            ("GET", "/help"): lambda _r: html(pages.help_page()),
            ("GET", "/error"): lambda _r: html(pages.error_page()),
            ("GET", "/login"): self._get_login,
            ("POST", "/login"): self._post_login,
            ("GET", "/verify"): self._get_verify,
            ("POST", "/verify"): self._post_verify,
            ("GET", "/captcha"): self._get_captcha,
            ("POST", "/captcha"): self._post_captcha,
            ("GET", "/account"): self.signed_in(self._get_account),
            ("POST", "/restart"): self.signed_in(self._post_restart),
            ("POST", "/cancel/start"): self.signed_in(self._post_cancel_start),
            ("GET", "/cancel/survey"): self.signed_in(self._get_survey),
            ("POST", "/cancel/survey"): self.signed_in(self._post_survey),
            ("GET", "/cancel/offer"): self.signed_in(self._get_offer),
            ("POST", "/cancel/offer/accept"): self.signed_in(self._post_accept),
            ("POST", "/cancel/offer/decline"): self.signed_in(self._post_decline),
            ("GET", "/offer/accepted"): self.signed_in(self._get_offer_accepted),
            ("GET", "/cancel/confirm"): self.signed_in(self._get_confirm),
            ("POST", "/cancel/keep"): self.signed_in(self._post_keep),
            ("POST", "/cancel/finish"): self.signed_in(self._post_finish),
            ("GET", "/cancel/done"): self.signed_in(self._get_done),
        }

    @property
    def routes(self) -> Mapping[tuple[str, str], Handler]:
        """Every route by ``(method, path)``: what a site built on this account may reuse."""
        return self._routes

    def handle(self, request: Request) -> Response:
        """Route ``request``; unknown method/path pairs get the 404 page."""
        route = self._routes.get((request.method, request.path))
        if route is None:
            return html(pages.not_found_page(), status=404)
        return route(request)

    # Gates

    def signed_in(self, handler: Handler) -> Handler:
        """Only let fully checked sessions through; others go to the check they still owe."""

        def gated(request: Request) -> Response:
            owed = self.state.pending_check(request.session_token)
            # Only a page is worth returning to; a replayed POST target is not.
            target = request.path if request.method == "GET" else "/account"
            remembered = self.state.remember_visitor(target) if owed == "/login" else None
            if remembered is not None:
                return self._onward(remembered, session_cookie(remembered))
            if owed == "/login":
                return redirect(f"/login?next={quote(target, safe='/')}")
            if owed is not None:
                return redirect(owed)
            return handler(request)

        return gated

    def _onward(self, token: str, set_cookie: str | None = None) -> Response:
        """Where a session goes after passing a check: the next check, or where it was heading."""
        owed = self.state.pending_check(token)
        if owed is not None:
            return redirect(owed, set_cookie)
        session = self.state.session(token)
        return redirect(session.next_path if session is not None else "/account", set_cookie)

    # Diagnostics

    def _get_state(self, _request: Request) -> Response:
        snapshot = self.state.to_dict()
        snapshot["variants"] = sorted(self.state.variants)
        return json_response(snapshot)

    # Sign-in and its checks

    def _get_login(self, request: Request) -> Response:
        chosen = request.query.get("variant")
        if chosen is not None:
            names = [name for value in chosen for name in value.split(",")]
            try:
                self.state.set_variants(names)
            except ValueError as error:
                return html(pages.bad_variant_page(str(error), VARIANTS), status=400)
        wanted = request.param("next")
        next_path = wanted if is_local_path(wanted) else "/account"
        return html(pages.login_page(next_path=next_path, expired=request.param("expired") == "1"))

    def _post_login(self, request: Request) -> Response:
        username = request.param("username") or ""
        wanted = request.param("next")
        next_path = wanted if is_local_path(wanted) else "/account"
        token = self.state.sign_in(username, request.param("password") or "", next_path)
        if token is None:
            page = pages.login_page(
                next_path=next_path, error="Incorrect username or password.", username=username
            )
            return html(page)
        return self._onward(token, session_cookie(token))

    def _check_page(self, request: Request, check: str) -> Response | None:
        """Redirect away from a check page the session does not owe right now."""
        owed = self.state.pending_check(request.session_token)
        if owed == check:
            return None
        if owed == "/login":
            return redirect("/login")
        if owed is not None:
            return redirect(owed)
        return self._onward(request.session_token or "")

    def _get_verify(self, request: Request) -> Response:
        return self._check_page(request, "/verify") or html(pages.verify_page())

    def _post_verify(self, request: Request) -> Response:
        away = self._check_page(request, "/verify")
        if away is not None:
            return away
        token = request.session_token or ""
        if self.state.verify_code(token, request.param("code") or ""):
            return self._onward(token)
        return html(pages.verify_page(error="That code is not valid."))

    def _get_captcha(self, request: Request) -> Response:
        away = self._check_page(request, "/captcha")
        return away or html(pages.captcha_page(characters=CAPTCHA_TEXT))

    def _post_captcha(self, request: Request) -> Response:
        away = self._check_page(request, "/captcha")
        if away is not None:
            return away
        token = request.session_token or ""
        if self.state.solve_captcha(token, request.param("characters") or ""):
            return self._onward(token)
        error = "Those characters do not match."
        return html(pages.captcha_page(characters=CAPTCHA_TEXT, error=error))

    # Account

    def _get_account(self, _request: Request) -> Response:
        cancelled = self.state.membership == "cancelled"
        return html(pages.account_page(cancelled=cancelled, end_date=self.state.end_date_text))

    def _post_restart(self, _request: Request) -> Response:
        self.state.restart()
        return redirect("/account")

    # The cancellation flow: each action either advances the account's step or changes nothing.

    def _post_cancel_start(self, _request: Request) -> Response:
        if self.state.start_cancel():
            return redirect("/cancel/survey")
        return redirect("/account")

    def _get_survey(self, _request: Request) -> Response:
        if self.state.step != "survey":
            return redirect("/account")
        return html(pages.survey_page())

    def _post_survey(self, request: Request) -> Response:
        if self.state.submit_survey(request.param("reason")):
            return redirect("/cancel/offer")
        return redirect("/account")

    def _get_offer(self, request: Request) -> Response:
        if self.state.step != "offer":
            return redirect("/account")
        if self.state.expire_session_if_due(request.session_token or ""):
            return redirect("/login?expired=1&next=/cancel/offer")
        return html(pages.offer_page())

    def _post_accept(self, _request: Request) -> Response:
        if self.state.accept_offer():
            return redirect("/offer/accepted")
        return redirect("/account")

    def _post_decline(self, _request: Request) -> Response:
        if self.state.decline_offer():
            return redirect("/cancel/confirm")
        return redirect("/account")

    def _get_offer_accepted(self, _request: Request) -> Response:
        if not self.state.offer_accepted:
            return redirect("/account")
        return html(pages.offer_accepted_page())

    def _get_confirm(self, _request: Request) -> Response:
        if self.state.step != "confirm":
            return redirect("/account")
        return html(pages.confirm_page(end_date=self.state.end_date_text))

    def _post_keep(self, _request: Request) -> Response:
        self.state.keep_membership()
        return redirect("/account")

    def _post_finish(self, _request: Request) -> Response:
        outcome = self.state.finish_cancel()
        if outcome == "cancelled":
            return redirect("/cancel/done")
        if outcome == "failed":
            return redirect("/error?code=500")
        return redirect("/account")

    def _get_done(self, _request: Request) -> Response:
        if self.state.membership != "cancelled":
            return redirect("/account")
        return html(pages.done_page(end_date=self.state.end_date_text))
