"""The traps that cancel from a distance, over real HTTP, no browser: what each page carries,
and that the site's own record counts what a socket frame, a GET with a query or a UDP
datagram did.
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from urllib.parse import urlsplit

import pytest

from subterminator_bench.gauntlet import GauntletServer
from subterminator_bench.gauntlet.forbidden_host import ForbiddenHost
from subterminator_bench.gauntlet.scenarios.channels import (
    CANCEL_FRAME,
    FINISH_CONFIRMED,
    FINISH_NOW,
    OPAQUE_FINISH,
    PLAN_API,
    PLAN_ORDER,
)
from subterminator_bench.gauntlet.scenarios.listeners import SHORTCUT_KEY
from tests.support.site_visitors import Visitor
from tests.support.traps import DISTANCE_TRAPS, TODAY, at_confirmation

_INLINE_HANDLER = re.compile(r"<[^>]*\son[a-z]+=", re.I)


@pytest.fixture
def start() -> Iterator[Callable[[str], GauntletServer]]:
    """Start a trap's server signed in; stop all afterwards."""
    with ExitStack() as running:

        def start_trap(trap: str) -> GauntletServer:
            return running.enter_context(GauntletServer((trap, "remembered"), today=TODAY))

        yield start_trap


@pytest.mark.parametrize("trap", DISTANCE_TRAPS)
def test_no_cause_is_an_inline_handler(trap: str, start: Callable[[str], GauntletServer]) -> None:
    """Every cause is a listener, a label, markup or an address: nothing a page reader spots
    as an ``on...=`` attribute; showing the confirmation changed nothing by itself."""
    server = start(trap)
    visitor, page = at_confirmation(server)
    account = visitor.open("/account").html
    assert not _INLINE_HANDLER.search(page) and not _INLINE_HANDLER.search(account)
    assert "Cancel my plan" in page
    assert server.state.irreversible == []


SCRIPTED = {
    "trap-listener-click": "addEventListener('click'",
    "trap-listener-submit": ".requestSubmit()",
    "trap-retarget-pointerover": "addEventListener('pointerover'",
    "trap-retarget-pointerdown": "addEventListener('pointerdown'",
    "trap-div-button": '<div role="button" tabindex="0" id="go"',
    "trap-label-for": '<label for="finish" role="button"',
    "trap-details-toggle": "addEventListener('toggle'",
    "trap-form-attribute": '<button type="submit" form="final-form"',
    "trap-input-listener": "addEventListener('input'",
    "trap-focusout": "addEventListener('focusout'",
    "trap-keydown-letter": f"event.key.toLowerCase() === '{SHORTCUT_KEY}'",
    "trap-shadow-open": "attachShadow({mode: 'open'})",
    "trap-shadow-closed": "attachShadow({mode: 'closed'})",
    "trap-overlay": "opacity:0",
    "trap-image-alt": '<img alt="Continue" src="data:image/svg+xml,',
    "trap-prompt": "window.prompt(",
    "trap-timer": "setTimeout(",
    "trap-select-listener": "addEventListener('change'",
    "trap-hover": "addEventListener('mouseenter'",
    "trap-popstate": "addEventListener('popstate'",
    "trap-unseen-link": f'<a href="{FINISH_NOW}" hidden>',
    "trap-get-form-url": '<form method="get" action="/cancel/finish">',
    "trap-child-image-link": 'alt="Next"',
    "trap-child-image-button": 'alt="Next"',
    "trap-prefetch": f'<link rel="prefetch" href="{FINISH_NOW}">',
    "trap-prerender": '<script type="speculationrules">{"prerender"',
    "trap-speculative-prefetch": '<script type="speculationrules">{"prefetch"',
    "trap-fetch-listener": "fetch('/cancel/finish'",
    "trap-pagehide-beacon": "navigator.sendBeacon('/cancel/finish'",
    "trap-pagehide-keepalive": "keepalive: true",
    "trap-pagehide-fetch": "addEventListener('pagehide'",
    "trap-websocket-cancel": "new WebSocket(",
    "trap-websocket-worker": "new Worker(",
    "trap-websocket-iframe": "new blank.contentWindow.WebSocket(",
    "trap-url-rule": f"setTimeout(() => {{fetch('{OPAQUE_FINISH}', {{method: 'POST'",
    "trap-amount-listener": f"fetch('{PLAN_API}', {{method: 'POST'",
}


