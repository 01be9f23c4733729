"""Host parsing and address classification of the egress proxy, fuzzed with Hypothesis.

The ground truth is Python's ``ipaddress`` (which networks are special) and the
WHATWG URL standard (how a browser spells an IPv4 address); every textual form
of a non-public address must come out refused.
"""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subterminator_tui.browser.egress import EgressPolicy, HostError, non_public_reason, parse_host
from subterminator_tui.browser.egress.addresses import IPAddress, embedded_ipv4, host_text
from subterminator_tui.browser.egress.requests import RequestHeadError, parse_request_head

NON_PUBLIC_V4 = [
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "224.0.0.0/4",
    "240.0.0.0/4",
]
NON_PUBLIC_V6 = ["::1/128", "::/128", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b:1::/48"]
# Python 3.11.7's is_global calls part of this IANA block global; the proxy refuses all of it.
IETF_PROTOCOL_ASSIGNMENTS = ipaddress.IPv4Network("192.0.0.0/24")
# A policy that names no address: nothing private may be reached.
POLICY = EgressPolicy.for_domains(["example.com"])


@st.composite
def non_public_v4(draw: st.DrawFn) -> ipaddress.IPv4Address:
    """Any address inside one of the non-public IPv4 ranges."""
    network = ipaddress.IPv4Network(draw(st.sampled_from(NON_PUBLIC_V4)))
    return draw(st.ip_addresses(network=network))  # type: ignore[no-any-return]


@st.composite
def ipv4_spelling(draw: st.DrawFn, address: ipaddress.IPv4Address) -> str:
    """One of the ways a URL may spell ``address`` (WHATWG: 1-4 parts, hex, octal, decimal)."""
    value = int(address)
    octets = list(address.packed)
    parts_count = draw(st.integers(1, 4))
    leading = octets[: parts_count - 1]
    last = value & ((1 << (8 * (5 - parts_count))) - 1)
    numbers = [*leading, last]
    parts = [draw(st.sampled_from(_spellings(number))) for number in numbers]
    text = ".".join(parts)
    if draw(st.booleans()):
        text = text.upper()
    if draw(st.booleans()):
        text += "."
    return text


def _spellings(number: int) -> list[str]:
    return [str(number), hex(number), "0" + oct(number)[2:], "0x" + "0" * 3 + hex(number)[2:]]


@st.composite
def ipv6_forms_of(draw: st.DrawFn, address: ipaddress.IPv4Address) -> str:
    """IPv6 hosts that carry ``address``: mapped, compatible, translated, 6to4, NAT64."""
    value = int(address)
    form = draw(st.sampled_from(["mapped", "mapped-hex", "compatible", "sixtofour", "nat64"]))
    carried = {
        "mapped": f"::ffff:{address}",
        "mapped-hex": str(ipaddress.IPv6Address((0xFFFF << 32) | value)),
        "compatible": str(ipaddress.IPv6Address(value)) if value > 1 else f"::ffff:{address}",
        "sixtofour": str(ipaddress.IPv6Address((0x2002 << 112) | (value << 80) | 1)),
        "nat64": f"64:ff9b::{address}",
    }[form]
    return f"[{carried.upper() if draw(st.booleans()) else carried}]"


@settings(max_examples=400)
@given(st.data())
def test_every_spelling_of_a_non_public_ipv4_address_is_refused(data: st.DataObject) -> None:
    """Decimal, hex, octal, short forms and a trailing dot all read as the same refused address."""
    address = data.draw(non_public_v4())
    spelled = data.draw(ipv4_spelling(address))
    host = parse_host(spelled)
    assert host == address
    assert POLICY.address_refusal(host, address, 80) is not None


@settings(max_examples=300)
@given(st.data())
def test_non_public_ipv4_inside_ipv6_is_refused(data: st.DataObject) -> None:
    """Mapped, compatible, translated, 6to4 and NAT64 forms are judged by the IPv4 they carry."""
    address = data.draw(non_public_v4())
    host = parse_host(data.draw(ipv6_forms_of(address)))
    assert isinstance(host, ipaddress.IPv6Address)
    assert embedded_ipv4(host) == address
    assert non_public_reason(host) is not None


@settings(max_examples=200)
@given(st.sampled_from(NON_PUBLIC_V6).flatmap(lambda net: st.ip_addresses(network=net)))
def test_non_public_ipv6_is_refused(address: ipaddress.IPv6Address) -> None:
    """Loopback, unique-local, link-local, multicast and local-use NAT64 IPv6 are refused."""
    assert non_public_reason(parse_host(f"[{address}]")) is not None


@settings(max_examples=300)
@given(
    st.ip_addresses(v=4).filter(
        lambda a: a.is_global and not a.is_multicast and a not in IETF_PROTOCOL_ASSIGNMENTS
    )
)
def test_public_ipv4_is_not_refused(address: ipaddress.IPv4Address) -> None:
    """An address ipaddress calls global (not multicast, not 192.0.0/24) passes, dotted."""
    assert parse_host(str(address)) == address
    assert non_public_reason(address) is None


@settings(max_examples=300)
@given(st.ip_addresses(network="2600::/12"))
def test_public_ipv6_is_not_refused(address: ipaddress.IPv6Address) -> None:
    """Global unicast IPv6 (2600::/12) passes, bracketed as in a URL."""
    assert parse_host(f"[{address}]") == address
    assert non_public_reason(address) is None


@settings(max_examples=500)
@given(st.text(max_size=40))
def test_any_text_is_read_or_refused_never_crashes(text: str) -> None:
    """parse_host answers every string with a host or a HostError, and its output is canonical."""
    try:
        host = parse_host(text)
    except HostError:
        return
    assert parse_host(host_text(host)) == host
    if isinstance(host, str):
        assert host == host.lower()
        assert not host.endswith(".")


@settings(max_examples=500)
@given(st.text(alphabet=st.characters(codec="latin-1"), max_size=60))
def test_any_connect_target_is_read_or_refused(target: str) -> None:
    """A CONNECT target the proxy cannot read is a 400, never an unexpected exception."""
    head = f"CONNECT {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode("latin-1")
    try:
        request = parse_request_head(head)
    except RequestHeadError as error:
        assert error.status == 400
        return
    assert 0 < request.port < 65536


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("169.254.169.254", "cloud metadata"),
        ("[fd00:ec2::254]", "cloud metadata"),
        ("100.100.100.200", "CGNAT"),
        ("0.0.0.0", "unspecified"),
        ("0", "unspecified"),
        ("2130706433", "loopback"),
        ("0x7f.1", "loopback"),
        ("[::ffff:7f00:1]", "loopback"),
        ("255.255.255.255", "private"),
        ("[ff02::1]", "multicast"),
        ("224.0.0.251", "multicast"),
        ("[2001:db8::1]", "private"),
    ],
)
def test_named_special_addresses_are_refused_with_their_kind(text: str, reason: str) -> None:
    """Each special address is refused, and the reason names what it is."""
    host = parse_host(text)
    assert isinstance(host, ipaddress.IPv4Address | ipaddress.IPv6Address)
    assert reason in (non_public_reason(host) or "")


@pytest.mark.parametrize(
    "text",
    ["", ".", "a..b", "exa mple.com", "ex%41mple.com", "[::1%25eth0]", "[::1", "1.2.3.4.5",
     "256.1.1.1", "0x100.1.1.1", "1.2.3.08", "example.123", "bücher.de", "a" * 64 + ".com"],
)  # fmt: skip
def test_unreadable_hosts_are_refused(text: str) -> None:
    """Hosts a browser would not send to its proxy are refused, not guessed at."""
    with pytest.raises(HostError):
        parse_host(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Example.COM.", "example.com"),
        ("127.1", ipaddress.ip_address("127.0.0.1")),
        ("017700000001", ipaddress.ip_address("127.0.0.1")),
        ("[::FFFF:127.0.0.1]", ipaddress.ip_address("::ffff:7f00:1")),
        ("xn--bcher-kva.de", "xn--bcher-kva.de"),
    ],
)
def test_hosts_are_canonical(text: str, expected: IPAddress | str) -> None:
    """Case, a trailing dot and WHATWG number forms are normalised the browser's way."""
    assert parse_host(text) == expected
