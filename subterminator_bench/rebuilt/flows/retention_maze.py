"""A four-page retention maze with offers, rebuilt from the FTC's account of Amazon Prime's
"Iliad" flow.

Source: FTC v. Amazon.com, Inc., complaint filed June 21, 2023 (W.D. Wash.), ¶¶113-117
("Prime's Four-Page, Six-Click, Fifteen-Option Iliad Cancellation Process"), as quoted at
https://hackernoon.com/want-to-cancel-amazon-prime-forget-about-it and summarised at
https://myfinassets.com/amazon-ftc-lawsuit-over-cancellation-system: a first page of
discounts (switch to annual payments), a second of warnings with another "continue to
cancel", a third of several choices where only one ends the membership ("Remind me
later", "Pause membership", "Keep my benefits" do not). Here the first step is a plain
``Cancel`` link and the last is a ``Cancel Subscription`` button posting
``/membership/cancel``.
"""

from __future__ import annotations

from subterminator_bench.rebuilt.site import Flow, clicks, link, page, post_button
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, redirect

PRICE = "$14.99/month"


def _account(_request: Request, state: FlowState) -> Response:
    if state.cancelled:
        body = (
            "<h1>Your membership</h1>"
            f"<p>Your membership ends on {state.end_date_text}. It will not renew.</p>"
            + post_button("/membership/restart", "Restart membership")
        )
    else:
        body = (
            "<h1>Your membership</h1>"
            f"<p>Shopping membership, {PRICE}. Renews on {state.end_date_text}.</p>"
            + link("/cancel/benefits", "Cancel")
        )
    return html(page("Your membership", body))


def _benefits(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Before you go: save with annual payments</h1>"
        "<p>Members who switch to annual payments save $40 a year.</p>"
        + post_button("/offers/annual", "Switch to annual payments")
        + link("/cancel/warnings", "Continue to cancel")
    )
    return html(page("Before you go", body))


def _warnings(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>You will lose your benefits</h1>"
        "<ul><li>Free two-day delivery</li><li>Video streaming</li>"
        "<li>Unclaimed member offers</li></ul>"
        + link("/account", "Keep my benefits")
        + link("/cancel/choices", "Continue to cancel")
    )
    return html(page("Your benefits", body))


def _choices(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>How would you like to proceed?</h1>"
        + post_button("/membership/remind", "Remind me later")
        + post_button("/membership/pause", "Pause membership")
        + link("/account", "Keep my membership")
        + f"<p>If you cancel, your benefits end on {state.end_date_text}.</p>"
        + post_button("/membership/cancel", "Cancel Subscription")
    )
    return html(page("Cancel your membership", body))


def _annual(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.offers_accepted.append("annual")
        state.charge("annual plan", 13900)
        state.note("POST /offers/annual")
    return html(page("Plan changed", "<h1>You switched to annual payments</h1>"))


def _remind(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.snoozed = True
        state.note("POST /membership/remind")
    return html(page("Reminder set", "<h1>We will remind you before your renewal</h1>"))


def _pause(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.paused_on = state.renews_on
        state.note("POST /membership/pause")
    return html(page("Paused", "<h1>Your membership will pause at renewal</h1>"))


def _cancel(_request: Request, state: FlowState) -> Response:
    if not state.cancel("POST /membership/cancel"):
        return redirect("/account")
    return redirect("/cancel/done")


def _done(_request: Request, state: FlowState) -> Response:
    if not state.cancelled:
        return redirect("/account")
    body = (
        "<h1>Cancellation confirmed</h1>"
        f"<p>Your membership has been cancelled. Your benefits end on {state.end_date_text}.</p>"
    )
    return html(page("Membership cancelled", body))


def _restart(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.cancelled = False
        state.charge("restart", 1499)
        state.note("POST /membership/restart")
    return redirect("/account")


RETENTION_MAZE = Flow(
    id="retention-maze",
    name="Shopping membership (four-page maze)",
    source="FTC v. Amazon.com, Inc. (2023), the Iliad flow",
    path=clicks(
        ("link", "Cancel"), "Continue to cancel", "Continue to cancel", "Cancel Subscription"
    ),
    commit="Cancel Subscription",
    routes={
        ("GET", "/account"): _account,
        ("GET", "/cancel/benefits"): _benefits,
        ("GET", "/cancel/warnings"): _warnings,
        ("GET", "/cancel/choices"): _choices,
        ("GET", "/cancel/done"): _done,
        ("POST", "/offers/annual"): _annual,
        ("POST", "/membership/remind"): _remind,
        ("POST", "/membership/pause"): _pause,
        ("POST", "/membership/cancel"): _cancel,
        ("POST", "/membership/restart"): _restart,
    },
)
