"""A streaming service whose cancellation asks a survey that POSTs, rebuilt from Netflix's
help page.

Source: Netflix Help Center, "How to cancel Netflix" (https://help.netflix.com/en/node/407):
on the Account page select "Cancel Membership", then "Finish Cancellation"; the
membership runs to the end of the billing period. Between the two, a "Why are you
leaving?" survey (the common shape of such flows, not from the help page) answers
``POST /survey/end``: a path that says "end" and cancels nothing.
"""

from __future__ import annotations

from subterminator_bench.rebuilt.site import Flow, clicks, link, page, post_button
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, redirect


def _account(_request: Request, state: FlowState) -> Response:
    if state.cancelled:
        body = (
            "<h1>Account</h1>"
            f"<p>Your membership ends on {state.end_date_text}.</p>"
            + post_button("/account/restart", "Restart Membership")
        )
    else:
        body = (
            "<h1>Account</h1>"
            f"<p>Standard plan, $15.49/month. Next payment: {state.end_date_text}.</p>"
            + link("/cancelplan", "Cancel Membership")
        )
    return html(page("Account", body))


def _cancel_plan(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Why are you leaving?</h1>"
        '<form method="post" action="/survey/end">'
        '<p><label><input type="radio" name="why" value="price" checked> Price</label></p>'
        '<p><label><input type="radio" name="why" value="content"> Not enough to watch'
        "</label></p>"
        '<button type="submit" class="btn">Continue</button></form>' + link("/account", "Go Back")
    )
    return html(page("Cancel membership", body))


def _confirm(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Cancel your membership?</h1>"
        f"<p>If you cancel, you can keep watching until {state.end_date_text}.</p>"
        + post_button("/cancelplan/finish", "Finish Cancellation")
        + link("/account", "Go Back")
    )
    return html(page("Cancel membership", body))


def _finish(_request: Request, state: FlowState) -> Response:
    state.cancel("POST /cancelplan/finish")
    return redirect("/cancelplan/done")


def _done(_request: Request, state: FlowState) -> Response:
    if not state.cancelled:
        return redirect("/account")
    body = (
        "<h1>Your membership is cancelled</h1>"
        f"<p>Your membership has been cancelled. It ends on {state.end_date_text}.</p>"
    )
    return html(page("Membership cancelled", body))


def _survey(request: Request, state: FlowState) -> Response:
    with state.lock:
        state.survey_answers.append(request.param("why") or "")
        state.note("POST /survey/end")
    return redirect("/cancelplan/confirm")


STREAMING = Flow(
    id="streaming",
    name="Streaming service",
    source="Netflix Help Center, How to cancel Netflix",
    path=clicks("Cancel Membership", "Continue", "Finish Cancellation"),
    commit="Finish Cancellation",
    routes={
        ("GET", "/account"): _account,
        ("GET", "/cancelplan"): _cancel_plan,
        ("GET", "/cancelplan/confirm"): _confirm,
        ("POST", "/cancelplan/finish"): _finish,
        ("GET", "/cancelplan/done"): _done,
        ("POST", "/survey/end"): _survey,
    },
)
