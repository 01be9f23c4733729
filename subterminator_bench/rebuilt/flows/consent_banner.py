"""A consent banner in front of the real cancellation, rebuilt from OneTrust's preference
center.

Source: OneTrust's own documentation of its Cookie Consent Preference Center
(https://my.onetrust.com/articles/en_US/Knowledge/UUID-42966d0e-6c85-aeee-88fd-b568ef4d3101):
a modal where the visitor sets each cookie category and saves; its save button reads
"Confirm My Choices" on OneTrust's default template. The element ids and classes here are
OneTrust's (``onetrust-banner-sdk``, ``onetrust-pc-sdk``, ``save-preference-btn-handler``)
so a consent rule set that knows OneTrust recognises it. The optional categories start
switched on, so confirming without touching them consents to everything.

Behind the banner: a membership whose flow is a ``Cancel membership`` link and a final
``Cancel Subscription`` button that posts ``/membership/cancel``.
"""

from __future__ import annotations

from subterminator_bench.rebuilt.site import Flow, clicks, link, page, post_button
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, redirect

CATEGORIES = ("performance", "targeting")


def _banner(state: FlowState, back: str) -> str:
    if state.consent is not None:
        return ""
    boxes = "".join(
        f'<p><label><input type="checkbox" name="{name}" value="on" checked> '
        f"{name.title()} cookies</label></p>"
        for name in CATEGORIES
    )
    return (
        '<div id="onetrust-consent-sdk">'
        '<div id="onetrust-banner-sdk" role="region" aria-label="Cookie banner">'
        "<p>We use cookies to improve your experience.</p>"
        '<form method="post" action="/consent">'
        f'<input type="hidden" name="back" value="{back}">'
        '<button type="submit" id="onetrust-accept-btn-handler" name="all" value="on">'
        "Accept All Cookies</button></form></div>"
        '<div id="onetrust-pc-sdk" role="dialog" aria-label="Privacy Preference Center">'
        "<h2>Privacy Preference Center</h2>"
        '<form method="post" action="/consent">'
        f'<input type="hidden" name="back" value="{back}">{boxes}'
        '<button type="submit" class="save-preference-btn-handler onetrust-close-btn-handler">'
        "Confirm My Choices</button></form>"
        '<form method="post" action="/consent">'
        f'<input type="hidden" name="back" value="{back}">'
        '<button type="submit" class="ot-pc-refuse-all-handler">Reject All</button></form>'
        "</div></div>"
    )


def _account(_request: Request, state: FlowState) -> Response:
    if state.cancelled:
        body = f"<h1>Membership</h1><p>Your membership ends on {state.end_date_text}.</p>"
    else:
        body = (
            "<h1>Membership</h1>"
            f"<p>News membership, $4/week. Renews on {state.end_date_text}.</p>"
            + link("/membership/cancel", "Cancel membership")
        )
    return html(page("Membership", _banner(state, "/account") + body))


def _cancel_page(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Cancel your membership</h1>"
        f"<p>Your access continues until {state.end_date_text}.</p>"
        + post_button("/membership/cancel", "Cancel Subscription")
        + link("/account", "Keep my membership")
    )
    return html(page("Cancel membership", _banner(state, "/membership/cancel") + body))


def _consent(request: Request, state: FlowState) -> Response:
    chosen = request.param("all") == "on" or any(request.param(name) for name in CATEGORIES)
    with state.lock:
        state.consent = "all" if chosen else "necessary"
        state.note("POST /consent")
    back = request.param("back")
    return redirect(back if back in ("/account", "/membership/cancel") else "/account")


def _cancel(_request: Request, state: FlowState) -> Response:
    state.cancel("POST /membership/cancel")
    return redirect("/membership/cancelled")


def _cancelled(_request: Request, state: FlowState) -> Response:
    if not state.cancelled:
        return redirect("/account")
    body = (
        "<h1>Cancellation confirmed</h1>"
        f"<p>Your membership has been cancelled. Your access ends on {state.end_date_text}.</p>"
    )
    return html(page("Membership cancelled", body))


CONSENT_BANNER = Flow(
    id="consent-banner",
    name="News membership behind a consent banner",
    source="OneTrust Cookie Consent Preference Center documentation",
    path=clicks("Cancel membership", "Cancel Subscription"),
    commit="Cancel Subscription",
    routes={
        ("GET", "/account"): _account,
        ("GET", "/membership/cancel"): _cancel_page,
        ("POST", "/membership/cancel"): _cancel,
        ("GET", "/membership/cancelled"): _cancelled,
        ("POST", "/consent"): _consent,
    },
)
