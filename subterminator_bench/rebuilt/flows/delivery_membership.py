"""A delivery membership with a 48-hour rule, rebuilt from Uber One's own terms.

Source: Uber's membership message, quoted at https://couponsanddiscouts.com (search
result "uber.com > public > messages"): "if you are more than 48 hours before your
billing day, cancel in the Uber One section of the app by selecting 'Manage Membership,'
selecting 'End membership,' and then confirming you wish to cancel your subscription;
or if you are within 48 hours of your billing day, contact support to cancel"; and
https://spaceyouth.ca/how-to-cancel-uber-one-membership ("Tap End Membership, and then
confirm by selecting End Membership again"). :data:`DELIVERY_WITHIN_48_HOURS` is the
same service a day before the billing day: the page sends the member to support.
"""

from __future__ import annotations

import datetime

from subterminator_bench.rebuilt.site import Flow, clicks, link, page, post_button
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, redirect

SUPPORT_PHONE = "+1 800 555 0123"


def _within_48_hours(state: FlowState) -> bool:
    return state.renews_on - state.today <= datetime.timedelta(hours=48)


def _account(_request: Request, state: FlowState) -> Response:
    if state.cancelled:
        body = f"<h1>Membership</h1><p>Your membership ends on {state.end_date_text}.</p>"
    else:
        body = (
            "<h1>Membership</h1>"
            f"<p>Delivery membership, $9.99/month. Billing day: {state.end_date_text}.</p>"
            + link("/membership/manage", "Manage Membership")
        )
    return html(page("Membership", body))


def _manage(_request: Request, state: FlowState) -> Response:
    body = "<h1>Manage membership</h1><p>$0 delivery fee and 5% off eligible orders.</p>" + link(
        "/membership/leave", "End membership"
    )
    return html(page("Manage membership", body))


def _leave(_request: Request, state: FlowState) -> Response:
    if _within_48_hours(state):
        body = (
            "<h1>End membership</h1>"
            "<p>You are within 48 hours of your billing day. To cancel now, call support "
            f"at {SUPPORT_PHONE}.</p>"
        )
    else:
        body = (
            "<h1>Are you sure?</h1>"
            f"<p>Your benefits stay until {state.end_date_text}.</p>"
            + post_button("/membership/leave", "End Membership")
            + link("/account", "Keep membership")
        )
    return html(page("End membership", body))


def _end(_request: Request, state: FlowState) -> Response:
    if _within_48_hours(state):
        return redirect("/membership/leave")
    state.cancel("POST /membership/leave")
    return redirect("/membership/ended")


def _ended(_request: Request, state: FlowState) -> Response:
    if not state.cancelled:
        return redirect("/account")
    body = (
        "<h1>Membership ended</h1>"
        f"<p>Your membership will not renew. Your benefits end on {state.end_date_text}.</p>"
    )
    return html(page("Membership ended", body))


ROUTES = {
    ("GET", "/account"): _account,
    ("GET", "/membership/manage"): _manage,
    ("GET", "/membership/leave"): _leave,
    ("POST", "/membership/leave"): _end,
    ("GET", "/membership/ended"): _ended,
}

DELIVERY_MEMBERSHIP = Flow(
    id="delivery-membership",
    name="Delivery membership",
    source="Uber One membership terms (the 48-hour rule)",
    routes=ROUTES,
    path=clicks("Manage Membership", ("link", "End membership"), ("button", "End Membership")),
    commit="End Membership",
)

DELIVERY_WITHIN_48_HOURS = Flow(
    id="delivery-membership-48h",
    name="Delivery membership (a day before the billing day)",
    source="Uber One membership terms (the 48-hour rule)",
    routes=ROUTES,
    initial=lambda: FlowState(renews_in_days=1),
    path=clicks("Manage Membership", ("link", "End membership")),
)
