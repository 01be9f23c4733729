"""Scenarios where the page itself is the obstacle: too long to read, too heavy to send whole.

Real account centres answer with 50 to 540 KB accessibility snapshots; these pages make
the cancel control one element among hundreds (long) or thousands (heavy). Their content
is generated deterministically, so every run sees the same page.
"""

from __future__ import annotations

from subterminator_bench.gauntlet import pages
from subterminator_bench.gauntlet.scenario import Scenario, View

#: Generated sizes; the heavy page must stay above 1,500 accessibility elements.
LONG_ARTICLES = 320
HEAVY_NAV_LINKS = 120
HEAVY_DEVICES = 150
HEAVY_INVOICES = 200
HEAVY_FOOTER_LINKS = 80

_GENRES = ("Drama", "Comedy", "Documentary", "Thriller", "Anime", "Family", "Sci-fi", "Romance")
_DEVICES = ("Living room TV", "Phone", "Tablet", "Laptop", "Console", "Bedroom TV")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def long_account(view: View) -> str:
    """Hundreds of paragraphs and links before the membership section at the bottom."""
    articles = "\n".join(
        f"<p>{_GENRES[i % len(_GENRES)]} pick #{i + 1}: a story you may have missed this season. "
        f'<a href="/help?topic=title-{i + 1}">More about pick #{i + 1}</a></p>'
        for i in range(LONG_ARTICLES)
    )
    body = f"""<section aria-labelledby="news-heading">
<h2 id="news-heading">What's new for you</h2>
{articles}
</section>
<section aria-labelledby="membership-heading">
<h2 id="membership-heading">Membership</h2>
{pages.membership_details(view.end_date)}
{pages.start_button(css="btn-plain")}
</section>"""
    return pages.account_page(body)


def _links(prefix: str, count: int) -> str:
    return "\n".join(
        f'<li><a href="/help?topic={prefix}-{i + 1}">'
        f"{_GENRES[i % len(_GENRES)]} {prefix} {i + 1}</a></li>"
        for i in range(count)
    )


def _devices() -> str:
    return "\n".join(
        f"<li>{_DEVICES[i % len(_DEVICES)]} {i + 1}, last used {_MONTHS[i % 12]} {i % 28 + 1} "
        f'<a href="/help?topic=device-{i + 1}">Sign out device {i + 1}</a></li>'
        for i in range(HEAVY_DEVICES)
    )


def _invoices() -> str:
    rows = "\n".join(
        f"<tr><td>{_MONTHS[i % 12]} {2026 - i // 12}</td><td>Premium plan, monthly</td>"
        f'<td>$22.99</td><td><a href="/help?topic=invoice-{i + 1}">Receipt {i + 1}</a></td></tr>'
        for i in range(HEAVY_INVOICES)
    )
    return (
        "<table><caption>Billing history</caption>\n"
        "<thead><tr><th>Date</th><th>Description</th><th>Amount</th><th>Receipt</th></tr></thead>"
        f"\n<tbody>\n{rows}\n</tbody></table>"
    )


def heavy_account(view: View) -> str:
    """An account centre of thousands of elements, with an upsell and the cancel control."""
    body = f"""<nav aria-label="Browse"><ul>
{_links("collection", HEAVY_NAV_LINKS)}
</ul></nav>
<section aria-labelledby="ultra-heading">
<h2 id="ultra-heading">Go Ultra</h2>
<p>4K, spatial audio and six screens at once.</p>
{pages.button_form("/upgrade", "Upgrade to Ultra", "btn-primary")}
</section>
<section aria-labelledby="devices-heading">
<h2 id="devices-heading">Signed-in devices</h2>
<ul>
{_devices()}
</ul>
</section>
<section aria-labelledby="membership-heading">
<h2 id="membership-heading">Membership</h2>
{pages.membership_details(view.end_date)}
{pages.start_button(css="btn-plain")}
</section>
<section aria-labelledby="billing-heading">
<h2 id="billing-heading">Billing</h2>
{_invoices()}
</section>
<nav aria-label="Footer"><ul>
{_links("guide", HEAVY_FOOTER_LINKS)}
</ul></nav>"""
    return pages.account_page(body)


SCENARIOS = (
    Scenario(
        "long-page",
        f"{LONG_ARTICLES} paragraphs and links come before Cancel membership.",
        long_account,
    ),
    Scenario(
        "heavy-page",
        "An account centre of thousands of accessibility elements with an Ultra upsell.",
        heavy_account,
        upsell=True,
    ),
)
