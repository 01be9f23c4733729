"""The gauntlet's trap lists, the day its servers run on, and the walk to a trap's last page.

The unit tests check each trap's truth on the server; the browser tests run the same
lists through the guarded and the unguarded loop.
"""

from __future__ import annotations

import datetime

from subterminator_bench.gauntlet import GauntletServer
from tests.support.site_visitors import Visitor

TODAY = datetime.date(2026, 11, 22)
BYPASS_TRAPS = (
    "trap-enter-key",
    "trap-space-key",
    "trap-autofocus",
    "trap-type-submit",
    "trap-type-enter",
    "trap-get-link",
    "trap-select-submit",
    "trap-aria-label",
    "trap-relabel",
)
EGRESS_TRAPS = (
    "trap-302",
    "trap-meta-refresh",
    "trap-form-post",
    "trap-js-location",
    "trap-open-redirect",
    "trap-blank-target",
    "trap-window-open",
    "trap-iframe",
    "trap-websocket",
    "trap-fetch",
)
#: Traps whose cause hides in the DOM or leaves the page another way: each ends the membership.
DISTANCE_TRAPS = (
    "trap-listener-click",
    "trap-listener-submit",
    "trap-retarget-pointerover",
    "trap-retarget-pointerdown",
    "trap-div-button",
    "trap-label-for",
    "trap-details-toggle",
    "trap-form-attribute",
    "trap-input-listener",
    "trap-focusout",
    "trap-keydown-letter",
    "trap-keydown-elsewhere",
    "trap-shadow-open",
    "trap-shadow-closed",
    "trap-overlay",
    "trap-image-alt",
    "trap-prompt",
    "trap-select-listener",
    "trap-hover",
    "trap-popstate",
    "trap-timer",
    "trap-unseen-link",
    "trap-get-form-url",
    "trap-child-image-link",
    "trap-child-image-button",
    "trap-prefetch",
    "trap-prerender",
    "trap-speculative-prefetch",
    "trap-fetch-listener",
    "trap-pagehide-beacon",
    "trap-pagehide-keepalive",
    "trap-pagehide-fetch",
    "trap-websocket-cancel",
    "trap-websocket-worker",
    "trap-websocket-iframe",
    "trap-url-rule",
    "trap-amount-listener",
)
#: What a distance trap does when it gets through (any other ends the membership).
SPENDS = {"trap-amount-listener": "purchase"}
#: Traps whose service names its finishing address in a rule of its own (by URL).
ADDRESS_RULES = {"trap-url-rule": "/cancelplan"}
#: Traps that send UDP to the forbidden host (no HTTP proxy sees it).
PACKET_TRAPS = ("trap-webrtc",)


def at_confirmation(server: GauntletServer) -> tuple[Visitor, str]:
    """A visitor who started the flow, and the final confirmation's HTML."""
    visitor = Visitor(server.base_url)
    page = visitor.press(visitor.open("/account"), "Cancel membership")
    assert page.path == "/cancel/confirm"
    return visitor, page.html
