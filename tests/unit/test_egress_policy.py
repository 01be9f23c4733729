"""The egress policy read from a service's allowed_domains, and the proxy's reading of requests."""

from __future__ import annotations

import ipaddress

import pytest

from subterminator_tui.browser.egress import EgressPolicy, is_document_navigation, parse_host
from subterminator_tui.browser.egress.requests import RequestHeadError, parse_request_head

LOOPBACK = ipaddress.ip_address("127.0.0.1")
PRACTICE = EgressPolicy.for_domains(["127.0.0.1"])
NETFLIX = EgressPolicy.for_domains(["netflix.com"])


def test_a_named_private_address_may_be_reached() -> None:
    """allowed_domains = ["127.0.0.1"] lets the browser reach 127.0.0.1 on its web ports."""
    assert PRACTICE.address_refusal(LOOPBACK, LOOPBACK, 80) is None
    assert PRACTICE.address_refusal(LOOPBACK, LOOPBACK, 443) is None


def test_a_named_local_address_opens_its_port_only() -> None:
    """A practice origin opens that port; serve's own /mcp on another port stays closed."""
    site = EgressPolicy.for_domains(["http://127.0.0.1:8123"])
    assert site.address_refusal(LOOPBACK, LOOPBACK, 8123) is None
    refused = site.address_refusal(LOOPBACK, LOOPBACK, 8124)
    assert refused is not None and "another port than 8124" in refused
    assert PRACTICE.address_refusal(LOOPBACK, LOOPBACK, 8123) is not None
    assert site.document_refusal(LOOPBACK, 8123) is None
    assert site.document_refusal(LOOPBACK, 8124) is not None


def test_only_the_named_address_may_be_reached() -> None:
    """Naming 127.0.0.1 does not open 127.0.0.2, ::1 or the mapped form of 127.0.0.1."""
    for text in ("127.0.0.2", "::1", "::ffff:127.0.0.1", "10.0.0.1"):
        address = ipaddress.ip_address(text)
        assert PRACTICE.address_refusal(address, address, 80) is not None, text


def test_an_allowed_name_resolving_to_a_private_address_is_refused() -> None:
    """DNS rebinding: netflix.com is allowed, but not when it resolves to loopback."""
    reason = NETFLIX.address_refusal("netflix.com", LOOPBACK, 443)
    assert reason == (
        "netflix.com resolves to 127.0.0.1, a loopback address, which allowed_domains does not name"
    )


def test_a_public_address_outside_the_domains_may_serve_subresources() -> None:
    """A CDN's public address passes the address check whatever allowed_domains says."""
    cdn = ipaddress.ip_address("151.101.1.1")
    assert NETFLIX.address_refusal("assets.nflxext.com", cdn, 443) is None


def test_top_level_pages_stay_inside_allowed_domains() -> None:
    """A document may go to the allowed domain and its subdomains, and nowhere else."""
    assert NETFLIX.document_refusal("www.netflix.com") is None
    assert NETFLIX.document_refusal("evilnetflix.com") is not None
    assert PRACTICE.document_refusal(parse_host("127.1")) is None
    assert PRACTICE.document_refusal(parse_host("127.0.0.2")) is not None


def test_bracketed_and_dotted_ip_literals_in_allowed_domains_are_read() -> None:
    """``[::1]`` and ``10.0.0.1.`` in a services file name those addresses."""
    policy = EgressPolicy.for_domains(["[::1]", "10.0.0.1.", "router.lan"])
    assert policy.reachable_private == {
        (ipaddress.ip_address(address), port)
        for address in ("::1", "10.0.0.1")
        for port in (80, 443)
    }


def test_fetch_metadata_recognises_a_top_level_navigation() -> None:
    """Sec-Fetch-Dest document + Sec-Fetch-Mode navigate is a top-level page; an iframe is not."""
    assert is_document_navigation({"sec-fetch-dest": "document", "sec-fetch-mode": "navigate"})
    assert not is_document_navigation({"sec-fetch-dest": "iframe", "sec-fetch-mode": "navigate"})
    assert not is_document_navigation({})


# --- reading requests -------------------------------------------------------------------------


def test_a_connect_names_host_and_port() -> None:
    """CONNECT [::1]:443 is read as the IPv6 loopback on port 443."""
    request = parse_request_head(b"CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n")
    assert (request.host, request.port, request.is_tunnel) == (
        ipaddress.ip_address("::1"),
        443,
        True,
    )


def test_an_absolute_url_becomes_an_origin_request_that_closes() -> None:
    """The site gets origin-form, no proxy headers, and Connection: close."""
    request = parse_request_head(
        b"GET http://Example.com./a?b=1 HTTP/1.1\r\nHost: example.com\r\n"
        b"Proxy-Connection: keep-alive\r\nConnection: keep-alive\r\n\r\n"
    )
    assert (request.host, request.port) == ("example.com", 80)
    assert request.origin_head() == (
        b"GET /a?b=1 HTTP/1.1\r\nhost: example.com\r\nConnection: close\r\n\r\n"
    )


def test_a_websocket_upgrade_keeps_its_upgrade() -> None:
    """ws:// arrives as http:// with Upgrade; the site still sees the upgrade request."""
    request = parse_request_head(
        b"GET http://127.0.0.1:8080/ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
        b"Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
    )
    assert request.is_upgrade
    assert b"upgrade: websocket\r\nConnection: upgrade\r\n\r\n" in request.origin_head()


@pytest.mark.parametrize(
    "head",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET https://x/ HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET http://user:pw@x/ HTTP/1.1\r\nHost: x\r\n\r\n",
        b"CONNECT x HTTP/1.1\r\nHost: x\r\n\r\n",
        b"CONNECT x:99999 HTTP/1.1\r\nHost: x\r\n\r\n",
        b"CONNECT ::1:443 HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET http://x/ HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n",
        b"GET http://x/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\nHost: x\r\n\r\n",
    ],
)
def test_requests_the_proxy_cannot_read_are_refused(head: bytes) -> None:
    """Origin-form, https in the clear, credentials, bad ports, bad names, smuggling shapes: 400."""
    with pytest.raises(RequestHeadError) as caught:
        parse_request_head(head)
    assert caught.value.status == 400
