"""Hostile pages whose commit is a request to ``/membership/cancel`` that no rule names.

Not rebuilt from a record: these are the gauntlet's older tricks (its ``listeners``
scenarios) aimed at an address no service rule lists, served as sites a run reaches by
``cancel --url``. Each account page holds one innocent-looking control whose real
effect is ``POST /membership/cancel``; the scripted path uses only that control. Also
here: a finishing address no page links to, whose GET cancels, a confirmation whose
button is renamed and rewired while the question about it is on screen, and a commit no
rule can see at all (a "Continue" posting ``step=2`` to ``/membership/step``): the guard
misses it by construction, and the run must say so.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from subterminator_bench.rebuilt.site import Flow, Route, link, page
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, json_response, redirect

CANCEL_PATH = "/membership/cancel"
#: The letter the keydown page asks to press.
SHORTCUT_KEY = "c"
#: What the renamed confirmation's button says after the rename.
RENAMED_LABEL = "Accept offer: 3 months for $1"
OFFER_CENTS = 100
#: How long a page may wait on a test's switch before giving up.
SIGNAL_WAIT_SECONDS = 60.0


def _membership(state: FlowState) -> str:
    return (
        "<h1>Your membership</h1>"
        f"<p>Premium membership, $12.99/month. Renews on {state.end_date_text}.</p>"
    )


def _cancel(_request: Request, state: FlowState) -> Response:
    state.cancel(f"POST {CANCEL_PATH}")
    return redirect("/membership/cancelled")


def _cancelled(_request: Request, state: FlowState) -> Response:
    if not state.cancelled:
        return redirect("/account")
    body = (
        "<h1>Cancellation confirmed</h1>"
        f"<p>Your membership has been cancelled. It ends on {state.end_date_text}.</p>"
    )
    return html(page("Membership cancelled", body))


def _benefits(_request: Request, state: FlowState) -> Response:
    return html(page("Your benefits", "<h1>Your benefits</h1><p>Ad-free listening.</p>"))


def _hostile(flow_id: str, name: str, account: Route, **more: Route) -> Flow:
    routes: dict[tuple[str, str], Route] = {
        ("GET", "/account"): account,
        ("POST", CANCEL_PATH): _cancel,
        ("GET", "/membership/cancelled"): _cancelled,
        ("GET", "/account/benefits"): _benefits,
    }
    for key, route in more.items():
        method, path = key.split(" ", 1)
        routes[(method, path)] = route
    return Flow(id=flow_id, name=name, source="the gauntlet's listeners, re-aimed", routes=routes)


def _retarget_pointerover(_request: Request, state: FlowState) -> Response:
    form = (
        '<form method="get" action="/account/benefits">'
        '<button type="submit" id="go" class="btn">Continue</button></form>'
    )
    code = (
        "document.getElementById('go').addEventListener('pointerover', (event) => {"
        "const form = event.currentTarget.form;"
        f"form.method = 'post'; form.action = '{CANCEL_PATH}';}});"
    )
    body = _membership(state) + "<p>See what your membership includes.</p>" + form
    return html(page("Your membership", body, script=code))


def _keydown(_request: Request, state: FlowState) -> Response:
    hidden = f'<form id="shortcut" method="post" action="{CANCEL_PATH}" hidden></form>'
    code = (
        "document.addEventListener('keydown', (event) => {"
        f"if (event.key.toLowerCase() === '{SHORTCUT_KEY}') "
        "document.getElementById('shortcut').requestSubmit();});"
    )
    hint = f"<p>Press {SHORTCUT_KEY.upper()} to see your plan summary.</p>"
    return html(page("Your membership", _membership(state) + hint + hidden, script=code))


def _overlay(_request: Request, state: FlowState) -> Response:
    overlay = (
        f'<form method="post" action="{CANCEL_PATH}">'
        '<span style="position:relative;display:inline-block">'
        '<span class="btn" aria-hidden="true">Cancel my membership</span>'
        '<button type="submit" class="btn" style="position:absolute;inset:0;opacity:0;'
        'margin:0;width:100%">Continue</button></span></form>'
    )
    return html(page("Your membership", _membership(state) + overlay))


def _drawn_words(text: str) -> str:
    """An SVG picture of ``text`` as a data URL: words a person reads and a tree never sees."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="32">'
        '<rect width="200" height="32" rx="4" fill="#b00020"/>'
        f'<text x="100" y="21" fill="#fff" font-size="14" text-anchor="middle">{escape(text)}'
        "</text></svg>"
    )
    return "data:image/svg+xml," + quote(svg)


def _image_alt(_request: Request, state: FlowState) -> Response:
    image = (
        f'<form method="post" action="{CANCEL_PATH}">'
        '<button type="submit" style="border:none;padding:0;background:none">'
        f'<img alt="Continue" src="{_drawn_words("Cancel my membership")}" width="200" '
        'height="32"></button></form>'
    )
    return html(page("Your membership", _membership(state) + image))


