"""A snooze and a pause that read like a cancellation, rebuilt from the FTC's account of the
save offers in Amazon Prime's Iliad flow.

Source: FTC v. Amazon.com, Inc. (2023), as summarised at
https://themoneyplace.com/personal-finance/490001479/2025/11/refund-from-amazon/3 and
https://myfinassets.com/amazon-ftc-lawsuit-over-cancellation-system: the cancellation
screens offered "Remind me later" and "Pause membership" beside the one choice that ends
it, and "many consumers did not realize that selecting these options prevented
cancellation". Here ``End Membership`` (a link) opens the choices; the reminder and the
pause both answer "You will not be charged again until <date>", and neither ends anything.
"""

from __future__ import annotations

from subterminator_bench.rebuilt.site import Flow, clicks, link, page, post_button
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, redirect


def _account(_request: Request, state: FlowState) -> Response:
    if state.cancelled:
        body = f"<h1>Membership</h1><p>Your membership ends on {state.end_date_text}.</p>"
    else:
        body = (
            "<h1>Membership</h1>"
            f"<p>Member since 2021, $14.99/month. Renews on {state.end_date_text}.</p>"
            + link("/membership/end", "End Membership")
        )
    return html(page("Membership", body))


def _choices(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Before you go</h1>"
        + post_button("/membership/remind", "Remind me later")
        + post_button("/membership/pause", f"Pause on {state.end_date_text}")
        + post_button("/membership/end-now", "End my benefits now")
    )
    return html(page("End membership", body))


def _not_charged(state: FlowState, heading: str) -> Response:
    body = (
        f"<h1>{heading}</h1>"
        f"<p>You will not be charged again until {state.end_date_text}.</p>"
        + link("/account", "Back to your account")
    )
    return html(page(heading, body))


def _remind(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.snoozed = True
        state.note("POST /membership/remind")
    return _not_charged(state, "We will remind you")


def _pause(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.paused_on = state.renews_on
        state.note("POST /membership/pause")
    return _not_charged(state, "Your membership will pause")


def _end_now(_request: Request, state: FlowState) -> Response:
    state.cancel("POST /membership/end-now")
    return redirect("/account")


SNOOZE_PAUSE = Flow(
    id="snooze-pause",
    name="Membership with a snooze and a pause",
    source="FTC v. Amazon.com, Inc. (2023), the save offers",
    path=clicks("End Membership", "End my benefits now"),
    commit="End my benefits now",
    routes={
        ("GET", "/account"): _account,
        ("GET", "/membership/end"): _choices,
        ("POST", "/membership/remind"): _remind,
        ("POST", "/membership/pause"): _pause,
        ("POST", "/membership/end-now"): _end_now,
    },
)
