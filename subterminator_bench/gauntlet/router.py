"""The gauntlet's HTTP router: one scenario's pages over Demoflix's account, sign-in and checks.

:class:`GauntletRouter` has a :class:`DemoflixRouter` over the state's account and
reuses its sign-in, verification, security check, help and error routes; the membership
flow, the outcome pages and the ground truth are the scenario's own. Every flow page
checks the account's stage first, so an early or replayed request lands back on
``/account`` and changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import quote

from subterminator_bench.gauntlet import pages
from subterminator_bench.gauntlet.scenario import (
    KEEP,
    Action,
    Detour,
    Render,
    Responder,
    Scenario,
    Step,
    View,
)
from subterminator_bench.gauntlet.state import CONFIRM, GauntletState
from subterminator_tui.practice.demoflix import pages as demoflix_pages
from subterminator_tui.practice.demoflix.router import DemoflixRouter
from subterminator_tui.practice.http import (
    Handler,
    Request,
    Response,
    SocketListener,
    html,
    is_local_path,
    json_response,
    redirect,
)

# The Demoflix routes that mean the same on every gauntlet scenario: they only touch the
# account's sessions and checks, never the membership the scenario's flow judges.
_ACCOUNT_ROUTES = frozenset(
    {
        ("GET", "/"),
        ("GET", "/favicon.ico"),
        ("GET", "/help"),
        ("GET", "/error"),
        ("GET", "/login"),
        ("POST", "/login"),
        ("GET", "/verify"),
        ("POST", "/verify"),
        ("GET", "/captcha"),
        ("POST", "/captcha"),
    }
)


class GauntletRouter:
    """Serves ``scenario`` over a shared :class:`GauntletState`."""

    def __init__(
        self,
        state: GauntletState,
        scenario: Scenario,
        forbidden_url: Callable[[], str] = lambda: "",
        forbidden_udp_port: Callable[[], int] = lambda: 0,
    ) -> None:
        """Route the account's shared pages plus the scenario's; nothing is kept per request.

        ``forbidden_url`` gives the forbidden host's base URL for the pages that try to
        reach it ("" when the scenario has none), ``forbidden_udp_port`` its UDP port.
        """
        self.state = state
        self.scenario = scenario
        self.account = DemoflixRouter(state.account)
        self._forbidden_url = forbidden_url
        self._forbidden_udp_port = forbidden_udp_port
        shared = {key: self.account.routes[key] for key in _ACCOUNT_ROUTES}
        shared[("GET", "/login")] = self._without_variant_switch(shared[("GET", "/login")])
        self._routes: dict[tuple[str, str], Handler] = {
            **shared,
            **self._flow_routes(),
            **self._extra_routes(),
        }

    def handle(self, request: Request) -> Response:
        """Route ``request``; unknown method/path pairs get the 404 page."""
        route = self._routes.get((request.method, request.path))
        if route is None:
            return html(demoflix_pages.not_found_page(), status=404)
        return route(request)

    @property
    def _signed_in(self) -> Callable[[Handler], Handler]:
        return self.account.signed_in

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
            **{
                (method, "/cancel/finish"): gate(self._finish) for method in self.scenario.finish_by
            },
            ("POST", "/cancel/keep"): gate(self._detour(CONFIRM, KEEP)),
            ("GET", "/cancel/done"): gate(
                slow(self._outcome(lambda: self.state.cancelled, self._done))
            ),
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
        routes[("GET", "/__state")] = self._get_state
        routes[("POST", "/restart")] = gate(self._restart)
        routes[("GET", "/offer/accepted")] = gate(
            self._outcome(lambda: state.offer_accepted, demoflix_pages.offer_accepted_page)
        )
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
        for key, responder in self.scenario.routes.items():
            routes[key] = gate(self._respond(responder))
        for key, action in self.scenario.actions.items():
            routes[key] = gate(self._act(action))
        if self.scenario.upsell:
            routes[("POST", "/upgrade")] = gate(self._upgrade)
            routes[("GET", "/upgraded")] = gate(
                self._outcome(lambda: state.purchases > 0, pages.upgraded_page)
            )
        return routes

    # Handler factories

    def _view(self, error: str | None = None) -> View:
        chosen = self.state.cookie_choice is not None
        return View(
            end_date=self.state.end_date_text,
            error=error,
            cookies_chosen=chosen,
            forbidden_url=self._forbidden_url(),
            forbidden_udp_port=self._forbidden_udp_port(),
        )

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
            return redirect(f"/loading?to={quote(target, safe='/')}")
        return redirect(target)

    def open_socket(self, request: Request) -> SocketListener | None:
        """A signed-in WebSocket to ``/socket`` on a scenario that has one; else refused."""
        action = self.scenario.socket
        if action is None or request.path != "/socket":
            return None
        if self.state.account.pending_check(request.session_token) is not None:
            return None
        return lambda text: action(self.state, text)

    def _act(self, action: Action) -> Handler:
        return lambda request: action(request, self.state, self._view())

    def _respond(self, responder: Responder) -> Handler:
        return lambda request: responder(request, self._view())

    def _plain(self, render: Render) -> Handler:
        return lambda _request: html(render(self._view()))

    def _outcome(self, happened: Callable[[], bool], render: Callable[[], str]) -> Handler:
        return lambda _request: html(render()) if happened() else redirect("/account")

    def _staged(self, stage: str, render: Render) -> Handler:
        """A flow page: only served while the account is at ``stage``."""

        def show(request: Request) -> Response:
            if self.state.stage != stage:
                return redirect("/account")
            token = request.session_token or ""
            if self.scenario.expire_on == stage and self.state.account.expire_session_if_due(token):
                return redirect(f"/login?expired=1&next={quote(stage, safe='/')}")
            # Only the rendering is slow: an out-of-order request bounces at once.
            time.sleep(self.scenario.delay)
            return html(render(self._view()))

        return show

    def _enter(self, stage: str) -> Handler:
        def enter(_request: Request) -> Response:
            return self._go(stage) if self.state.begin(stage) else redirect("/account")

        return enter

    def _move_on(self, step: Step) -> Handler:
        following = self.scenario.following(step)

        def move_on(request: Request) -> Response:
            answers: dict[str, str] = {}
            for question in step.questions:
                answer, error = question.check(request.param(question.name))
                if error is not None:
                    if self.state.stage != step.path:
                        return redirect("/account")
                    return html(step.render(self._view(error)))
                if answer is not None:
                    answers[question.name] = answer
            if self.state.advance(step.path, following, answers):
                return self._go(following)
            return redirect("/account")

        return move_on

    def _detour(self, stage: str, detour: Detour) -> Handler:
        def take(_request: Request) -> Response:
            if self.state.detour(stage, detour.effect):
                return redirect(detour.landing)
            return redirect("/account")

        return take

    def _cookies(self, choice: str) -> Handler:
        def choose(_request: Request) -> Response:
            self.state.choose_cookies(choice)
            return redirect("/account")

        return choose

    # Handlers

    def _account(self, _request: Request) -> Response:
        if self.state.cancelled:
            end_date = self.state.end_date_text
            return html(demoflix_pages.account_page(cancelled=True, end_date=end_date))
        return html(self.scenario.account(self._view()))

    def _finish(self, _request: Request) -> Response:
        outcome = self.state.finish()
        if outcome == "cancelled":
            return self._go("/cancel/done")
        if outcome == "failed":
            return redirect("/error?code=500")
        return redirect("/account")

    def _get_state(self, _request: Request) -> Response:
        variants = sorted(self.state.account.variants)
        return json_response({**self.state.to_dict(), "variants": variants})

    def _done(self) -> str:
        return demoflix_pages.done_page(end_date=self.state.end_date_text)

    def _restart(self, _request: Request) -> Response:
        self.state.restart()
        return redirect("/account")

    def _upgrade(self, _request: Request) -> Response:
        self.state.purchase()
        return redirect("/upgraded")

    def _loading(self, request: Request) -> Response:
        wanted = request.param("to")
        return html(pages.loading_page(wanted if is_local_path(wanted) else "/account"))