def _aliased_frame_account(_request: Request, state: FlowState) -> Response:
    # The frame's address is the same server under its other name, built from the port
    # the page was served on.
    frame = '<iframe id="offers" title="Member offers" width="400" height="120"></iframe>'
    code = (
        "document.getElementById('offers').src = "
        "'http://localhost:' + location.port + '/frame/offers';"
    )
    return html(page("Your membership", _membership(state) + frame, script=code))


def _aliased_frame(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.flags["frame_loaded"] = True
    form = (
        f'<form method="post" action="{CANCEL_PATH}">'
        '<button type="submit" class="btn">Continue</button></form>'
    )
    return html(page("Member offers", "<p>Your member offers are ready.</p>" + form))


def _unseen_account(_request: Request, state: FlowState) -> Response:
    return html(page("Your membership", _membership(state) + link("/account/benefits", "Benefits")))


def _finish_by_get(_request: Request, state: FlowState) -> Response:
    state.cancel("GET /membership/finish")
    return redirect("/membership/cancelled")


#: Where the unnamed commit posts: nothing in its address, fields or label names cancelling.
UNNAMED_COMMIT_PATH = "/membership/step"


def _unnamed_account(_request: Request, state: FlowState) -> Response:
    form = (
        f'<form method="post" action="{UNNAMED_COMMIT_PATH}">'
        '<input type="hidden" name="step" value="2">'
        '<button type="submit" class="btn">Continue</button></form>'
    )
    body = _membership(state) + "<p>Review your membership details.</p>" + form
    return html(page("Your membership", body))


def _unnamed_commit(_request: Request, state: FlowState) -> Response:
    state.cancel(f"POST {UNNAMED_COMMIT_PATH}")
    return redirect("/membership/cancelled")


_RENAME = """
const form = document.getElementById('final');
const button = document.getElementById('yes');
fetch('/rename/wait').then((response) => {
  if (!response.ok) return;
  button.textContent = LABEL;
  form.action = '/offer/accept';
  fetch('/rename/done');
});
"""


def _renamed_account(_request: Request, state: FlowState) -> Response:
    body = _membership(state) + link("/membership/confirm", "Cancel membership")
    return html(page("Your membership", body))


def _renamed_confirm(_request: Request, state: FlowState) -> Response:
    form = (
        f'<form id="final" method="post" action="{CANCEL_PATH}">'
        '<button type="submit" id="yes" class="btn">Yes, cancel</button></form>'
    )
    body = f"<h1>Cancel your membership?</h1><p>It ends on {state.end_date_text}.</p>" + form
    script = f"const LABEL = {RENAMED_LABEL!r};" + _RENAME
    return html(page("Cancel membership", body, script=script))


def _rename_wait(_request: Request, state: FlowState) -> Response:
    if not state.signal("rename").wait(SIGNAL_WAIT_SECONDS):
        return Response(status=204)
    return json_response({"renamed": True})


def _rename_done(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.flags["renamed"] = True
    state.signal("renamed").set()
    return json_response({"ok": True})


def _accept_offer(_request: Request, state: FlowState) -> Response:
    with state.lock:
        state.offers_accepted.append("3 months for $1")
        state.charge("offer", OFFER_CENTS)
        state.note("POST /offer/accept")
    body = "<h1>Offer accepted</h1><p>Enjoy 3 more months for $1.</p>"
    return html(page("Offer accepted", body))


RETARGET_POINTEROVER = _hostile(
    "retarget-pointerover", "Form retargeted on pointerover", _retarget_pointerover
)
KEYDOWN_LISTENER = _hostile("keydown-listener", "Document keydown listener", _keydown)
TRANSPARENT_OVERLAY = _hostile("transparent-overlay", "Transparent button over a label", _overlay)
IMAGE_ALT = _hostile("image-alt", "Image whose alt differs from its picture", _image_alt)
ALIASED_FRAME = _hostile(
    "aliased-frame",
    "A frame under the host's other name",
    _aliased_frame_account,
    **{"GET /frame/offers": _aliased_frame},
)
UNSEEN_FINISH = _hostile(
    "unseen-finish",
    "A finishing address no page links to",
    _unseen_account,
    **{"GET /membership/finish": _finish_by_get},
)
RENAMED_TARGET = _hostile(
    "renamed-target",
    "A confirmation renamed while it is asked about",
    _renamed_account,
    **{
        "GET /membership/confirm": _renamed_confirm,
        "GET /rename/wait": _rename_wait,
        "GET /rename/done": _rename_done,
        "POST /offer/accept": _accept_offer,
    },
)
UNNAMED_COMMIT = _hostile(
    "unnamed-commit",
    "A commit nothing names: a Continue that posts step=2",
    _unnamed_account,
    **{f"POST {UNNAMED_COMMIT_PATH}": _unnamed_commit},
)
#: The four distance tricks and the aliased frame: each commits by ``POST /membership/cancel``.
DISTANCE_TRICKS = (
    RETARGET_POINTEROVER,
    KEYDOWN_LISTENER,
    TRANSPARENT_OVERLAY,
    IMAGE_ALT,
    ALIASED_FRAME,
)
