"""A cancellation whose only answer is a redirect home, while the account page shows the end.

Source: apilayer's help page "Cancelling a subscription"
(https://apilayer.com/docs/article/cancelling-a-subscription): on a paid plan the
subscription stays usable until its "valid until" date, and "once the cancellation is
made, the valid until date will be shown in the list and the API detail page". The page
the cancel button leads to says nothing; only the account page shows that it worked.
"""

from __future__ import annotations

from subterminator_bench.rebuilt.site import Flow, clicks, link, page, post_button
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, redirect


def _home(_request: Request, state: FlowState) -> Response:
    body = "<h1>Welcome back</h1><p>Browse the API marketplace.</p>" + link(
        "/account", "Your subscriptions"
    )
    return html(page("API marketplace", body))


def _account(_request: Request, state: FlowState) -> Response:
    if state.cancelled:
        body = (
            "<h1>Your subscriptions</h1>"
            f"<p>Weather API, Pro plan. Valid until {state.end_date_text}.</p>"
            + post_button("/subscription/resume", "Resume subscription")
        )
    else:
        body = (
            "<h1>Your subscriptions</h1>"
            f"<p>Weather API, Pro plan, $49/month. Renews on {state.end_date_text}.</p>"
            + link("/subscription/manage", "Manage")
        )
    return html(page("Your subscriptions", body))


def _manage(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Pro plan</h1><p>Upgrade, downgrade or cancel your plan.</p>"
        + post_button("/subscription/cancel", "Yes, cancel my plan")
        + link("/account", "Back")
    )
    return html(page("Manage plan", body))


def _cancel(_request: Request, state: FlowState) -> Response:
    state.cancel("POST /subscription/cancel")
    return redirect("/")


def _resume(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.cancelled = False
        state.note("POST /subscription/resume")
    return redirect("/account")


REDIRECT_HOME = Flow(
    id="redirect-home",
    name="API marketplace subscription",
    source="apilayer help, Cancelling a subscription",
    path=clicks("Manage", "Yes, cancel my plan"),
    commit="Yes, cancel my plan",
    routes={
        ("GET", "/"): _home,
        ("GET", "/account"): _account,
        ("GET", "/subscription/manage"): _manage,
        ("POST", "/subscription/cancel"): _cancel,
        ("POST", "/subscription/resume"): _resume,
    },
)
