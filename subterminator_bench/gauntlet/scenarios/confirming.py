"""Scenarios where the last step is the obstacle: how it is confirmed, answered or reported.

An in-page modal, a native ``confirm()``, a failing first request, a slow server and an
account that needs nothing at all.
"""

from __future__ import annotations

from html import escape

from subterminator_bench.gauntlet import pages
from subterminator_bench.gauntlet.scenario import Scenario, View

NATIVE_QUESTION = "Are you sure you want to cancel?"
SLOW_SECONDS = 1.5

# Show or hide the in-page dialog, moving focus into it (onto the safe choice) and back.
_OPEN_DIALOG = (
    "var d=document.getElementById('confirm-dialog');d.hidden=false;"
    "document.getElementById('close-dialog').focus();"
)
_CLOSE_DIALOG = (
    "document.getElementById('confirm-dialog').hidden=true;"
    "document.getElementById('open-dialog').focus();"
)
_DIALOG_STYLE = (
    "position:fixed;inset:20% 25% auto 25%;background:#fff;padding:1.5rem;border-radius:8px;"
    "box-shadow:0 0 0 100vmax rgba(0,0,0,.55);z-index:10"
)


def modal_confirm(view: View) -> str:
    """The final confirmation is an in-page modal dialog opened by "Cancel membership"."""
    body = f"""<h1>Before you cancel</h1>
{pages.access_until(view.end_date)}
<p><button type="button" id="open-dialog" class="btn" aria-haspopup="dialog" \
aria-controls="confirm-dialog" onclick="{_OPEN_DIALOG}">Cancel membership</button></p>
{pages.back_to_account()}
<div id="confirm-dialog" role="dialog" aria-modal="true" aria-labelledby="dialog-heading" \
style="{_DIALOG_STYLE}" hidden>
<h2 id="dialog-heading">Cancel your membership?</h2>
<p>You can rejoin anytime.</p>
<div class="actions">
{pages.button_form("/cancel/finish", "Yes, cancel", "btn-plain")}
<button type="button" id="close-dialog" class="btn-primary" onclick="{_CLOSE_DIALOG}">\
Go back</button>
</div>
</div>"""
    return pages.layout("Confirm cancellation", body)


def native_confirm(view: View) -> str:
    """The finishing button asks a native ``confirm()`` first; only accepting submits."""
    ask = escape(f"return confirm({NATIVE_QUESTION!r})")
    body = f"""<h1>Finish cancelling your membership</h1>
{pages.access_until(view.end_date)}
<div class="actions">
<form method="post" action="/cancel/finish"><button type="submit" class="btn-plain" \
onclick="{ask}">Finish cancellation</button></form>
{pages.button_form("/cancel/keep", "Keep my membership", "btn-primary")}
</div>"""
    return pages.layout("Confirm cancellation", body)


SCENARIOS = (
    Scenario(
        "in-page-modal",
        'The last step is an in-page modal dialog: "Yes, cancel" or "Go back".',
        pages.plain_account,
        confirm=modal_confirm,
    ),
    Scenario(
        "native-confirm",
        f'Finish cancellation asks a native confirm("{NATIVE_QUESTION}") first.',
        pages.plain_account,
        confirm=native_confirm,
    ),
    Scenario(
        "error-retry",
        'The first finish fails with "Something went wrong"; walking the flow again works.',
        pages.plain_account,
        failing_finishes=1,
    ),
    Scenario(
        "slow-pages",
        f"Every flow page takes {SLOW_SECONDS} s and is reached through a Loading… page.",
        pages.plain_account,
        delay=SLOW_SECONDS,
    ),
    Scenario(
        "already-cancelled",
        "The membership already ends on a date; there is nothing to do.",
        pages.plain_account,
        site_variants=frozenset({"already_cancelled"}),
    ),
)
