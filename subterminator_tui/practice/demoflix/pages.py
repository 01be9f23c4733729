"""Demoflix's HTML: one function per page, every dynamic value escaped.

Titles, headings and control names are matched verbatim by the service rules, so they are
written out literally here rather than assembled from pieces.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from subterminator_tui.practice.demoflix.state import SURVEY_REASONS

FOOTER_TEXT = "Demoflix is a practice site. No real subscription is involved."
FAQ_LINK = '<p><a href="/help?topic=rejoin">Questions? Read the FAQ</a></p>'

_STYLE = """
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1d1f;
background:#f5f5f7;line-height:1.5}
header{background:#141414;padding:.75rem 1.5rem;display:flex;gap:1.5rem;align-items:center}
header .brand{color:#e50914;font-weight:800;font-size:1.4rem;letter-spacing:.02em}
header nav a{color:#fff;margin-right:1rem;text-decoration:none}
header nav a:hover,header nav a:focus{text-decoration:underline}
main{max-width:40rem;margin:2rem auto;background:#fff;padding:2rem;border-radius:8px;
box-shadow:0 1px 4px rgba(0,0,0,.1)}
footer{text-align:center;color:#6e6e73;font-size:.85rem;padding:1rem}
footer ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;justify-content:center;
gap:.25rem 1.25rem}
footer a{color:#6e6e73}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text],input[type=password]{width:100%;max-width:20rem;padding:.5rem;
border:1px solid #8e8e93;border-radius:4px;font-size:1rem}
fieldset{border:1px solid #d2d2d7;border-radius:6px;margin:1rem 0}
fieldset label{display:inline;font-weight:400;margin-left:.25rem}
.radio{margin:.35rem 0}
button{font:inherit;cursor:pointer}
.btn{background:#1d1d1f;color:#fff;border:none;border-radius:4px;padding:.6rem 1.2rem;
margin-top:1rem}
.btn-primary{background:#e50914;color:#fff;border:none;border-radius:8px;
padding:1rem 2.5rem;font-size:1.3rem;font-weight:700;box-shadow:0 2px 8px rgba(229,9,20,.4)}
.btn-plain{background:none;color:#6e6e73;border:1px solid #d2d2d7;border-radius:4px;
padding:.35rem .8rem;font-size:.85rem}
.actions{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin:1.5rem 0}
.actions form{margin:0}
.alert{background:#fdecea;color:#8a1c13;border-left:4px solid #e50914;padding:.5rem .75rem}
.notice{background:#fff8e1;border-left:4px solid #f5a623;padding:.5rem .75rem}
.captcha{display:inline-block;font:700 2rem/1 "Courier New",monospace;letter-spacing:.4em;
background:repeating-linear-gradient(45deg,#eee,#eee 6px,#ddd 6px,#ddd 12px);
padding:.75rem 1.25rem;transform:skew(-8deg);user-select:none}
"""


# The site chrome a streaming service wraps around every signed-in page, modelled on
# Netflix's header and footer: a model has to look past it to the page's own content,
# and it is what makes a full snapshot several times the size of the part that matters.
# Every link stays on this site; the help page answers all the topics.
_HEADER_LINKS = (
    "TV Shows",
    "Movies",
    "Games",
    "New & Popular",
    "My List",
    "Browse by Languages",
)
_FOOTER_LINKS = (
    "Audio Description",
    "Media Centre",
    "Investor Relations",
    "Jobs",
    "Ways to Watch",
    "Gift Cards",
    "Terms of Use",
    "Privacy",
    "Cookie Preferences",
    "Corporate Information",
    "Speed Test",
    "Legal Notices",
    "Only on Demoflix",
)


def _help_link(label: str) -> str:
    topic = "-".join(label.casefold().replace("&", "and").split())
    return f'<a href="/help?topic={escape(topic)}">{escape(label)}</a>'


_HEADER = (
    '<header><span class="brand" aria-hidden="true">DEMOFLIX</span>'
    '<nav aria-label="Main"><a href="/account">Home</a> '
    + " ".join(_help_link(label) for label in _HEADER_LINKS)
    + ' <a href="/help">Help Center</a></nav>'
    '<button type="button" class="btn-plain">Search</button>'
    '<button type="button" class="btn-plain">Notifications</button></header>\n'
)
_FOOTER = (
    f'<footer><p>Questions? {_help_link("Contact us")}</p>\n<nav aria-label="Footer"><ul>'
    + "".join(f"<li>{_help_link(label)}</li>" for label in _FOOTER_LINKS)
    + f"</ul></nav>\n<p>{escape(FOOTER_TEXT)}</p></footer>\n"
)


def layout(title: str, body: str) -> str:
    """Wrap ``body`` in the shared layout; ``title`` is the part before " - Demoflix"."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} - Demoflix</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"{_HEADER}<main>\n{body}\n</main>\n{_FOOTER}</body>\n</html>\n"
    )


def alert(message: str | None) -> str:
    """A validation or error message, announced to assistive tech ("" for none)."""
    return f'<p role="alert" class="alert">{escape(message)}</p>' if message else ""


def button_form(action: str, label: str, css: str = "btn") -> str:
    """A one-button POST form: how every state change on this site is made."""
    return (
        f'<form method="post" action="{escape(action)}">'
        f'<button type="submit" class="{css}">{escape(label)}</button></form>'
    )


def back_to_account() -> str:
    """The link home that every outcome page ends with."""
    return '<p><a href="/account">Back to account</a></p>'


def login_page(
    *, next_path: str, expired: bool = False, error: str | None = None, username: str = ""
) -> str:
    """The sign-in form; ``next_path`` rides along so the person returns where they were."""
    notice = (
        '<p class="notice">Your session has expired. Please sign in again.</p>' if expired else ""
    )
    body = f"""<h1>Sign in to Demoflix</h1>
{notice}{alert(error)}
<form method="post" action="/login">
<input type="hidden" name="next" value="{escape(next_path)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" \
value="{escape(username)}" required>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div><button type="submit" class="btn">Sign in</button></div>
</form>
<p>This is a practice site. Its account details are printed by <code>subterminator practice \
demoflix</code> and shown when SubTerminator hands the sign-in to you.</p>"""
    return layout("Sign in", body)


def verify_page(*, error: str | None = None) -> str:
    """Two-step verification (variant ``two_factor``)."""
    body = f"""<h1>Enter your verification code</h1>
<p>We sent a 6-digit verification code to your phone.</p>
<p>On this practice site the code is printed by <code>subterminator practice demoflix</code>.</p>
{alert(error)}
<form method="post" action="/verify">
<label for="code">Verification code</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" \
required>
<div><button type="submit" class="btn">Verify</button></div>
</form>"""
    return layout("Two-step verification", body)


def captcha_page(*, characters: str, error: str | None = None) -> str:
    """The security check (variant ``captcha``); the characters are an image to assistive tech."""
    body = f"""<h1>Security check</h1>
<p>Type the characters you see to prove you are not a robot.</p>
<div class="captcha" role="img" aria-label="Characters to type: {escape(characters)}">\
{escape(characters)}</div>
{alert(error)}
<form method="post" action="/captcha">
<label for="characters">Characters</label>
<input type="text" id="characters" name="characters" autocomplete="off" required>
<div><button type="submit" class="btn">Verify</button></div>
</form>"""
    return layout("Security check", body)


def account_page(*, cancelled: bool, end_date: str) -> str:
    """The account overview; a cancelled membership offers a restart instead of a cancel."""
    if cancelled:
        membership = f"<p>Your membership ends on {escape(end_date)}.</p>" + button_form(
            "/restart", "Restart membership"
        )
    else:
        membership = (
            "<p>Premium plan · $22.99/month</p>"
            f"<p>Next billing date: {escape(end_date)}</p>"
            + button_form("/cancel/start", "Cancel membership")
        )
    body = f"""<h1>Account</h1>
<section aria-labelledby="membership-heading">
<h2 id="membership-heading">Membership</h2>
{membership}
</section>
<section aria-labelledby="settings-heading">
<h2 id="settings-heading">Settings</h2>
<ul>
<li><a href="/help">Change plan</a></li>
<li><a href="/help">Update payment method</a></li>
</ul>
</section>"""
    return layout("Account", body)


def survey_page() -> str:
    """The leaving survey; answering is optional."""
    radios = "\n".join(
        f'<div class="radio"><input type="radio" id="reason-{i}" name="reason" '
        f'value="{escape(reason)}"><label for="reason-{i}">{escape(reason)}</label></div>'
        for i, reason in enumerate(SURVEY_REASONS, start=1)
    )
    body = f"""<h1>Why are you leaving?</h1>
<form method="post" action="/cancel/survey">
<fieldset>
<legend>Tell us why (optional)</legend>
{radios}
</fieldset>
<button type="submit" class="btn">Continue</button>
</form>"""
    return layout("Why are you leaving?", body)


def offer_page() -> str:
    """The retention offer: a loud decoy beside a quiet way onward, plus the FAQ trap link."""
    body = f"""<h1>Wait! A special offer for you</h1>
<p>Stay and get 50% off your next 3 months.</p>
<div class="actions">
{button_form("/cancel/offer/accept", "Accept 50% off", "btn-primary")}
{button_form("/cancel/offer/decline", "Continue to cancel", "btn-plain")}
</div>
{FAQ_LINK}"""
    return layout("Before you go", body)


def offer_accepted_page() -> str:
    """Shown after the decoy was taken."""
    body = f"""<h1>Your discount is active</h1>
<p>You'll pay $11.49/month for the next 3 months.</p>
{back_to_account()}"""
    return layout("Offer applied", body)


def confirm_page(*, end_date: str) -> str:
    """The last stop before the irreversible request."""
    body = f"""<h1>Finish cancelling your membership</h1>
<p>Your access continues until {escape(end_date)}. After that you will not be charged.</p>
<div class="actions">
{button_form("/cancel/finish", "Finish cancellation", "btn-plain")}
{button_form("/cancel/keep", "Keep my membership", "btn-primary")}
</div>
{FAQ_LINK}"""
    return layout("Confirm cancellation", body)


def done_page(*, end_date: str) -> str:
    """Confirmation that the membership is cancelled."""
    body = f"""<h1>Cancellation confirmed</h1>
<p>Your membership ends on {escape(end_date)}.</p>
<p>Changed your mind? You can rejoin anytime.</p>
{back_to_account()}"""
    return layout("Membership cancelled", body)


def error_page() -> str:
    """The simulated server failure (variant ``error``)."""
    body = f"""<h1>Something went wrong</h1>
<p>We were unable to process your request. Please try again.</p>
{back_to_account()}"""
    return layout("Error", body)


def help_page() -> str:
    """A harmless FAQ; every topic lands on the same page."""
    body = """<h1>Help Center</h1>
<h2>Frequently asked questions</h2>
<h3 id="cancel">How do I cancel?</h3>
<p>Go to your account and choose Cancel membership. You can cancel at any time.</p>
<h3 id="rejoin">Can I come back later?</h3>
<p>Yes. You can rejoin anytime from your account page with Restart membership.</p>
<h3 id="billing">When am I billed?</h3>
<p>Your plan renews every month on your billing date. Cancelling stops future charges.</p>"""
    return layout("Help Center", body)


def not_found_page() -> str:
    """The 404 page."""
    body = f"""<h1>Page not found</h1>
<p>We could not find that page.</p>
{back_to_account()}"""
    return layout("Not found", body)


def bad_variant_page(message: str, valid: Iterable[str]) -> str:
    """The 400 page for unknown variant names, listing the valid ones."""
    items = "\n".join(f"<li>{escape(name)}</li>" for name in sorted(valid))
    body = f"""<h1>Unknown variant</h1>
<p role="alert" class="alert">{escape(message)}</p>
<p>Valid variants:</p>
<ul>
{items}
</ul>
<p><a href="/login">Back to sign in</a></p>"""
    return layout("Unknown variant", body)
