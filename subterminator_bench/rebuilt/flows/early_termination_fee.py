"""An annual plan paid monthly whose cancellation charges an early-termination fee, rebuilt
from the FTC's complaint against Adobe.

Source: United States v. Adobe Inc. (N.D. Cal., filed June 17, 2024, on the FTC's
referral), as reported at https://www.pymnts.com/subscriptions/2024/ftc-alleges-adobe-
deters-subscription-cancellations-hides-early-termination-fee/ and
https://www.foxbusiness.com/politics/ftc-sues-adobe-allegedly-hiding-fees-making-tough-
cancel-subscriptions: the "annual, paid monthly" plan charges 50% of the remaining
monthly payments when cancelled in the first year, disclosed only when the subscriber
tries to cancel. Here: a reason page, then a review page that shows the fee with its
amount, then the fee is charged and the plan ends.
"""

from __future__ import annotations

from subterminator_bench.rebuilt.site import Flow, clicks, link, page, post_button
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, redirect

MONTHLY_CENTS = 2299
#: Eight monthly payments left on the year: half of them is the fee.
REMAINING_PAYMENTS = 8
FEE_CENTS = MONTHLY_CENTS * REMAINING_PAYMENTS // 2
FEE_TEXT = f"${FEE_CENTS // 100}.{FEE_CENTS % 100:02d}"


def _account(_request: Request, state: FlowState) -> Response:
    if state.cancelled:
        body = (
            "<h1>Plans</h1>"
            f"<p>Photo Plan: cancelled. Your access ends on {state.end_date_text}.</p>"
        )
    else:
        body = (
            "<h1>Plans</h1>"
            "<p>Photo Plan, annual, paid monthly: $22.99/month. "
            f"Next payment on {state.end_date_text}.</p>"
            + link("/plans/cancel", "Cancel your plan")
        )
    return html(page("Plans", body))


def _reason(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Why do you want to cancel?</h1>"
        '<form method="post" action="/plans/cancel/reason">'
        '<p><label><input type="radio" name="reason" value="price" checked> Too expensive'
        "</label></p>"
        '<p><label><input type="radio" name="reason" value="other"> Something else</label></p>'
        '<button type="submit" class="btn">Continue</button></form>'
    )
    return html(page("Cancel your plan", body))


def _reason_sent(request: Request, state: FlowState) -> Response:
    with state.lock:
        state.survey_answers.append(request.param("reason") or "")
    return redirect("/plans/cancel/review")


def _review(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Review your cancellation</h1>"
        "<p>You are in the first year of an annual plan paid monthly.</p>"
        f"<p>Early termination fee: {FEE_TEXT}, charged today to your card on file.</p>"
        f"<p>Your access ends on {state.end_date_text}.</p>"
        + post_button("/plans/cancel/confirm", "Confirm cancellation")
        + link("/account", "Keep my plan")
    )
    return html(page("Review your cancellation", body))


def _confirm(_request: Request, state: FlowState) -> Response:
    with state.lock:
        if state.cancel("POST /plans/cancel/confirm"):
            state.charge("early termination fee", FEE_CENTS)
    return redirect("/plans/cancel/done")


def _done(_request: Request, state: FlowState) -> Response:
    if not state.cancelled:
        return redirect("/account")
    body = (
        "<h1>Your plan is cancelled</h1>"
        f"<p>Your Photo Plan has been cancelled. We charged an early termination fee of "
        f"{FEE_TEXT}. Your access ends on {state.end_date_text}.</p>"
    )
    return html(page("Plan cancelled", body))


EARLY_TERMINATION_FEE = Flow(
    id="early-termination-fee",
    name="Photo Plan (annual, paid monthly)",
    source="United States v. Adobe Inc. (2024), the early termination fee",
    path=clicks("Cancel your plan", "Continue", "Confirm cancellation"),
    commit="Confirm cancellation",
    routes={
        ("GET", "/account"): _account,
        ("GET", "/plans/cancel"): _reason,
        ("POST", "/plans/cancel/reason"): _reason_sent,
        ("GET", "/plans/cancel/review"): _review,
        ("POST", "/plans/cancel/confirm"): _confirm,
        ("GET", "/plans/cancel/done"): _done,
    },
)
