"""The practice portal's HTML: one function per page, every dynamic value escaped.

The endings' wording follows what real services print (billed through Apple, call us
to cancel, already cancelled), so the generic rules meet it here as they would there.
"""

from __future__ import annotations

import json
from html import escape

SESSION_COOKIE = "portal_session"


def layout(title: str, body: str) -> str:
    """A page of the portal; ``title`` is the part before " - Practice Portal"."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)} - Practice Portal</title></head><body>"
        f"<header><strong>Practice Portal</strong></header><main>{body}</main>"
        "<footer>Practice Portal is a practice site. No real subscription is involved.</footer>"
        "</body></html>\n"
    )


def sign_in_page(redirect_url: str, popup_url: str) -> str:
    """The portal's own sign-in page: it offers only the practice identity provider."""
    return layout(
        "Sign in",
        "<h1>Sign in to Practice Portal</h1>"
        f'<p><a href="{escape(redirect_url)}">Continue with Practice ID</a></p>'
        + _popup_button(popup_url),
    )


def _popup_button(popup_url: str) -> str:
    # The pop-up opens on about:blank first, then goes to the provider, as real ones do.
    return (
        '<p><button type="button" id="popup">Continue with Practice ID in a pop-up</button></p>'
        "<script>document.getElementById('popup').addEventListener('click', () => {"
        " const w = window.open('', 'practice-id', 'popup,width=480,height=640');"
        f" w.location.href = {_js(popup_url)}; }});</script>"
    )


def welcome_page(popup_url: str) -> str:
    """A signed-out welcome page whose only way in is the provider's pop-up."""
    return layout(
        "Welcome",
        "<h1>Welcome to Practice Portal</h1><p>Your membership is waiting.</p>"
        + _popup_button(popup_url),
    )


def popup_done_page() -> str:
    """Where the pop-up lands: it signs the opener in and closes itself."""
    return layout(
        "Signed in",
        "<h1>Signed in</h1><p>You can close this window.</p>"
        "<script>if (window.opener) { window.opener.location.href = '/account';"
        " window.close(); } else { location.href = '/account'; }</script>",
    )


def account_page(ending: str, membership: str, renewed: bool) -> str:
    """The account page for the chosen ending and the plan's state."""
    if ending == "billed_apple":
        body = (
            "<h1>Your membership</h1><p>Plan: Premium (billed monthly).</p>"
            "<p>You subscribed through Apple. Your subscription is billed by Apple, so it can "
            "only be cancelled in your Apple account: on your iPhone open Settings, tap your "
            "name, then Subscriptions.</p>"
        )
    elif ending == "offline_only":
        body = (
            "<h1>Your membership</h1><p>Plan: Premium, membership number PP-2026-0042.</p>"
            "<h2>Cancel your membership</h2>"
            "<p>To cancel your membership, please call Member Services at +1 800 555 0199 "
            "(Monday to Friday, 9am to 5pm) or write to Practice Portal Member Services, "
            "100 Example Street, Springfield, IL 62701.</p>"
        )
    elif renewed:
        body = (
            "<h1>Your membership</h1><p>Your membership renewed on 1 January 2027. "
            "Next payment: 1 February 2027.</p>" + _cancel_button()
        )
    elif membership == "cancelled" or ending == "already_cancelled":
        body = (
            "<h1>Your membership</h1><p>Your membership has been cancelled. "
            "Your access ends on 31 December 2026.</p>"
            '<form method="post" action="/restart"><button type="submit">Restart membership'
            "</button></form>"
        )
    else:
        body = (
            "<h1>Your membership</h1><p>Plan: Premium. Your plan renews on 1 January 2027.</p>"
            + _cancel_button()
        )
    return layout("Account", body)


def _cancel_button() -> str:
    return (
        '<form method="post" action="/cancel"><button type="submit">Cancel membership'
        "</button></form>"
    )


def _js(text: str) -> str:
    # JSON is a JavaScript string literal; "</" is broken so it cannot close the script.
    return json.dumps(text).replace("</", "<\\/")
