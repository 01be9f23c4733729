"""Demoflix's routing: a parsed request in, a response out, no sockets involved.

Every page that belongs to the account first asks the state which check (sign-in, two-step
verification, security check) the session still owes, and every flow page checks the
account's step, so no URL skips ahead: out-of-order requests land back on ``/account``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeGuard
from urllib.parse import quote

from subterminator_tui.practice.demoflix import pages
from subterminator_tui.practice.demoflix.state import CAPTCHA_TEXT, VARIANTS, DemoflixState

SESSION_COOKIE = "demoflix_session"
_COOKIE_MAX_AGE = 30 * 24 * 3600
HTML = "text/html; charset=utf-8"


@dataclass(frozen=True)
class Request:
    """What the routes need from an HTTP request."""

    method: str
    path: str
    query: Mapping[str, list[str]] = field(default_factory=dict)
    form: Mapping[str, list[str]] = field(default_factory=dict)
    session_token: str | None = None

    def param(self, name: str) -> str | None:
        """The first value of ``name`` from the form, else from the query string."""
        values = self.form.get(name) or self.query.get(name)
        return values[0] if values else None


@dataclass(frozen=True)
class Response:
    """What the HTTP layer writes back."""

    status: int
    body: bytes = b""
    content_type: str = HTML
    location: str | None = None
    set_cookie: str | None = None


def session_cookie(token: str) -> str:
    """The Set-Cookie value for a session.

    Persistent, as real services' "remember me" is: a person signs in once and
    the persistent browser profile stays signed in across runs.
    """
    return f"{SESSION_COOKIE}={token}; Path=/; Max-Age={_COOKIE_MAX_AGE}; HttpOnly; SameSite=Lax"


def _html(text: str, status: int = 200) -> Response:
    return Response(status=status, body=text.encode("utf-8"))


def _redirect(location: str, set_cookie: str | None = None) -> Response:
    # 303 turns a POST into a GET, so reloading the target never repeats an action.
    return Response(status=303, location=location, set_cookie=set_cookie)


def is_local_path(candidate: str | None) -> TypeGuard[str]:
    """True for a path on this site; rejects absolute and scheme-relative URLs."""
    if not candidate or not candidate.startswith("/"):
        return False
    return not candidate.startswith(("//", "/\\")) and "\\" not in candidate


Handler = Callable[[Request], Response]


class DemoflixApp:
    """The practice service's behaviour over a shared :class:`DemoflixState`."""

    def __init__(self, state: DemoflixState) -> None:
        """Serve ``state``; the app itself keeps nothing between requests."""
        self.state = state
        self._routes: dict[tuple[str, str], Handler] = {
            ("GET", "/"): lambda _r: _redirect("/account"),
            ("GET", "/favicon.ico"): lambda _r: Response(status=204),
            ("GET", "/__state"): self._get_state,
            ("GET", "/help"): lambda _r: _html(pages.help_page()),
            ("GET", "/error"): lambda _r: _html(pages.error_page()),
            ("GET", "/login"): self._get_login,
            ("POST", "/login"): self._post_login,
            ("GET", "/verify"): self._get_verify,
            ("POST", "/verify"): self._post_verify,
            ("GET", "/captcha"): self._get_captcha,
            ("POST", "/captcha"): self._post_captcha,
            ("GET", "/account"): self._signed_in(self._get_account),
            ("POST", "/restart"): self._signed_in(self._post_restart),
            ("POST", "/cancel/start"): self._signed_in(self._post_cancel_start),
            ("GET", "/cancel/survey"): self._signed_in(self._get_survey),
            ("POST", "/cancel/survey"): self._signed_in(self._post_survey),
            ("GET", "/cancel/offer"): self._signed_in(self._get_offer),
            ("POST", "/cancel/offer/accept"): self._signed_in(self._post_accept),
            ("POST", "/cancel/offer/decline"): self._signed_in(self._post_decline),
            ("GET", "/offer/accepted"): self._signed_in(self._get_offer_accepted),
            ("GET", "/cancel/confirm"): self._signed_in(self._get_confirm),
            ("POST", "/cancel/keep"): self._signed_in(self._post_keep),
            ("POST", "/cancel/finish"): self._signed_in(self._post_finish),
            ("GET", "/cancel/done"): self._signed_in(self._get_done),
        }

    def handle(self, request: Request) -> Response:
        """Route ``request``; unknown method/path pairs get the 404 page."""
        route = self._routes.get((request.method, request.path))
        if route is None:
            return _html(pages.not_found_page(), status=404)
        return route(request)

    # Gates

    def _signed_in(self, handler: Handler) -> Handler:
        """Only let fully checked sessions through; others go to the check they still owe."""

        def gated(request: Request) -> Response:
            owed = self.state.pending_check(request.session_token)
            # Only a page is worth returning to; a replayed POST target is not.
            target = request.path if request.method == "GET" else "/account"
            remembered = self.state.remember_visitor(target) if owed == "/login" else None
            if remembered is not None:
                return self._onward(remembered, session_cookie(remembered))
            if owed == "/login":
                return _redirect(f"/login?next={quote(target, safe='/')}")
            if owed is not None:
                return _redirect(owed)
            return handler(request)

        return gated

    def _onward(self, token: str, set_cookie: str | None = None) -> Response:
        """Where a session goes after passing a check: the next check, or where it was heading."""
        owed = self.state.pending_check(token)
        if owed is not None:
            return _redirect(owed, set_cookie)
        session = self.state.session(token)
        return _redirect(session.next_path if session is not None else "/account", set_cookie)

    # Diagnostics

    def _get_state(self, _request: Request) -> Response:
        snapshot = self.state.to_dict()
        snapshot["variants"] = sorted(self.state.variants)
        body = json.dumps(snapshot, indent=2).encode("utf-8")
        return Response(status=200, body=body, content_type="application/json; charset=utf-8")

    # Sign-in and its checks

    def _get_login(self, request: Request) -> Response:
        chosen = request.query.get("variant")
        if chosen is not None:
            names = [name for value in chosen for name in value.split(",")]
            try:
                self.state.set_variants(names)
            except ValueError as error:
                return _html(pages.bad_variant_page(str(error), VARIANTS), status=400)
        wanted = request.param("next")
        next_path = wanted if is_local_path(wanted) else "/account"
        return _html(pages.login_page(next_path=next_path, expired=request.param("expired") == "1"))

    def _post_login(self, request: Request) -> Response:
        username = request.param("username") or ""
        wanted = request.param("next")
        next_path = wanted if is_local_path(wanted) else "/account"
        token = self.state.sign_in(username, request.param("password") or "", next_path)
        if token is None:
            page = pages.login_page(
                next_path=next_path, error="Incorrect username or password.", username=username
            )
            return _html(page)
        return self._onward(token, session_cookie(token))

    def _check_page(self, request: Request, check: str) -> Response | None:
        """Redirect away from a check page the session does not owe right now."""
        owed = self.state.pending_check(request.session_token)
        if owed == check:
            return None
        if owed == "/login":
            return _redirect("/login")
        if owed is not None:
            return _redirect(owed)
        return self._onward(request.session_token or "")

    def _get_verify(self, request: Request) -> Response:
        return self._check_page(request, "/verify") or _html(pages.verify_page())

    def _post_verify(self, request: Request) -> Response:
        away = self._check_page(request, "/verify")
        if away is not None:
            return away
        token = request.session_token or ""
        if self.state.verify_code(token, request.param("code") or ""):
            return self._onward(token)
        return _html(pages.verify_page(error="That code is not valid."))

    def _get_captcha(self, request: Request) -> Response:
        away = self._check_page(request, "/captcha")
        return away or _html(pages.captcha_page(characters=CAPTCHA_TEXT))

    def _post_captcha(self, request: Request) -> Response:
        away = self._check_page(request, "/captcha")
        if away is not None:
            return away
        token = request.session_token or ""
        if self.state.solve_captcha(token, request.param("characters") or ""):
            return self._onward(token)
        error = "Those characters do not match."
        return _html(pages.captcha_page(characters=CAPTCHA_TEXT, error=error))

    # Account

    def _get_account(self, _request: Request) -> Response:
        cancelled = self.state.membership == "cancelled"
        return _html(pages.account_page(cancelled=cancelled, end_date=self.state.end_date_text))

    def _post_restart(self, _request: Request) -> Response:
        self.state.restart()
        return _redirect("/account")

    # The cancellation flow: each action either advances the account's step or changes nothing.

    def _post_cancel_start(self, _request: Request) -> Response:
        if self.state.start_cancel():
            return _redirect("/cancel/survey")
        return _redirect("/account")

    def _get_survey(self, _request: Request) -> Response:
        if self.state.step != "survey":
            return _redirect("/account")
        return _html(pages.survey_page())

    def _post_survey(self, request: Request) -> Response:
        if self.state.submit_survey(request.param("reason")):
            return _redirect("/cancel/offer")
        return _redirect("/account")

    def _get_offer(self, request: Request) -> Response:
        if self.state.step != "offer":
            return _redirect("/account")
        if self.state.expire_session_if_due(request.session_token or ""):
            return _redirect("/login?expired=1&next=/cancel/offer")
        return _html(pages.offer_page())

    def _post_accept(self, _request: Request) -> Response:
        if self.state.accept_offer():
            return _redirect("/offer/accepted")
        return _redirect("/account")

    def _post_decline(self, _request: Request) -> Response:
        if self.state.decline_offer():
            return _redirect("/cancel/confirm")
        return _redirect("/account")

    def _get_offer_accepted(self, _request: Request) -> Response:
        if not self.state.offer_accepted:
            return _redirect("/account")
        return _html(pages.offer_accepted_page())

    def _get_confirm(self, _request: Request) -> Response:
        if self.state.step != "confirm":
            return _redirect("/account")
        return _html(pages.confirm_page(end_date=self.state.end_date_text))

    def _post_keep(self, _request: Request) -> Response:
        self.state.keep_membership()
        return _redirect("/account")

    def _post_finish(self, _request: Request) -> Response:
        outcome = self.state.finish_cancel()
        if outcome == "cancelled":
            return _redirect("/cancel/done")
        if outcome == "failed":
            return _redirect("/error?code=500")
        return _redirect("/account")

    def _get_done(self, _request: Request) -> Response:
        if self.state.membership != "cancelled":
            return _redirect("/account")
        return _html(pages.done_page(end_date=self.state.end_date_text))
