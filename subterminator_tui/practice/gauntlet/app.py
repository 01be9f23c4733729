"""The gauntlet's routing: one scenario's pages over Demoflix's account, sign-in and checks.

:class:`GauntletApp` keeps Demoflix's sign-in, verification, security check, state, help,
error, restart and done routes, and replaces the membership flow with the scenario's.
Every flow page checks the account's stage first, so an early or replayed request lands
back on ``/account`` and changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import quote

from subterminator_tui.practice.demoflix import pages as demoflix_pages

# Demoflix's response helpers are the practice sites' shared plumbing; reused, not copied.
from subterminator_tui.practice.demoflix.app import (
    DemoflixApp,
    Handler,
    Request,
    Response,
    _html,
    _redirect,
    is_local_path,
)
from subterminator_tui.practice.gauntlet import pages
from subterminator_tui.practice.gauntlet.scenario import KEEP, Detour, Render, Scenario, Step, View
from subterminator_tui.practice.gauntlet.state import CONFIRM, GauntletState

# The Demoflix routes that mean the same on every gauntlet scenario.
_SHARED_ROUTES = frozenset(
    {
        ("GET", "/"),
        ("GET", "/favicon.ico"),
        ("GET", "/__state"),
        ("GET", "/help"),
        ("GET", "/error"),
        ("GET", "/login"),
        ("POST", "/login"),
        ("GET", "/verify"),
        ("POST", "/verify"),
        ("GET", "/captcha"),
        ("POST", "/captcha"),
        ("POST", "/restart"),
        ("GET", "/offer/accepted"),
    }
)


class GauntletApp(DemoflixApp):
    """Serves ``scenario`` over a shared :class:`GauntletState`."""

    state: GauntletState

    def __init__(self, state: GauntletState, scenario: Scenario) -> None:
        """Route the shared Demoflix pages plus the scenario's; nothing is kept per request."""
        super().__init__(state)
        self.scenario = scenario
        shared = {key: route for key, route in self._routes.items() if key in _SHARED_ROUTES}
        shared[("GET", "/login")] = self._without_variant_switch(shared[("GET", "/login")])
        self._routes = {**shared, **self._flow_routes(), **self._extra_routes()}

    @staticmethod
    def _without_variant_switch(login: Handler) -> Handler:
        """Demoflix's sign-in page minus its ``?variant=`` switch.

        The scenario is chosen when the server starts; switching to ``already_cancelled``
        by URL would end the membership without any cancel request in the ground truth.
        """

        def sign_in_page(request: Request) -> Response:
            query = {key: value for key, value in request.query.items() if key != "variant"}
            return login(replace(request, query=query))

        return sign_in_page

    # Route tables

    def _flow_routes(self) -> dict[tuple[str, str], Handler]:
        gate, slow = self._signed_in, self._slow
        routes: dict[tuple[str, str], Handler] = {
            ("GET", "/account"): gate(slow(self._account)),
            ("POST", "/cancel/start"): gate(self._enter(self.scenario.first_stage)),
            ("GET", CONFIRM): gate(self._staged(CONFIRM, self.scenario.confirm)),
            ("POST", "/cancel/finish"): gate(self._finish),
            ("POST", "/cancel/keep"): gate(self._detour(CONFIRM, KEEP)),
            ("GET", "/cancel/done"): gate(slow(self._get_done)),
            ("GET", "/loading"): self._loading,
        }
        for step in self.scenario.flow:
            routes.update(self._step_routes(step))
            if step.onward_action is not None:
                routes[("POST", step.onward_action)] = gate(self._move_on(step))
        for entry, step in self.scenario.side_entries.items():
            routes[("POST", entry)] = gate(self._enter(step.path))
            routes.update(self._step_routes(step))
        return routes

    def _step_routes(self, step: Step) -> dict[tuple[str, str], Handler]:
        gate = self._signed_in
        routes = {("GET", step.path): gate(self._staged(step.path, step.render))}
        for name, detour in step.detours.items():
            routes[("POST", f"{step.path}/{name}")] = gate(self._detour(step.path, detour))
        return routes

    def _extra_routes(self) -> dict[tuple[str, str], Handler]:
        state, gate = self.state, self._signed_in
        routes = {
            ("GET", path): gate(self._plain(render)) for path, render in self.scenario.pages.items()
        }
        routes[("GET", "/cancel/paused")] = gate(
            self._outcome(lambda: state.paused, pages.paused_page)
        )
        routes[("GET", "/cancel/kept")] = gate(
            self._outcome(lambda: state.kept_membership, pages.kept_page)
        )
        routes[("GET", "/plan/changed")] = gate(
            self._outcome(lambda: state.plan_changed, pages.plan_changed_page)
        )
        if self.scenario.cookie_banner:
            for choice in ("accept-all", "reject-all"):
                routes[("POST", f"/cookies/{choice}")] = gate(self._cookies(choice))
        if self.scenario.upsell:
            routes[("POST", "/upgrade")] = gate(self._upgrade)
            routes[("GET", "/upgraded")] = gate(
                self._outcome(lambda: state.purchases > 0, pages.upgraded_page)
            )
        return routes

    # Handler factories

    def _view(self, error: str | None = None) -> View:
        chosen = self.state.cookie_choice is not None
        return View(end_date=self.state.end_date_text, error=error, cookies_chosen=chosen)

    def _slow(self, handler: Handler) -> Handler:
        """Answer after the scenario's delay, as an overloaded site does (flow pages: _staged)."""
        delay = self.scenario.delay
        if not delay:
            return handler

        def slowed(request: Request) -> Response:
            time.sleep(delay)
            return handler(request)

        return slowed

    def _go(self, target: str) -> Response:
        """Redirect to a flow page; a slow site shows its loading page on the way."""
        if self.scenario.delay:
            return _redirect(f"/loading?to={quote(target, safe='/')}")
        return _redirect(target)

    def _plain(self, render: Render) -> Handler:
        return lambda _request: _html(render(self._view()))

    def _outcome(self, happened: Callable[[], bool], render: Callable[[], str]) -> Handler:
        return lambda _request: _html(render()) if happened() else _redirect("/account")

    def _staged(self, stage: str, render: Render) -> Handler:
        """A flow page: only served while the account is at ``stage``."""

        def show(request: Request) -> Response:
            if self.state.stage != stage:
                return _redirect("/account")
            token = request.session_token or ""
            if self.scenario.expire_on == stage and self.state.expire_session_if_due(token):
                return _redirect(f"/login?expired=1&next={quote(stage, safe='/')}")
            # Only the rendering is slow: an out-of-order request bounces at once.
            time.sleep(self.scenario.delay)
            return _html(render(self._view()))

        return show

    def _enter(self, stage: str) -> Handler:
        def enter(_request: Request) -> Response:
            return self._go(stage) if self.state.begin(stage) else _redirect("/account")

        return enter

    def _move_on(self, step: Step) -> Handler:
        following = self.scenario.following(step)

        def move_on(request: Request) -> Response:
            answers: dict[str, str] = {}
            for question in step.questions:
                answer, error = question.check(request.param(question.name))
                if error is not None:
                    if self.state.stage != step.path:
                        return _redirect("/account")
                    return _html(step.render(self._view(error)))
                if answer is not None:
                    answers[question.name] = answer
            if self.state.advance(step.path, following, answers):
                return self._go(following)
            return _redirect("/account")

        return move_on

    def _detour(self, stage: str, detour: Detour) -> Handler:
        def take(_request: Request) -> Response:
            if self.state.detour(stage, detour.effect):
                return _redirect(detour.landing)
            return _redirect("/account")

        return take

    def _cookies(self, choice: str) -> Handler:
        def choose(_request: Request) -> Response:
            self.state.choose_cookies(choice)
            return _redirect("/account")

        return choose

    # Handlers

    def _account(self, _request: Request) -> Response:
        if self.state.cancelled:
            end_date = self.state.end_date_text
            return _html(demoflix_pages.account_page(cancelled=True, end_date=end_date))
        return _html(self.scenario.account(self._view()))

    def _finish(self, _request: Request) -> Response:
        outcome = self.state.finish()
        if outcome == "cancelled":
            return self._go("/cancel/done")
        if outcome == "failed":
            return _redirect("/error?code=500")
        return _redirect("/account")

    def _upgrade(self, _request: Request) -> Response:
        self.state.purchase()
        return _redirect("/upgraded")

    def _loading(self, request: Request) -> Response:
        wanted = request.param("to")
        return _html(pages.loading_page(wanted if is_local_path(wanted) else "/account"))