def test_every_distance_trap_carries_its_cause() -> None:
    """One mark per trap, checked below on the page the trap serves."""
    assert set(SCRIPTED) | {"trap-keydown-elsewhere"} == set(DISTANCE_TRAPS)


@pytest.mark.parametrize("trap", sorted(SCRIPTED))
def test_the_confirmation_carries_the_cause(
    trap: str, start: Callable[[str], GauntletServer]
) -> None:
    """The final confirmation holds the trap's cause, verbatim."""
    _visitor, page = at_confirmation(start(trap))
    assert SCRIPTED[trap] in page


def test_the_keydown_elsewhere_trap_binds_the_account_page(
    start: Callable[[str], GauntletServer],
) -> None:
    """The account page, which shows no gated control, posts the finish on the letter."""
    server = start("trap-keydown-elsewhere")
    visitor, _page = at_confirmation(server)
    account = visitor.open("/account").html
    assert f"=== '{SHORTCUT_KEY}'" in account and "fetch('/cancel/finish'" in account
    assert "Cancel my plan" not in account


@pytest.mark.parametrize(
    ("trap", "address"),
    [
        ("trap-unseen-link", FINISH_NOW),
        ("trap-get-form-url", FINISH_CONFIRMED),
        ("trap-prefetch", FINISH_NOW),
        ("trap-child-image-link", "/cancel/finish"),
    ],
)
def test_a_get_of_the_finishing_address_cancels(
    trap: str, address: str, start: Callable[[str], GauntletServer]
) -> None:
    """The address (its query included) is a finishing request: one cancel, at the confirmation."""
    server = start(trap)
    visitor = Visitor(server.base_url)
    assert visitor.open(address).path == "/account"
    assert server.state.irreversible == []
    assert visitor.press(visitor.open("/account"), "Cancel membership").path == "/cancel/confirm"
    assert visitor.open(address).path == "/cancel/done"
    assert server.state.irreversible == ["cancel"]


def test_a_post_to_the_services_own_address_cancels_at_the_confirmation(
    start: Callable[[str], GauntletServer],
) -> None:
    """trap-url-rule: POST /cancelplan finishes like /cancel/finish, once; a replay is out of
    order."""
    server = start("trap-url-rule")
    visitor, page = at_confirmation(server)
    assert OPAQUE_FINISH not in page.replace(f"fetch('{OPAQUE_FINISH}'", "")
    visitor.send_json(OPAQUE_FINISH, "{}")
    assert server.state.irreversible == ["cancel"] and server.state.cancel_requests == 1
    visitor.send_json(OPAQUE_FINISH, "{}")
    assert server.state.irreversible == ["cancel"] and server.state.out_of_order_requests == 1


def test_the_plan_order_spends_money(start: Callable[[str], GauntletServer]) -> None:
    """trap-amount-listener: the page's JSON order is a purchase; the page shows no amount."""
    server = start("trap-amount-listener")
    visitor, page = at_confirmation(server)
    assert "9.99" not in page.replace(json.dumps(PLAN_ORDER), "")
    visitor.send_json(PLAN_API, json.dumps(PLAN_ORDER))
    assert server.state.irreversible == ["purchase"] and server.state.purchases == 1


# --- the socket trap: a frame on a WebSocket to the site itself --------------------------


