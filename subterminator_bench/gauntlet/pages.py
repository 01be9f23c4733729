"""HTML shared by the gauntlet's scenarios: the account page's parts and the pages a flow ends on.

The gauntlet is Demoflix's account under other flows, so it wears Demoflix's layout and
reuses its sign-in, confirmation, done and error pages. Control names and headings are
written out literally: ``scenarios.toml`` matches them verbatim.
"""

from __future__ import annotations

from html import escape

from subterminator_bench.gauntlet.scenario import View

# Demoflix's layout helpers are the practice sites' shared look; reused, not copied.
from subterminator_tui.practice.demoflix.pages import alert, back_to_account, button_form, layout

__all__ = ["alert", "back_to_account", "button_form", "layout"]

#: Seconds the loading page waits before it moves on by itself.
LOADING_REFRESH_SECONDS = 1


def membership_details(end_date: str) -> str:
    """The plan and the next bill, as every active account page shows them."""
    return f"<p>Premium plan · $22.99/month</p><p>Next billing date: {escape(end_date)}</p>"


def access_until(end_date: str) -> str:
    """What a final confirmation says about the end date (never "membership ends on")."""
    return (
        f"<p>Your access continues until {escape(end_date)}. "
        "After that you will not be charged.</p>"
    )


def start_button(label: str = "Cancel membership", css: str = "btn") -> str:
    """The form that enters the cancellation flow."""
    return button_form("/cancel/start", label, css)


def account_page(body: str) -> str:
    """The account page around ``body``."""
    return layout("Account", f"<h1>Account</h1>\n{body}")


def plain_account(view: View) -> str:
    """The straightforward account page: membership details and the way in, in plain sight."""
    return account_page(
        '<section aria-labelledby="membership-heading">\n'
        '<h2 id="membership-heading">Membership</h2>\n'
        f"{membership_details(view.end_date)}\n{start_button()}\n</section>"
    )


def flow_page(title: str, heading: str, body: str, view: View) -> str:
    """A page of a cancellation flow, with the validation message when there is one."""
    return layout(title, f"<h1>{escape(heading)}</h1>\n{alert(view.error)}\n{body}")


def frame_document(title: str, body: str) -> str:
    """A framed widget's own document; its forms and links act on the whole window."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<base target="_top">\n<title>{escape(title)}</title>\n'
        "<style>body{font-family:system-ui,sans-serif;margin:.5rem}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


def loading_page(target: str) -> str:
    """The interstitial a slow site shows before the real page; it moves on by itself."""
    refresh = f"{LOADING_REFRESH_SECONDS};url={target}"
    body = """<h1>Loading…</h1>
<p role="status">Please wait while we get your account ready.</p>"""
    page = layout("Loading…", body)
    # The shared layout has no slot for head tags; the refresh belongs right after <head>.
    meta = f'<meta http-equiv="refresh" content="{escape(refresh)}">'
    return page.replace("<head>\n", f"<head>\n{meta}\n", 1)


def paused_page() -> str:
    """Shown after the pause offer was taken: the membership continues later."""
    body = f"""<h1>Your membership is paused</h1>
<p>Billing resumes automatically in 3 months.</p>
{back_to_account()}"""
    return layout("Membership paused", body)


def plan_changed_page() -> str:
    """Shown after the plan-change lookalike was confirmed: still a paying member."""
    body = f"""<h1>Your plan has changed</h1>
<p>You're now on Basic at $6.99/month, starting with your next bill.</p>
{back_to_account()}"""
    return layout("Plan changed", body)


def kept_page() -> str:
    """Shown after a keep button: nothing changed, the membership simply continues."""
    body = f"""<h1>You're still a member</h1>
<p>Great choice! Your benefits continue as before.</p>
{back_to_account()}"""
    return layout("Membership kept", body)


def upgraded_page() -> str:
    """Shown after the upsell was bought."""
    body = f"""<h1>Welcome to Ultra</h1>
<p>Your plan is now Ultra at $29.99/month, starting today.</p>
{back_to_account()}"""
    return layout("Upgraded", body)
