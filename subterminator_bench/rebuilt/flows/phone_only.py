"""A radio subscription that cancels only by phone or chat, rebuilt from the New York
Attorney General's case against SiriusXM.

Source: People of the State of New York v. Sirius XM Radio Inc. (N.Y. Sup. Ct., filed
December 20, 2023), as reported at https://finance.yahoo.com/news/ny-ag-letitia-james-
sues-230500055.html and http://solidoc.net/article_f08a0a06-9f80-11ee-8fe5-d7df6e71f60a.html:
"SiriusXM requires subscribers to call or chat online with an agent to cancel a
subscription". Here the account page's ``End subscription`` link opens a page that
gives the phone number and the address and has nothing to click that cancels.
"""

from __future__ import annotations

from subterminator_bench.rebuilt.site import Flow, clicks, link, page
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html

PHONE = "+1 800 555 0147"
ADDRESS = "Listener Care, 200 Example Avenue, New York, NY 10001"
ACCOUNT_NUMBER = "RS-2026-7731"


def _account(_request: Request, state: FlowState) -> Response:
    body = (
        "<h1>Your radio subscription</h1>"
        f"<p>All Access, $23.99/month, account {ACCOUNT_NUMBER}. "
        f"Renews on {state.end_date_text}.</p>" + link("/subscription/end", "End subscription")
    )
    return html(page("Your subscription", body))


def _end(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.flags["saw_phone_page"] = True
    body = (
        "<h1>End your subscription</h1>"
        f"<p>To cancel your subscription, call Listener Care at {PHONE}.</p>"
        f"<p>You can also write to us: {ADDRESS}.</p>" + link("/account", "Back to your account")
    )
    return html(page("End your subscription", body))


PHONE_ONLY = Flow(
    id="phone-only",
    name="Radio subscription",
    source="New York v. Sirius XM Radio Inc. (2023)",
    path=clicks("End subscription"),
    routes={("GET", "/account"): _account, ("GET", "/subscription/end"): _end},
)