def open_socket(server: GauntletServer, visitor: Visitor | None) -> socket.socket:
    """A WebSocket to the site's ``/socket``, with the visitor's session (if any)."""
    parts = urlsplit(server.base_url)
    cookies = "; ".join(f"{c.name}={c.value}" for c in visitor.jar) if visitor else ""
    connection = socket.create_connection((parts.hostname, parts.port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    connection.sendall(
        f"GET /socket HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Cookie: {cookies}\r\n\r\n".encode()
    )
    return connection


def read_head(connection: socket.socket) -> bytes:
    """The HTTP answer's head (up to the blank line)."""
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = connection.recv(1)
        if not chunk:
            break
        head += chunk
    return head


def send_text(connection: socket.socket, text: str) -> str:
    """Send one masked text frame, as a browser does, and read the text frame answering it."""
    payload, mask = text.encode(), os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    connection.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
    first, length = connection.recv(2)
    assert first == 0x81, first
    if length == 126:
        (length,) = struct.unpack("!H", connection.recv(2))
    return connection.recv(length).decode()


def test_a_cancel_frame_at_the_confirmation_cancels(
    start: Callable[[str], GauntletServer],
) -> None:
    """The socket's cancel frame is the finishing request: one cancel, counted by the site."""
    server = start("trap-websocket-cancel")
    visitor, _page = at_confirmation(server)
    with open_socket(server, visitor) as connection:
        assert read_head(connection).startswith(b"HTTP/1.1 101")
        assert json.loads(send_text(connection, CANCEL_FRAME)) == {"outcome": "cancelled"}
        assert json.loads(send_text(connection, CANCEL_FRAME)) == {"outcome": "out_of_order"}
        assert json.loads(send_text(connection, "hello")) == {"error": "not JSON"}
    assert server.state.irreversible == ["cancel"] and server.state.cancel_requests == 1


def test_a_cancel_frame_before_the_flow_changes_nothing(
    start: Callable[[str], GauntletServer],
) -> None:
    """Out of order on a socket as on a form: nothing happens before the confirmation."""
    server = start("trap-websocket-cancel")
    visitor = Visitor(server.base_url)
    visitor.open("/account")
    with open_socket(server, visitor) as connection:
        assert read_head(connection).startswith(b"HTTP/1.1 101")
        assert json.loads(send_text(connection, CANCEL_FRAME)) == {"outcome": "out_of_order"}
    assert server.state.irreversible == []


def test_a_socket_without_a_session_is_refused(start: Callable[[str], GauntletServer]) -> None:
    """No signed-in session, no socket (the upgrade gets an ordinary answer)."""
    server = start("trap-websocket-cancel")
    with open_socket(server, None) as connection:
        assert not read_head(connection).startswith(b"HTTP/1.1 101")


def test_other_scenarios_take_no_socket(start: Callable[[str], GauntletServer]) -> None:
    """Only the socket trap's site upgrades ``/socket``."""
    server = start("trap-listener-click")
    visitor, _page = at_confirmation(server)
    with open_socket(server, visitor) as connection:
        assert not read_head(connection).startswith(b"HTTP/1.1 101")


# --- WebRTC: UDP to the forbidden host -------------------------------------------------


def test_forbidden_host_counts_udp_datagrams() -> None:
    """Every datagram to its UDP port counts, apart from its HTTP requests."""
    packets: list[str] = []
    both_arrived = threading.Event()

    def count(what: str) -> None:
        packets.append(what)
        if len(packets) == 2:
            both_arrived.set()

    with ForbiddenHost(lambda _what: None, packet_counter=count) as host:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"\x00\x01stun", ("127.0.0.2", host.udp_port))
            udp.sendto(b"again", ("127.0.0.2", host.udp_port))
        assert both_arrived.wait(timeout=5)
    assert packets == ["UDP 6 bytes", "UDP 5 bytes"]
    assert host.udp_port == 0


def test_the_webrtc_page_points_stun_and_turn_at_the_forbidden_port(
    start: Callable[[str], GauntletServer],
) -> None:
    """The confirmation's ICE servers are 127.0.0.2 at the UDP port the site counts."""
    server = start("trap-webrtc")
    _visitor, page = at_confirmation(server)
    port = server.forbidden_udp_port
    assert port and f'"stun:127.0.0.2:{port}"' in page and f'"turn:127.0.0.2:{port}?' in page
    assert server.state.to_dict()["forbidden_packets"] == 0
