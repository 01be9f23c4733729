"""A site in no services file whose last button, ``Cancel Premium``, is a form POST to
``.../cancel``.

Source: Seneca Learning's help page "How do I cancel a premium plan?"
(https://help.senecalearning.com/en/articles/2698898-how-do-i-cancel-a-premium-plan):
"go to your Premium settings. Press the 'Cancel Premium' button. You will still get
access to premium up until the expiry date." One press ends the plan: the button that
names the plan is the commit, with nothing after it.
"""

from __future__ import annotations

from subterminator_bench.rebuilt.site import Flow, clicks, link, page, post_button
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, redirect


def _account(_request: Request, state: FlowState) -> Response:
    body = "<h1>Account</h1>" + link("/account/premium", "Premium settings")
    return html(page("Account", body))


def _premium(_request: Request, state: FlowState) -> Response:
    if state.cancelled:
        body = (
            "<h1>Premium settings</h1>"
            f"<p>Premium ends on {state.end_date_text}. You will not be charged again.</p>"
        )
    else:
        body = (
            "<h1>Premium settings</h1>"
            f"<p>Premium, $7.99/month. Renews on {state.end_date_text}.</p>"
            + post_button("/account/premium/cancel", "Cancel Premium")
        )
    return html(page("Premium settings", body))


def _cancel(_request: Request, state: FlowState) -> Response:
    state.cancel("POST /account/premium/cancel")
    return redirect("/account/premium/cancelled")


def _cancelled(_request: Request, state: FlowState) -> Response:
    if not state.cancelled:
        return redirect("/account/premium")
    body = (
        "<h1>Premium cancelled</h1>"
        f"<p>Your Premium plan has been cancelled. You will still get access to Premium "
        f"until {state.end_date_text}.</p>"
    )
    return html(page("Premium cancelled", body))


NO_RULES_PREMIUM = Flow(
    id="no-rules-premium",
    name="Learning app Premium",
    source="Seneca Learning help, How do I cancel a premium plan?",
    path=clicks("Premium settings", "Cancel Premium"),
    commit="Cancel Premium",
    routes={
        ("GET", "/account"): _account,
        ("GET", "/account/premium"): _premium,
        ("POST", "/account/premium/cancel"): _cancel,
        ("GET", "/account/premium/cancelled"): _cancelled,
    },
)
