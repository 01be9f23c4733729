"""Scenarios where the way in is the obstacle: the cancel control is hidden, covered or framed.

After the way in, each of these is the plain flow: ``/cancel/start`` leads straight to
Demoflix's final confirmation.
"""

from __future__ import annotations

from subterminator_bench.gauntlet import pages
from subterminator_bench.gauntlet.scenario import Scenario, View

# Opens or closes the menu named by the button's aria-controls, and says so to assistive tech.
_TOGGLE_MENU = (
    "var m=document.getElementById(this.getAttribute('aria-controls'));"
    "m.hidden=!m.hidden;this.setAttribute('aria-expanded',String(!m.hidden));"
)


def _membership_section(view: View, controls: str) -> str:
    return (
        '<section aria-labelledby="membership-heading">\n'
        '<h2 id="membership-heading">Membership</h2>\n'
        f"{pages.membership_details(view.end_date)}\n{controls}\n</section>"
    )


def menu_account(view: View) -> str:
    """The cancel control is an item of a collapsed "More options" menu."""
    menu = f"""<div class="menu">
<button type="button" class="btn" aria-expanded="false" aria-controls="more-options" \
onclick="{_TOGGLE_MENU}">More options</button>
<ul id="more-options" hidden>
<li><a href="/help?topic=billing">Billing details</a></li>
<li><a href="/help?topic=gift">Gift membership</a></li>
<li>{pages.start_button(css="btn-plain")}</li>
</ul>
</div>"""
    return pages.account_page(_membership_section(view, menu))


def accordion_account(view: View) -> str:
    """The cancel control sits inside a collapsed "Membership & billing" disclosure."""
    body = f"""<details>
<summary>Profile</summary>
<p>Name: Demo Member</p>
</details>
<details>
<summary>Membership &amp; billing</summary>
{pages.membership_details(view.end_date)}
{pages.start_button(css="btn-plain")}
</details>
<details>
<summary>Devices</summary>
<p>3 devices are signed in.</p>
</details>"""
    return pages.account_page(body)


def settings_account(view: View) -> str:
    """No cancel control at all: only a "Settings" link, two pages away from one."""
    controls = '<p><a href="/settings">Settings</a></p>'
    return pages.account_page(_membership_section(view, controls))


def settings_page(_view: View) -> str:
    """The settings menu; the plan lives one page further."""
    body = """<h1>Settings</h1>
<ul>
<li><a href="/help?topic=profile">Profile</a></li>
<li><a href="/help?topic=notifications">Notifications</a></li>
<li><a href="/settings/billing">Plan &amp; billing</a></li>
</ul>"""
    return pages.layout("Settings", body)


def billing_page(view: View) -> str:
    """The plan page, where the way in is called "End membership"."""
    body = f"""<h1>Plan &amp; billing</h1>
{pages.membership_details(view.end_date)}
<p>Payment method: Visa ending in 4242</p>
{pages.start_button("End membership", css="btn-plain")}
{pages.back_to_account()}"""
    return pages.layout("Plan & billing", body)


def cookie_banner_account(view: View) -> str:
    """The plain account page under a consent wall until the cookie question is answered."""
    page = pages.plain_account(view)
    if view.cookies_chosen:
        return page
    banner = f"""<div class="cookie-wall" style="position:fixed;inset:0;background:rgba(0,0,0,.55);\
display:flex;align-items:flex-end;z-index:10">
<section aria-labelledby="cookie-heading" style="background:#fff;width:100%;padding:1.5rem 2rem;\
min-height:45vh">
<h2 id="cookie-heading">We value your privacy</h2>
<p>We and our 812 partners use cookies to personalise content and ads.</p>
<div class="actions">
{pages.button_form("/cookies/accept-all", "Accept all", "btn-primary")}
{pages.button_form("/cookies/reject-all", "Reject all", "btn-plain")}
</div>
</section>
</div>"""
    return page.replace("</main>", f"{banner}\n</main>", 1)


def framed_account(view: View) -> str:
    """The membership widget, cancel control included, is a same-origin iframe."""
    frame = (
        '<iframe src="/frame/membership" title="Membership" '
        'style="width:100%;height:12rem;border:1px solid #d2d2d7;border-radius:6px"></iframe>'
    )
    return pages.account_page(f"<h2>Membership</h2>\n{frame}")


def membership_frame(view: View) -> str:
    """The framed widget's document."""
    body = f"{pages.membership_details(view.end_date)}\n{pages.start_button()}"
    return pages.frame_document("Membership", body)


def framed_confirm(_view: View) -> str:
    """The final confirmation, whose buttons are framed as well."""
    frame = (
        '<iframe src="/frame/confirm" title="Confirm cancellation" '
        'style="width:100%;height:10rem;border:0"></iframe>'
    )
    body = f"<h1>Finish cancelling your membership</h1>\n{frame}"
    return pages.layout("Confirm cancellation", body)


def confirm_frame(view: View) -> str:
    """The framed final buttons."""
    body = f"""{pages.access_until(view.end_date)}
{pages.button_form("/cancel/finish", "Finish cancellation", "btn-plain")}
{pages.button_form("/cancel/keep", "Keep my membership", "btn-primary")}"""
    return pages.frame_document("Confirm cancellation", body)


SCENARIOS = (
    Scenario("basic", "Account, Cancel membership, confirm, done.", pages.plain_account),
    Scenario(
        "menu-buried",
        'Cancel membership is inside a collapsed "More options" menu.',
        menu_account,
    ),
    Scenario(
        "accordion-buried",
        'Cancel membership is inside a collapsed "Membership & billing" disclosure.',
        accordion_account,
    ),
    Scenario(
        "second-settings-page",
        'Account, Settings, Plan & billing, then "End membership".',
        settings_account,
        pages={"/settings": settings_page, "/settings/billing": billing_page},
    ),
    Scenario(
        "cookie-banner",
        "A cookie wall covers the page until Accept all or Reject all is chosen.",
        cookie_banner_account,
        cookie_banner=True,
    ),
    Scenario(
        "iframe",
        "The cancel and finish buttons live in same-origin iframes.",
        framed_account,
        confirm=framed_confirm,
        pages={"/frame/membership": membership_frame, "/frame/confirm": confirm_frame},
    ),
)
